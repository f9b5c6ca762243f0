(define (domain depot)
  (:requirements :strips :typing)
  (:types
    place locatable - object
    depot distributor - place
    truck hoist surface - locatable
    pallet crate - surface
  )
  (:predicates
    (at ?obj - locatable ?place - place)
    (on ?crate - crate ?surface - surface)
    (in ?crate - crate ?truck - truck)
    (lifting ?hoist - hoist ?crate - crate)
    (available ?hoist - hoist)
    (clear ?surface - surface)
  )
  (:action drive
    :parameters (?truck - truck ?from - place ?to - place)
    :precondition (and
      (at ?truck ?from)
    )
    :effect (and
      (at ?truck ?to)
      (not (at ?truck ?from))
    )
  )
  (:action lift
    :parameters (?hoist - hoist ?crate - crate ?surface - surface ?place - place)
    :precondition (and
      (at ?hoist ?place)
      (available ?hoist)
      (at ?crate ?place)
      (on ?crate ?surface)
      (clear ?crate)
    )
    :effect (and
      (lifting ?hoist ?crate)
      (clear ?surface)
      (not (at ?crate ?place))
      (not (on ?crate ?surface))
      (not (clear ?crate))
      (not (available ?hoist))
    )
  )
  (:action drop
    :parameters (?hoist - hoist ?crate - crate ?surface - surface ?place - place)
    :precondition (and
      (at ?hoist ?place)
      (at ?surface ?place)
      (clear ?surface)
      (lifting ?hoist ?crate)
    )
    :effect (and
      (available ?hoist)
      (at ?crate ?place)
      (on ?crate ?surface)
      (clear ?crate)
      (not (lifting ?hoist ?crate))
      (not (clear ?surface))
    )
  )
  (:action load
    :parameters (?hoist - hoist ?crate - crate ?truck - truck ?place - place)
    :precondition (and
      (at ?hoist ?place)
      (at ?truck ?place)
      (lifting ?hoist ?crate)
    )
    :effect (and
      (in ?crate ?truck)
      (available ?hoist)
      (not (lifting ?hoist ?crate))
    )
  )
  (:action unload
    :parameters (?hoist - hoist ?crate - crate ?truck - truck ?place - place)
    :precondition (and
      (at ?hoist ?place)
      (at ?truck ?place)
      (available ?hoist)
      (in ?crate ?truck)
    )
    :effect (and
      (lifting ?hoist ?crate)
      (not (in ?crate ?truck))
      (not (available ?hoist))
    )
  )
)
