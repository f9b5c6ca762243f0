(define (problem blocksworld-p02)
  (:domain blocksworld)
  (:objects
    a b c d - block
  )
  (:init
    (handempty)
    (ontable a)
    (on b a)
    (ontable c)
    (on d c)
    (clear b)
    (clear d)
  )
  (:goal
    (and
      (on a d)
      (on c b)
    )
  )
)
