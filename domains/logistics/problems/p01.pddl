(define (problem logistics-p01)
  (:domain logistics)
  (:objects
    boston - city
    boston-airport - airport
    boston-office - location
    truck1 - truck
    parcel1 parcel2 - package
  )
  (:init
    (in-city boston-airport boston)
    (in-city boston-office boston)
    (at truck1 boston-airport)
    (at parcel1 boston-airport)
    (at parcel2 boston-airport)
  )
  (:goal
    (and
      (at parcel1 boston-office)
      (at parcel2 boston-office)
    )
  )
)
