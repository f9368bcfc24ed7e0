/*
 * run.h - a lesson step at work on the workbench (run.c): hints, the
 * solution, the learner's answer, and what stays hidden or highlighted.
 * Its goal is evaluated by goal.h; its set-up is setup.h's.
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
#ifndef RUN_H
#define RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "flash_step.h"
#include "model_step.h"
#include "lesson.h"
#include "mha.h"

enum { LESSON_STATUS_MAX = 200, LESSON_ANSWER_MAX = 32,
       LESSON_CELL_SLIPS = 8 /* @feedback cell lines a question may have */ };

struct lesson_run {
	const struct lesson *lesson;
	int step;                     /* index into lesson->steps */
	int hints_shown;              /* hints revealed so far */
	bool solution_shown;          /* the solution was applied */
	bool unearned;                /* can only be "shown" now, for good: its solution was shown (S),
	                               * or its tries are used up (in this run or before: progress) */
	int wrong;                    /* wrong answers given to the question, this run and before */
	bool answered;                /* the learner committed an answer (right or wrong) */
	bool answer_right;
	char answer[LESSON_ANSWER_MAX];
	char precision[80];           /* "right to 2 decimals; the question asks 3", or "" */
	bool met;                     /* the goal held at the last evaluation */
	int conds_met;                /* how many conditions held */
	char status[LESSON_STATUS_MAX];
	/* the start of the step, for 'unchanged' goals: its inputs and what
	 * they computed, every layer */
	struct mha_config ref_cfg;
	struct mha_weights ref_w;
	struct mha_stack ref;
	bool has_ref;
	/* a live question's numbers (@answer flash ...), copied by the TUI from
	 * the FlashAttention view's recording whenever it records */
	struct lesson_flash_live live;
	/* a cell question's numbers (@answer cell REF): REF's value and each
	 * @feedback cell line's, read by every lesson_run_eval */
	bool cell_ok;
	double cell_value;
	double cell_slip[LESSON_CELL_SLIPS];
	/* the language model's state (@model steps), copied by the TUI's view
	 * after every forward pass: model goals and answers read it */
	struct lesson_model_live model;
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

/* Reveal the next hint: its text, or NULL when all are shown. */
const char *lesson_run_next_hint(struct lesson_run *run);

/* Apply the step's solution to c and w (lesson_edits_apply) and its answer
 * if it has a question. Returns 0 (recompute and evaluate), 1 when the
 * shape changed too (reallocate the activations first), -1 with msg. */
int lesson_run_solve(struct lesson_run *run, struct mha_config *c, struct mha_weights *w,
                     char *msg, size_t len);

/* The learner commits an answer to the step's question: a choice key
 * (case-insensitive) or a number (spaces, ',' and '_' between digits
 * ignored). Returns 1 right (what was hidden shows), 0 wrong (hidden
 * stays hidden; the learner may answer again, and once the tries are
 * used up a right answer shows the rest but the step counts as shown), -1 when it cannot be an
 * answer (msg says what to type). */
int lesson_run_answer(struct lesson_run *run, const char *text, char *msg, size_t len);

/* Tries to earn a question: a choice question has one (one wrong choice
 * and the step can only be "shown"), a numeric one LESSON_NUMBER_TRIES. */
enum { LESSON_NUMBER_TRIES = 3 };
int lesson_question_tries(const struct lesson_question *q);
int lesson_run_tries(const struct lesson_run *run);
/* Tries left to earn the question (0 when used up), for the pane and the
 * feedback. A wrong answer that uses the last one sets run->unearned. */
int lesson_run_tries_left(const struct lesson_run *run);
/* What the tries come to, for the question's lines and the feedback:
 * "one try", "3 tries left", "no tries left: it counts as shown". */
void lesson_run_tries_text(const struct lesson_run *run, char *out, size_t len);

/* Does the step's question still wait to be earned: asked, not answered
 * right, its solution not shown, its tries not spent? Leaving such a step
 * forward (where a later step may show its answer) forfeits it. */
bool lesson_run_question_waits(const struct lesson_run *run);
/* Give up earning the question, as if its tries were spent: answering
 * right later shows what it hides, and the step counts as shown. The
 * tries are marked spent (run->wrong), so that progress keeps it. */
void lesson_run_forfeit(struct lesson_run *run);

/* The number a question without choices expects: its @answer, or for a
 * live one the recording's (false while nothing is recorded). */
bool lesson_run_expected(const struct lesson_run *run, double *out);

/* Why the answer last given is wrong: the step's @feedback for it, else
 * "right to D decimals; the question asks E" for a number right to fewer
 * decimals than the question's answer is written with; NULL when it is
 * right, not given, or neither applies. */
const char *lesson_run_feedback(const struct lesson_run *run);
/* Does a typed number count as value v for question q (q's tolerance, or
 * float rounding)? For the answer and for numeric @feedback keys alike. */
bool lesson_answer_near(const struct lesson_question *q, double typed, double v);

/* Has the step shown what it hides: answered right, or its solution
 * shown? A wrong answer reveals nothing. */
bool lesson_run_revealed(const struct lesson_run *run);

/* Predict, then reveal: until the learner answers right (or asks for the
 * solution), is this cell hidden?
 * m is the head for S, P, O (else 0); r, c the cell; -1 for "any" (ask
 * about a whole head or row). */
bool lesson_run_hidden(const struct lesson_run *run, enum mha_tensor t, int m, int r, int c);
/* The same for that cell as the screen shows it in layer `layer` of a
 * stack (lesson_run_hidden is layer 0's): "@hide layer 1 S₀[2,*]" hides
 * it there only, x₁ in both layers that show it. */
bool lesson_run_hidden_at(const struct lesson_run *run, int layer, enum mha_tensor t, int m, int r, int c);
/* Is this stage hidden as a whole (draw a "?" panel instead)? */
bool lesson_run_stage_hidden(const struct lesson_run *run, enum pipeline_stage s);
/* Is the counts panel hidden? */
bool lesson_run_counts_hidden(const struct lesson_run *run);
/* Are the language model's predictions and heads hidden (@hide model)? */
bool lesson_run_model_hidden(const struct lesson_run *run);
/* Does the step highlight this cell (same m, r, c convention)? */
bool lesson_run_marked(const struct lesson_run *run, enum mha_tensor t, int m, int r, int c);
/* The same in layer `layer` (lesson_run_marked is layer 0's). */
bool lesson_run_marked_at(const struct lesson_run *run, int layer, enum mha_tensor t, int m, int r, int c);
/* Does the step highlight head h? */
bool lesson_run_head_marked(const struct lesson_run *run, int h);

#endif
