; 2 lorries, 2 drivers, 2 crates, 4 sites, 2 waypoints: 12 objects
(define (problem haulage-p01)
  (:domain haulage)
  (:objects van1 van2 dan eve box1 box2 s1 s2 s3 s4 w12 w34)
  (:init
    (lorry van1) (lorry van2) (driver dan) (driver eve) (crate box1) (crate box2)
    (site s1) (site s2) (site s3) (site s4)
    (road s1 s2) (road s2 s1) (road s2 s3) (road s3 s2) (road s3 s4) (road s4 s3)
    (footpath s1 w12) (footpath w12 s1) (footpath s2 w12) (footpath w12 s2)
    (footpath s3 w34) (footpath w34 s3) (footpath s4 w34) (footpath w34 s4)
    (at van1 s1) (unmanned van1) (at van2 s4) (unmanned van2)
    (at dan s2) (at eve s3)
    (at box1 s1) (at box2 s3))
  (:goal (and (at box1 s4) (at box2 s1) (at dan s1))))
