(define (problem miconic-p01)
  (:domain miconic)
  (:objects
    f0 f1 f2 - floor
    alice - passenger
  )
  (:init
    (lift-at f0)
    (above f0 f1)
    (above f0 f2)
    (above f1 f2)
    (origin alice f1)
    (destin alice f2)
  )
  (:goal
    (and
      (served alice)
    )
  )
)
