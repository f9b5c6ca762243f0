; 2 planes, 3 travellers, 3 towns, 4 fuel steps: 12 objects
(define (problem shuttle-p01)
  (:domain shuttle)
  (:objects kestrel osprey ann bo cy dover leeds york f0 f1 f2 f3)
  (:init
    (plane kestrel) (plane osprey)
    (traveller ann) (traveller bo) (traveller cy)
    (town dover) (town leeds) (town york)
    (fuel-step f0) (fuel-step f1) (fuel-step f2) (fuel-step f3)
    (below f0 f1) (below f1 f2) (below f2 f3)
    (located kestrel dover) (fuel kestrel f3)
    (located osprey york) (fuel osprey f1)
    (located ann dover) (located bo leeds) (located cy york))
  (:goal (and (located ann york) (located bo dover) (located cy leeds))))
