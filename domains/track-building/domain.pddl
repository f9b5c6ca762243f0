(define (domain track-building)
  (:requirements :strips :typing)
  (:types
    location
  )
  (:predicates
    (agent-at ?loc - location)
    (train-at ?loc - location)
    (has-track ?loc - location)
    (forward ?cur - location ?next - location)
  )
  (:action build-track
    :parameters (?loc - location)
    :precondition (and
      (agent-at ?loc)
    )
    :effect (and
      (has-track ?loc)
    )
  )
  (:action move-agent
    :parameters (?cur - location ?next - location)
    :precondition (and
      (agent-at ?cur)
    )
    :effect (and
      (agent-at ?next)
      (not (agent-at ?cur))
    )
  )
  (:action move-train
    :parameters (?cur - location ?next - location)
    :precondition (and
      (train-at ?cur)
      (has-track ?next)
      (forward ?cur ?next)
    )
    :effect (and
      (train-at ?next)
      (not (train-at ?cur))
    )
  )
)
