/*
 * goal.h - a step's goal evaluated on the live computation (goal.c).
 */
#ifndef GOAL_H
#define GOAL_H

#include <stdbool.h>
#include <stddef.h>

#include "run.h"

/* Evaluate the goal on the live computation: a holds c->layers
 * activations in a row, layer l at a + l, as mha_stack.layer does (one
 * layer: mha_forward's). Goals naming a later layer ("layer 1 S₀[2,3]",
 * "x₂[0,1]") read there.
 * Fills run->status ("P₁[5,4] = 0.31, want > 0.8" or "goal met: ...").
 * Returns LESSON_EVAL_MET when every condition holds, plus
 * LESSON_EVAL_JUST_MET the first time it does after not holding (draw the
 * tick now, mark progress). 0 for a step without an exercise. */
enum { LESSON_EVAL_MET = 1, LESSON_EVAL_JUST_MET = 2 };
int lesson_run_eval(struct lesson_run *run, const struct mha_config *c,
                    const struct mha_weights *w, const struct mha_acts *a);

/* One condition alone (a as above): true when it holds; why gets "X = v, want ...".
 * Used by lesson_run_eval and the checker. */
bool lesson_cond_eval(const struct lesson_cond *cond, const struct lesson_run *run,
                      const struct mha_config *c, const struct mha_weights *w,
                      const struct mha_acts *a, char *why, size_t len);

#endif
