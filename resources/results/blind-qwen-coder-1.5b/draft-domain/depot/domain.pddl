(define (domain depot)
  (:requirements :strips :typing)
  (:types place locatable - object depot distributor - place truck hoist surface - locatable pallet crate - surface)
  (:predicates
    (at ?obj - locatable ?place - place)
    (on ?crate - crate ?surface - surface)
    (in ?crate - crate ?truck - truck)
    (lifting ?hoist - hoist ?crate - crate)
    (available ?hoist - hoist)
    (clear ?surface - surface)
  )
  (:action drive
    :parameters (?truck - truck ?from ?to - place)
    :precondition (and (at ?truck ?from))
    :effect (and (at ?truck ?to) (not (at ?truck ?from))))
  (:action lift
    :parameters (?hoist - hoist ?crate - crate ?surface - surface ?place - place)
    :precondition (and (available ?hoist) (on ?crate ?surface) (at ?crate ?place) (clear ?crate) (at ?hoist ?place))
    :effect (and (lifting ?hoist ?crate) (not (on ?crate ?surface)) (not (at ?crate ?place)) (not (available ?hoist)) (not (clear ?crate)) (clear ?surface)))
  (:action drop
    :parameters (?hoist - hoist ?crate - crate ?surface - surface ?place - place)
    :precondition (and (at ?hoist ?place) (lifting ?hoist ?crate) (clear ?surface) (at ?surface ?place))
    :effect (and (available ?hoist) (not (lifting ?hoist ?crate)) (not (clear ?surface)) (on ?crate ?surface) (clear ?crate) (at ?crate ?place)))
  (:action load
    :parameters (?hoist - hoist ?crate - crate ?truck - truck ?place - place)
    :precondition (and (at ?hoist ?place) (lifting ?hoist ?crate) (at ?truck ?place))
    :effect (and (in ?crate ?truck) (available ?hoist) (not (lifting ?hoist ?crate))))
  (:action unload
    :parameters (?hoist - hoist ?crate - crate ?truck - truck ?place - place)
    :precondition (and (available ?hoist) (in ?crate ?truck) (at ?truck ?place) (at ?hoist ?place))
    :effect (and (not (in ?crate ?truck)) (not (available ?hoist)) (lifting ?hoist ?crate)))
)

