(define (problem blocksworld-p01)
  (:domain blocksworld)
  (:objects
    a b c - block
  )
  (:init
    (handempty)
    (ontable a)
    (ontable b)
    (on c a)
    (clear b)
    (clear c)
  )
  (:goal
    (and
      (on a b)
      (on b c)
    )
  )
)
