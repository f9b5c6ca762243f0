(define (domain track-building)
  (:requirements :strips :typing)
  (:types location - object)
  (:predicates
    (agent-at ?loc - location)
    (train-at ?loc - location)
    (has-track ?loc - location)
    (forward ?cur ?next - location)
  )
  (:action build-track
    :parameters (?loc - location)
    :precondition (and (agent-at ?loc) (not (forward ?loc ?loc)))
    :effect (and (has-track ?loc)))
  (:action move-agent
    :parameters (?cur ?next - location)
    :precondition (and (agent-at ?cur) (not (forward ?next ?cur)))
    :effect (and (agent-at ?next) (not (agent-at ?cur))))
  (:action move-train
    :parameters (?cur ?next - location)
    :precondition (and (train-at ?cur) (forward ?cur ?next) (has-track ?next))
    :effect (and (train-at ?next) (not (train-at ?cur))))
)

