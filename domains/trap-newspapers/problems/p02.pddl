(define (problem trap-newspapers-p02)
  (:domain trap-newspapers)
  (:objects
    home house1 house2 house3 - loc
    paper1 paper2 paper3 - paper
  )
  (:init
    (at home)
    (isHomeBase home)
    (safe home)
    (safe house1)
    (safe house2)
    (wantsPaper house1)
    (wantsPaper house2)
    (wantsPaper house3)
    (unpacked paper1)
    (unpacked paper2)
    (unpacked paper3)
  )
  (:goal
    (and
      (satisfied house1)
      (satisfied house2)
      (satisfied house3)
    )
  )
)
