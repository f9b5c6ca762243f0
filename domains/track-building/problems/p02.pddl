(define (problem track-building-p02)
  (:domain track-building)
  (:objects
    station bridge tunnel junction harbour - location
  )
  (:init
    (agent-at station)
    (train-at station)
    (has-track station)
    (forward station bridge)
    (forward station tunnel)
    (forward bridge junction)
    (forward tunnel junction)
    (forward junction harbour)
  )
  (:goal
    (and
      (train-at harbour)
    )
  )
)
