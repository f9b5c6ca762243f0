(define (problem track-building-p01)
  (:domain track-building)
  (:objects
    station depot town - location
  )
  (:init
    (agent-at depot)
    (train-at station)
    (has-track station)
    (forward station depot)
    (forward depot town)
  )
  (:goal
    (and
      (train-at town)
    )
  )
)
