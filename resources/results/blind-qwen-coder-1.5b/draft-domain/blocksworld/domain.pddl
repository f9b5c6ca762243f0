(define (domain blocksworld)
  (:requirements :strips :typing)
  (:types block - object)
  (:predicates
    (handempty)
    (holding ?x - block)
    (clear ?x - block)
    (on ?x ?y - block)
    (ontable ?x - block)
  )
  (:action pick-up
    :parameters (?x - block)
    :precondition (and (ontable ?x) (handempty) (clear ?x))
    :effect (and (holding ?x) (not (ontable ?x)) (not (handempty)) (not (clear ?x))))
  (:action put-down
    :parameters (?x - block)
    :precondition (and (holding ?x))
    :effect (and (clear ?x) (ontable ?x) (not (holding ?x)) (handempty)))
  (:action stack
    :parameters (?x ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (clear ?x) (on ?x ?y) (not (holding ?x)) (not (clear ?y)) (handempty)))
  (:action unstack
    :parameters (?x ?y - block)
    :precondition (and (handempty) (on ?x ?y) (clear ?x))
    :effect (and (clear ?y) (not (on ?x ?y)) (not (handempty)) (holding ?x) (not (clear ?x))))
)

