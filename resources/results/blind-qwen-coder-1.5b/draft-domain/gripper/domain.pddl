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
    :precondition (and (at-robby ?from) (free left) (free right))
    :effect (and (at-robby ?to)))
  (:action pick
    :parameters (?obj - ball ?room - room ?g - gripper)
    :precondition (and (at-robby ?room) (at ?obj ?room) (free ?g) (free right) (free left))
    :effect (and (carry ?obj ?g) (not (at-robby ?room)) (not (at ?obj ?room)) (not (free ?g)) (not (free right)) (not (free left)) (carry ?obj right) (carry ?obj left)))
  (:action drop
    :parameters (?obj - ball ?room - room ?g - gripper)
    :precondition (and (at-robby ?room) (carry ?obj ?g) (free right))
    :effect (and (not (carry ?obj ?g)) (not (free right)) (at ?obj ?room)))
)

