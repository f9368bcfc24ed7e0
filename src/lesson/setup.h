/*
 * setup.h - a lesson step put onto the workbench (setup.c): its
 * configuration resolved, its weights set up, edits (a solution) applied
 * to live ones, and the key progress files use for a step. The TUI owns
 * the configuration and weights; these change them when asked, after
 * which the caller recomputes with mha_forward.
 */
#ifndef SETUP_H
#define SETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"
#include "mha.h"

/* Set the workbench up for step i: c becomes the step's configuration and
 * *w a new allocation filled per the set-up (seeded weights, labels,
 * presets, inline matrices, fills, @set edits). *w is overwritten without
 * being freed: free the old weights first, or keep them (undo). Returns 0,
 * or -1 with msg (*w then unallocated). */
int lesson_step_setup(const struct lesson *l, int i, struct mha_config *c, struct mha_weights *w,
                      char *msg, size_t len);

/* Apply edits in two passes: every configuration change first (once, with
 * the weights reallocated and the surviving cells carried over by
 * mha_weights_carry; new cells seeded from c->seed), then cell and head
 * edits in order. Answer edits are skipped (lesson_run_solve handles them).
 * Returns 0, or -1 with msg and c, w unchanged when a configuration change
 * is invalid or a cell does not exist. *changed_shape (may be NULL) says
 * whether w was reallocated: the activations need mha_acts_alloc again. */
int lesson_edits_apply(const struct lesson_edit *e, int n, struct mha_config *c,
                       struct mha_weights *w, bool *changed_shape, char *msg, size_t len);
/* "W^Q[4,0] = 12", "heads = 8", "head 2 off", "answer b". */
void lesson_edit_describe(const struct lesson_edit *e, char *buf, size_t len);

/* A configuration from mha_config_default changed by base then step
 * (kv_heads defaults to heads, d_k to d_model / heads). 0, or -1 with why. */
int lesson_setup_resolve_config(const struct lesson_setup *base, const struct lesson_setup *step,
                         struct mha_config *out, char *why, size_t len);

/* The key progress files use for a step: "reshape/split". */
void lesson_step_key(const struct lesson *l, int i, char *buf, size_t len);

#endif
