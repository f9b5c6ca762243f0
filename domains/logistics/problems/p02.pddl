(define (problem logistics-p02)
  (:domain logistics)
  (:objects
    boston denver - city
    boston-airport denver-airport - airport
    boston-office denver-office - location
    boston-truck denver-truck - truck
    plane1 - airplane
    parcel1 - package
  )
  (:init
    (in-city boston-airport boston)
    (in-city boston-office boston)
    (in-city denver-airport denver)
    (in-city denver-office denver)
    (at boston-truck boston-office)
    (at denver-truck denver-airport)
    (at plane1 boston-airport)
    (at parcel1 boston-office)
  )
  (:goal
    (and
      (at parcel1 denver-office)
    )
  )
)
