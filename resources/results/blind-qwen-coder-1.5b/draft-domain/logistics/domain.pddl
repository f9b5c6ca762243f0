(define (domain logistics)
  (:requirements :strips :typing)
  (:types truck airplane - vehicle vehicle package - physobj airport location - place city - object)
  (:predicates
    (in-city ?place - place ?city - city)
    (at ?obj - physobj ?place - place)
    (in ?pkg - package ?veh - vehicle)
  )
  (:action load-truck
    :parameters (?pkg - package ?truck - truck ?place - place)
    :precondition (and (at ?pkg ?place) (at ?truck ?place))
    :effect (and (in ?pkg ?truck) (not (at ?pkg ?place))))
  (:action unload-truck
    :parameters (?pkg - package ?truck - truck ?place - place)
    :precondition (and (in ?pkg ?truck) (at ?truck ?place))
    :effect (and (not (in ?pkg ?truck)) (at ?pkg ?place)))
  (:action load-airplane
    :parameters (?pkg - package ?airplane - airplane ?place - airport)
    :precondition (and (at ?pkg ?place) (at ?airplane ?place))
    :effect (and (in ?pkg ?airplane) (not (at ?pkg ?place))))
  (:action unload-airplane
    :parameters (?pkg - package ?airplane - airplane ?place - airport)
    :precondition (and (in ?pkg ?airplane) (at ?airplane ?place))
    :effect (and (not (in ?pkg ?airplane)) (at ?pkg ?place)))
  (:action drive-truck
    :parameters (?truck - truck ?from ?to - place ?city - city)
    :precondition (and (in-city ?from ?city) (in-city ?to ?city) (at ?truck ?from))
    :effect (and (at ?truck ?to) (not (at ?truck ?from)) (in-city ?to ?city)))
  (:action fly-airplane
    :parameters (?airplane - airplane ?from ?to - airport)
    :precondition (and (at ?airplane ?from))
    :effect (and (at ?airplane ?to) (not (at ?airplane ?from))))
)

