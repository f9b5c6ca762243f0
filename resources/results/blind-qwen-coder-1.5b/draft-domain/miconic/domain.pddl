(define (domain miconic)
  (:requirements :strips :typing)
  (:types passenger floor - object)
  (:predicates
    (origin ?p - passenger ?f - floor)
    (destin ?p - passenger ?f - floor)
    (above ?f1 ?f2 - floor)
    (boarded ?p - passenger)
    (served ?p - passenger)
    (lift-at ?f - floor)
  )
  (:action board
    :parameters (?f - floor ?p - passenger)
    :precondition (and (origin ?p ?f) (not (above ?f ?f)) (not (destin ?p ?f)) (lift-at ?f))
    :effect (and (boarded ?p)))
  (:action depart
    :parameters (?f - floor ?p - passenger)
    :precondition (and (boarded ?p) (lift-at ?f))
    :effect (and (not (boarded ?p)) (lift-at ?f) (served ?p)))
  (:action up
    :parameters (?f1 ?f2 - floor)
    :precondition (and (lift-at ?f1) (above ?f1 ?f2))
    :effect (and (lift-at ?f2) (not (lift-at ?f1))))
  (:action down
    :parameters (?f1 ?f2 - floor)
    :precondition (and (lift-at ?f1) (above ?f2 ?f1))
    :effect (and (lift-at ?f2) (not (lift-at ?f1))))
)

