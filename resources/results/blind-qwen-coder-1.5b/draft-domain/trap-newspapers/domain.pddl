(define (domain trap-newspapers)
  (:requirements :strips :typing)
  (:types paper loc - object)
  (:predicates
    (at ?loc - loc)
    (ishomebase ?loc - loc)
    (satisfied ?loc - loc)
    (wantspaper ?loc - loc)
    (safe ?loc - loc)
    (unpacked ?paper - paper)
    (carrying ?paper - paper)
  )
  (:action pick-up
    :parameters (?paper - paper ?loc - loc)
    :precondition (and (at ?loc) (safe ?loc) (ishomebase ?loc) (unpacked ?paper))
    :effect (and (carrying ?paper) (not (unpacked ?paper)) (not (wantspaper ?loc))))
  (:action move
    :parameters (?from ?to - loc)
    :precondition (and (at ?from) (ishomebase ?from) (not (ishomebase ?to)) (not (at ?to)) (safe ?from) (safe ?to) (wantspaper ?to))
    :effect (and (not (satisfied ?from)) (not (safe ?from)) (not (wantspaper ?from)) (not (safe ?to)) (not (wantspaper ?to))))
  (:action deliver
    :parameters (?paper - paper ?loc - loc)
    :precondition (and (safe ?loc) (wantspaper ?loc) (not (satisfied ?loc)) (not (ishomebase ?loc)) (carrying ?paper) (at ?loc))
    :effect (and (not (safe ?loc)) (not (wantspaper ?loc)) (not (carrying ?paper)) (unpacked ?paper)))
)

