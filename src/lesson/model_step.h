/*
 * model_step.h - lessons on the language model's view (model_step.c): the
 * @model directive (the step puts a sentence through the language model
 * mha-tui trained, and the view owns the step), goals that read the
 * model's state ("model head previous off", "model top1[3] changed",
 * "model heads_off = 1"), the live answer "@answer model head KIND" (the
 * head the analysis names on the sentence) with its slips as @feedback
 * keys, and the solution edit "model head KIND off". The lesson library
 * never sees the model: the TUI measures it and copies what these need
 * into a struct lesson_model_live in the step's run, and this file turns
 * that into verdicts. Deliberately not here: the model, the tokenizer,
 * any drawing.
 */
#ifndef LESSON_MODEL_STEP_H
#define LESSON_MODEL_STEP_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

/* What a head's map is measured for on the sentence (the TUI's measure:
 * train_head_measure), as lessons name them. */
enum lesson_model_kind {
	LESSON_MODEL_PREVIOUS,  /* "previous": weight on the word just before */
	LESSON_MODEL_FIRST,     /* "first": on the first token */
	LESSON_MODEL_CURRENT,   /* "current": on the word itself */
	LESSON_MODEL_SAME,      /* "same": on earlier copies of the word */
	LESSON_MODEL_INDUCTION, /* "induction": on the word after an earlier copy */
	LESSON_MODEL_KINDS
};

enum { LESSON_MODEL_HEADS_MAX = 64 /* layers x heads of a model a lesson can open */ };

/* What the TUI measured, for the open step: each head's score for each
 * kind on the step's sentence through the model as shipped (every head
 * on: "the previous-token head" is the same head before and after it is
 * switched off), which heads are off now, and which positions'
 * predictions differ from the model as shipped (the view's '*'). */
struct lesson_model_live {
	bool ok;
	int layers, heads, n;
	double score[LESSON_MODEL_HEADS_MAX][LESSON_MODEL_KINDS]; /* [layer * heads + head][kind] */
	bool off[LESSON_MODEL_HEADS_MAX];
	bool top1_changed[MHA_MAX_TOKENS]; /* the most probable next token is another one */
	bool next_changed[MHA_MAX_TOKENS]; /* a token or probability of the top 5 moved */
};

/* "previous" -> its kind; -1 when none. */
int lesson_model_kind_by_name(const char *name);
const char *lesson_model_kind_name(enum lesson_model_kind k);

/* The head (layer * heads + head) with the largest score of kind k, ties
 * to the lower one; -1 without live numbers. */
int lesson_model_best(const struct lesson_model_live *v, enum lesson_model_kind k);
/* "L1H3" for head index i. */
void lesson_model_head_name(const struct lesson_model_live *v, int i, char *out, size_t len);
/* A typed head ("L1H3", "l1h3", "L1 H3"): its index, or -1 when it is not
 * one of the model's heads (-2 when it is not written as a head at all). */
int lesson_model_read_head(const struct lesson_model_live *v, const char *text);

/* Is this @answer text a model one ("model ...")? */
bool lesson_model_answer_is(const char *answer);

/* A "model ..." goal (after the word "model"); 0, or -1 with why. */
int lesson_model_parse_cond(const char *p, struct lesson_cond *c, char *why, size_t len);
/* A "model head KIND off|on" edit (after the word "model"); 0, or -1. */
int lesson_model_parse_edit(const char *p, struct lesson_edit *e, char *why, size_t len);
/* A model goal on the live numbers: true when it holds; why says what it sees. */
bool lesson_model_cond_eval(const struct lesson_cond *c, const struct lesson_model_live *v, char *why,
                            size_t len);

#endif
