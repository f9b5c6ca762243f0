(define (domain trap-newspapers)
  (:requirements :strips :typing)
  (:types
    paper loc
  )
  (:predicates
    (at ?loc - loc)
    (isHomeBase ?loc - loc)
    (satisfied ?loc - loc)
    (wantsPaper ?loc - loc)
    (safe ?loc - loc)
    (unpacked ?paper - paper)
    (carrying ?paper - paper)
  )
  (:action pick-up
    :parameters (?paper - paper ?loc - loc)
    :precondition (and
      (at ?loc)
      (isHomeBase ?loc)
      (unpacked ?paper)
    )
    :effect (and
      (carrying ?paper)
      (not (unpacked ?paper))
    )
  )
  (:action move
    :parameters (?from - loc ?to - loc)
    :precondition (and
      (at ?from)
      (safe ?from)
    )
    :effect (and
      (at ?to)
      (not (at ?from))
    )
  )
  (:action deliver
    :parameters (?paper - paper ?loc - loc)
    :precondition (and
      (at ?loc)
      (carrying ?paper)
    )
    :effect (and
      (satisfied ?loc)
      (not (carrying ?paper))
      (not (wantsPaper ?loc))
    )
  )
)
