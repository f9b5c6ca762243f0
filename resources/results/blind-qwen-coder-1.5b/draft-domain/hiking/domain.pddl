(define (domain hiking)
  (:requirements :negative-preconditions :strips :typing)
  (:types loc - object)
  (:predicates
    (at ?loc - loc)
    (iswater ?loc - loc)
    (ishill ?loc - loc)
    (adjacent ?from ?to - loc)
    (ontrail ?from ?to - loc)
  )
  (:action walk
    :parameters (?from ?to - loc)
    :precondition (and (at ?from) (adjacent ?from ?to) (not (ishill ?to)) (not (iswater ?from)))
    :effect (and (at ?to) (not (at ?from))))
  (:action climb
    :parameters (?from ?to - loc)
    :precondition (and (at ?from) (adjacent ?from ?to) (not (ontrail ?from ?from)) (ishill ?to))
    :effect (and (at ?to) (not (at ?from))))
)

