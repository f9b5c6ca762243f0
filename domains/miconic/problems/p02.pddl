(define (problem miconic-p02)
  (:domain miconic)
  (:objects
    f0 f1 f2 f3 - floor
    alice bob - passenger
  )
  (:init
    (lift-at f0)
    (above f0 f1)
    (above f0 f2)
    (above f0 f3)
    (above f1 f2)
    (above f1 f3)
    (above f2 f3)
    (origin alice f1)
    (destin alice f3)
    (origin bob f2)
    (destin bob f0)
  )
  (:goal
    (and
      (served alice)
      (served bob)
    )
  )
)
