(define (problem heavy-pack-p01)
  (:domain heavy-pack)
  (:objects
    anvil brick feather - item
  )
  (:init
    (box-empty)
    (unpacked anvil)
    (unpacked brick)
    (unpacked feather)
    (heavier anvil brick)
    (heavier anvil feather)
    (heavier brick feather)
  )
  (:goal
    (and
      (packed anvil)
      (packed brick)
      (packed feather)
    )
  )
)
