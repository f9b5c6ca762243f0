(define (domain logistics)
  (:requirements :strips :typing)
  (:types
    truck airplane - vehicle
    vehicle package - physobj
    airport location - place
    city
  )
  (:predicates
    (in-city ?place - place ?city - city)
    (at ?obj - physobj ?place - place)
    (in ?pkg - package ?veh - vehicle)
  )
  (:action load-truck
    :parameters (?pkg - package ?truck - truck ?place - place)
    :precondition (and
      (at ?truck ?place)
      (at ?pkg ?place)
    )
    :effect (and
      (in ?pkg ?truck)
      (not (at ?pkg ?place))
    )
  )
  (:action unload-truck
    :parameters (?pkg - package ?truck - truck ?place - place)
    :precondition (and
      (at ?truck ?place)
      (in ?pkg ?truck)
    )
    :effect (and
      (at ?pkg ?place)
      (not (in ?pkg ?truck))
    )
  )
  (:action load-airplane
    :parameters (?pkg - package ?airplane - airplane ?place - airport)
    :precondition (and
      (at ?airplane ?place)
      (at ?pkg ?place)
    )
    :effect (and
      (in ?pkg ?airplane)
      (not (at ?pkg ?place))
    )
  )
  (:action unload-airplane
    :parameters (?pkg - package ?airplane - airplane ?place - airport)
    :precondition (and
      (at ?airplane ?place)
      (in ?pkg ?airplane)
    )
    :effect (and
      (at ?pkg ?place)
      (not (in ?pkg ?airplane))
    )
  )
  (:action drive-truck
    :parameters (?truck - truck ?from - place ?to - place ?city - city)
    :precondition (and
      (at ?truck ?from)
      (in-city ?from ?city)
      (in-city ?to ?city)
    )
    :effect (and
      (at ?truck ?to)
      (not (at ?truck ?from))
    )
  )
  (:action fly-airplane
    :parameters (?airplane - airplane ?from - airport ?to - airport)
    :precondition (and
      (at ?airplane ?from)
    )
    :effect (and
      (at ?airplane ?to)
      (not (at ?airplane ?from))
    )
  )
)
