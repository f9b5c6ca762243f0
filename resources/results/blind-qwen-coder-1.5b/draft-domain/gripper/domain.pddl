(define (domain gripper)
  (:requirements :strips :typing)
  (:types room ball gripper - object)
  (:constants left right - gripper)
  (:predicates
    (at-robby ?room - room)
    (at ?obj - ball ?room - room)
    (free ?g - gripper)
    (carry ?obj - ball ?g - gripper)
  )
  (:action move
    :parameters (?from ?to - room)
    :precondition (and (at-robby ?from))
    :effect (and (at-robby ?to) (not (at-robby ?from))))
  (:action pick
    :parameters (?obj - ball ?room - room ?g - gripper)
    :precondition (and (at-robby ?room) (at ?obj ?room) (free ?g))
    :effect (and (carry ?obj ?g) (not (at ?obj ?room)) (not (free ?g))))
  (:action drop
    :parameters (?obj - ball ?room - room ?g - gripper)
    :precondition (and (at-robby ?room) (carry ?obj ?g))
    :effect (and (not (carry ?obj ?g)) (not (carry ?obj left)) (at ?obj ?room) (free ?g)))
)

