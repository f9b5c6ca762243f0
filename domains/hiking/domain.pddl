(define (domain hiking)
  (:requirements :strips :typing :negative-preconditions)
  (:types
    loc
  )
  (:predicates
    (at ?loc - loc)
    (isWater ?loc - loc)
    (isHill ?loc - loc)
    (adjacent ?from - loc ?to - loc)
    (onTrail ?from - loc ?to - loc)
  )
  (:action walk
    :parameters (?from - loc ?to - loc)
    :precondition (and
      (at ?from)
      (adjacent ?from ?to)
      (not (isHill ?to))
      (not (isWater ?from))
    )
    :effect (and
      (at ?to)
      (not (at ?from))
    )
  )
  (:action climb
    :parameters (?from - loc ?to - loc)
    :precondition (and
      (at ?from)
      (adjacent ?from ?to)
      (isHill ?to)
      (not (isWater ?from))
    )
    :effect (and
      (at ?to)
      (not (at ?from))
    )
  )
)
