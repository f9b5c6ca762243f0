(define (problem trap-newspapers-p01)
  (:domain trap-newspapers)
  (:objects
    home house1 house2 - loc
    paper1 paper2 - paper
  )
  (:init
    (at home)
    (isHomeBase home)
    (safe home)
    (safe house1)
    (safe house2)
    (wantsPaper house1)
    (wantsPaper house2)
    (unpacked paper1)
    (unpacked paper2)
  )
  (:goal
    (and
      (satisfied house1)
      (satisfied house2)
    )
  )
)
