; Lorries need a driver on board to move along roads; drivers walk footpaths between sites and
; waypoints; crates ride in lorries. Untyped: the kinds (lorry, driver, crate, site) are unary
; predicates of the initial state, and the maps (road, footpath) are static binary facts.
(define (domain haulage)
  (:requirements :strips)
  (:predicates
    (lorry ?x) (driver ?x) (crate ?x) (site ?x)
    (at ?thing ?place)
    (loaded ?c ?l)
    (steering ?d ?l)
    (unmanned ?l)
    (road ?from ?to)
    (footpath ?from ?to))
  (:action load
    :parameters (?c ?l ?s)
    :precondition (and (crate ?c) (lorry ?l) (site ?s) (at ?c ?s) (at ?l ?s))
    :effect (and (loaded ?c ?l) (not (at ?c ?s))))
  (:action unload
    :parameters (?c ?l ?s)
    :precondition (and (crate ?c) (lorry ?l) (site ?s) (loaded ?c ?l) (at ?l ?s))
    :effect (and (at ?c ?s) (not (loaded ?c ?l))))
  (:action climb-in
    :parameters (?d ?l ?s)
    :precondition (and (driver ?d) (lorry ?l) (site ?s) (at ?d ?s) (at ?l ?s) (unmanned ?l))
    :effect (and (steering ?d ?l) (not (at ?d ?s)) (not (unmanned ?l))))
  (:action climb-out
    :parameters (?d ?l ?s)
    :precondition (and (driver ?d) (lorry ?l) (site ?s) (steering ?d ?l) (at ?l ?s))
    :effect (and (at ?d ?s) (unmanned ?l) (not (steering ?d ?l))))
  (:action drive
    :parameters (?l ?from ?to ?d)
    :precondition (and (lorry ?l) (site ?from) (site ?to) (driver ?d)
                       (at ?l ?from) (steering ?d ?l) (road ?from ?to))
    :effect (and (at ?l ?to) (not (at ?l ?from))))
  (:action walk
    :parameters (?d ?from ?to)
    :precondition (and (driver ?d) (at ?d ?from) (footpath ?from ?to))
    :effect (and (at ?d ?to) (not (at ?d ?from)))))
