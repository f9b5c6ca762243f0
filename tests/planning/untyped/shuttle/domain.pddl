; Air shuttles carry travellers between towns and burn one fuel step per hop (two for a fast hop).
; Untyped, in the style of the older planning competitions: every kind of object is a unary
; predicate of the initial state (plane, traveller, town, fuel-step), and the fuel steps are
; ordered by the static (below ?lower ?higher).
(define (domain shuttle)
  (:requirements :strips)
  (:predicates
    (plane ?x) (traveller ?x) (town ?x) (fuel-step ?x)
    (located ?x ?where)
    (aboard ?who ?craft)
    (fuel ?craft ?step)
    (below ?lower ?higher))
  (:action embark
    :parameters (?who ?craft ?where)
    :precondition (and (traveller ?who) (plane ?craft) (town ?where)
                       (located ?who ?where) (located ?craft ?where))
    :effect (and (aboard ?who ?craft) (not (located ?who ?where))))
  (:action disembark
    :parameters (?who ?craft ?where)
    :precondition (and (traveller ?who) (plane ?craft) (town ?where)
                       (aboard ?who ?craft) (located ?craft ?where))
    :effect (and (located ?who ?where) (not (aboard ?who ?craft))))
  (:action hop
    :parameters (?craft ?from ?to ?have ?left)
    :precondition (and (plane ?craft) (town ?from) (town ?to) (fuel-step ?have) (fuel-step ?left)
                       (located ?craft ?from) (fuel ?craft ?have) (below ?left ?have))
    :effect (and (located ?craft ?to) (not (located ?craft ?from))
                 (fuel ?craft ?left) (not (fuel ?craft ?have))))
  (:action dash
    :parameters (?craft ?from ?to ?have ?mid ?left)
    :precondition (and (plane ?craft) (town ?from) (town ?to)
                       (fuel-step ?have) (fuel-step ?mid) (fuel-step ?left)
                       (located ?craft ?from) (fuel ?craft ?have) (below ?mid ?have) (below ?left ?mid))
    :effect (and (located ?craft ?to) (not (located ?craft ?from))
                 (fuel ?craft ?left) (not (fuel ?craft ?have))))
  (:action tank
    :parameters (?craft ?where ?have ?more)
    :precondition (and (plane ?craft) (town ?where) (fuel-step ?have) (fuel-step ?more)
                       (located ?craft ?where) (fuel ?craft ?have) (below ?have ?more))
    :effect (and (fuel ?craft ?more) (not (fuel ?craft ?have)))))
