(define (domain heavy-pack)
  (:requirements :strips :typing)
  (:types item - object)
  (:predicates
    (heavier ?heavy ?light - item)
    (packed ?item - item)
    (unpacked ?item - item)
    (nothing-above ?item - item)
    (box-empty)
  )
  (:action pack-first
    :parameters (?item - item)
    :precondition (and (box-empty) (not (heavier ?item ?item)) (unpacked ?item))
    :effect (and (packed ?item) (not (box-empty)) (not (unpacked ?item)) (nothing-above ?item)))
  (:action stack
    :parameters (?bottom ?top - item)
    :precondition (and (not (heavier ?top ?bottom)) (not (heavier ?bottom ?bottom)) (not (heavier ?top ?top)) (nothing-above ?bottom) (packed ?bottom) (unpacked ?top) (heavier ?bottom ?top))
    :effect (and (packed ?top) (nothing-above ?top) (not (unpacked ?top)) (not (nothing-above ?bottom))))
)

