(define (problem gripper-p02)
  (:domain gripper)
  (:objects
    rooma roomb roomc - room
    ball1 ball2 ball3 - ball
  )
  (:init
    (at-robby rooma)
    (free left)
    (free right)
    (at ball1 rooma)
    (at ball2 rooma)
    (at ball3 roomb)
  )
  (:goal
    (and
      (at ball1 roomc)
      (at ball2 roomb)
      (at ball3 roomc)
    )
  )
)
