/*
 * exercise.h - a lesson step at work on the workbench: setting it up,
 * evaluating its goal against the live computation, hints, the solution,
 * the learner's answer, and what stays hidden or highlighted. The TUI owns
 * the configuration, weights and activations; these functions read them,
 * or change config and weights when asked (set-up, solution), after which
 * the TUI recomputes with mha_forward.
 *
 * A run (struct lesson_run) is the state of the step the learner is on.
 * Typical loop:
 *
 *     lesson_run_start(&run, l, i, &cfg, &w, msg, len);   // new cfg and w when the step resets
 *     mha_forward(...);  lesson_run_eval(&run, &cfg, &w, &acts);
 *     key "next hint":   lesson_run_next_hint(&run);
 *     key "solution":    lesson_run_solve(&run, &cfg, &w, msg, len); then recompute and eval
 *     typed answer:      lesson_run_answer(&run, text, msg, len); then eval
 *     drawing a cell:    lesson_run_hidden(&run, t, m, r, c), lesson_run_marked(...)
 */
#ifndef EXERCISE_H
#define EXERCISE_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"
#include "mha.h"

enum { LESSON_STATUS_MAX = 200, LESSON_ANSWER_MAX = 32 };

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
/* "W^Q[4][0] = 12", "heads = 8", "head 2 off", "answer b". */
void lesson_edit_describe(const struct lesson_edit *e, char *buf, size_t len);

struct lesson_run {
	const struct lesson *lesson;
	int step;                     /* index into lesson->steps */
	int hints_shown;              /* hints revealed so far */
	bool solution_shown;          /* the solution was applied */
	bool answered;                /* the learner committed an answer: hidden parts show */
	bool answer_right;
	char answer[LESSON_ANSWER_MAX];
	bool met;                     /* the goal held at the last evaluation */
	int conds_met;                /* how many conditions held */
	char status[LESSON_STATUS_MAX];
	/* the start of the step, for 'unchanged' goals */
	struct mha_config ref_cfg;
	struct mha_acts ref;
	bool has_ref;
};

/* Begin step i of l. When the step resets (lesson_step.resets) or force is
 * set, the set-up is applied to c and *w as by lesson_step_setup (the old
 * *w is freed on success); otherwise c and w are left as they are. Either
 * way the activations at this point are kept as the reference of
 * 'unchanged' goals. Returns 1 when c and w were set up anew (recompute,
 * reallocate the activations), 0 when untouched, -1 with msg on failure
 * (run is then empty, c and w untouched). */
int lesson_run_start(struct lesson_run *run, const struct lesson *l, int i, bool force,
                     struct mha_config *c, struct mha_weights *w, char *msg, size_t len);
void lesson_run_end(struct lesson_run *run);

static inline const struct lesson_step *lesson_run_step(const struct lesson_run *run)
{
	return &run->lesson->steps[run->step];
}

/* Evaluate the goal on the live computation (a from mha_forward of c, w).
 * Fills run->status ("P[1][5][4] = 0.31, want > 0.8" or "goal met: ...").
 * Returns LESSON_EVAL_MET when every condition holds, plus
 * LESSON_EVAL_JUST_MET the first time it does after not holding (draw the
 * tick now, mark progress). 0 for a step without an exercise. */
enum { LESSON_EVAL_MET = 1, LESSON_EVAL_JUST_MET = 2 };
int lesson_run_eval(struct lesson_run *run, const struct mha_config *c,
                    const struct mha_weights *w, const struct mha_acts *a);

/* One condition alone: true when it holds; why gets "X = v, want ...".
 * Used by lesson_run_eval and the checker. */
bool lesson_cond_eval(const struct lesson_cond *cond, const struct lesson_run *run,
                      const struct mha_config *c, const struct mha_weights *w,
                      const struct mha_acts *a, char *why, size_t len);

/* Reveal the next hint: its text, or NULL when all are shown. */
const char *lesson_run_next_hint(struct lesson_run *run);

/* Apply the step's solution to c and w (lesson_edits_apply) and its answer
 * if it has a question. Returns 0 (recompute and evaluate), 1 when the
 * shape changed too (reallocate the activations first), -1 with msg. */
int lesson_run_solve(struct lesson_run *run, struct mha_config *c, struct mha_weights *w,
                     char *msg, size_t len);

/* The learner commits an answer to the step's question: a choice key
 * (case-insensitive) or a number (spaces, ',' and '_' between digits
 * ignored). Returns 1 right, 0 wrong (both reveal what was hidden, and
 * the learner may answer again), -1 when it cannot be an answer (msg says
 * what to type; nothing is revealed). */
int lesson_run_answer(struct lesson_run *run, const char *text, char *msg, size_t len);

/* Predict, then reveal: until the learner answers, is this cell hidden?
 * m is the head for S, P, O (else 0); r, c the cell; -1 for "any" (ask
 * about a whole head or row). */
bool lesson_run_hidden(const struct lesson_run *run, enum mha_tensor t, int m, int r, int c);
/* Is this stage hidden as a whole (draw a "?" panel instead)? */
bool lesson_run_stage_hidden(const struct lesson_run *run, enum pipeline_stage s);
/* Is the counts panel hidden? */
bool lesson_run_counts_hidden(const struct lesson_run *run);
/* Does the step highlight this cell (same m, r, c convention)? */
bool lesson_run_marked(const struct lesson_run *run, enum mha_tensor t, int m, int r, int c);
/* Does the step highlight head h? */
bool lesson_run_head_marked(const struct lesson_run *run, int h);

/* The key progress files use for a step: "reshape/split". */
void lesson_step_key(const struct lesson *l, int i, char *buf, size_t len);

#endif
