; 2 planes, 3 travellers, 5 towns, 3 fuel steps: 13 objects
(define (problem shuttle-p02)
  (:domain shuttle)
  (:objects heron swift dee eli fay bath cork hull kent rye low mid top)
  (:init
    (plane heron) (plane swift)
    (traveller dee) (traveller eli) (traveller fay)
    (town bath) (town cork) (town hull) (town kent) (town rye)
    (fuel-step low) (fuel-step mid) (fuel-step top)
    (below low mid) (below mid top)
    (located heron bath) (fuel heron top)
    (located swift rye) (fuel swift low)
    (located dee cork) (located eli hull) (located fay kent))
  (:goal (and (located dee rye) (located eli bath) (located fay cork))))
