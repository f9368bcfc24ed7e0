/*
 * lm_view_int.h - what the language model's screens share (their family:
 * lm_*.c): the view's state. lm_view.c owns it (the model loaded with the
 * learner's edits, the sentence, the predictions, the layer on the
 * workbench); lm_generate.c is the generation page, a mode of its own
 * opened from the view, that decodes on that same model and never edits
 * it.
 */
#ifndef LM_VIEW_INT_H
#define LM_VIEW_INT_H

#include <stdbool.h>

#include "lm.h"
#include "mode.h"
#include "train.h"

enum {
	TOP = 5,            /* next tokens shown a position */
	LINKS = 16,         /* layer changes remembered for undo */
};

/* A layer put on the bench: at which undo level, which layer. */
struct lm_link { int undo, layer; };

struct lm_view {
	bool loaded;
	char why[600];                       /* the model could not be loaded: why */
	char path[4200];                     /* the model file loaded */
	struct train_model m;                /* the model, with the learner's edits */
	struct lm_vocab v;
	struct lm_meta meta;
	struct lm_batch bt;                  /* one sequence: streams, layers' acts, probabilities */
	int n, ids[MHA_MAX_TOKENS];
	char typed[MHA_MAX_TOKENS][MHA_LABEL_MAX]; /* each token as typed (cut to a label) */
	float x0[MHA_MAX_TOKENS * 256];      /* the stream entering layer 0 (n, d), as the learner left it */
	struct lm_link link[LINKS];
	int links;
	bool live;                           /* the figures below are the bench's */
	int layer;                           /* the layer the bench holds (when live) */
	int top_id[MHA_MAX_TOKENS * TOP];
	float top_p[MHA_MAX_TOKENS * TOP];
	int base_id[MHA_MAX_TOKENS * TOP];   /* the model as shipped, on this sentence */
	float base_p[MHA_MAX_TOKENS * TOP];
	int sel_layer, sel_head;             /* the overview's selected head */
	int scroll;                          /* first prediction row shown */
	bool heads_page;                     /* narrow terminals: the overview instead of the predictions */
	bool lesson;                         /* opened by a lesson step (@model): the lesson's bench holds it */
	char sentence[MHA_MAX_TOKENS * MHA_LABEL_MAX]; /* the text put through the model */
	/* each head's measure on the sentence through the model as shipped
	 * (every head on), for a lesson's goals: [layer * h + head][kind] */
	double shipped_score[TRAIN_MAX_LAYERS * MHA_MAX_HEADS][TRAIN_HEAD_KINDS];
};

/* The view (lm_view.c) and its generation page (lm_generate.c). */
extern const struct mode_ops lm_view_mode, lm_gen_mode;

/* lm_view.c: the view's sentence through the model, as W does (for a
 * page opened before the view was); false with a message when it cannot. */
bool lm_view_ready(struct app *app);
/* lm_view.c: ".208" for 0.208, "1.00" */
void lm_prob_text(char *out, size_t len, float p);

/* lm_lesson.c: the view in a lesson step (@model). The open step's
 * sentence, or NULL when the step has none; */
const char *lm_lesson_sentence(const struct app *app);
/* does the step keep the predictions and heads hidden (@hide model, its
 * question not answered yet)? and refuse a key that would show them
 * (said on the status line: true); */
bool lm_lesson_hides(const struct app *app);
bool lm_lesson_refuse(struct app *app);
/* each head's measure on the sentence just opened (s->bt: the model as
 * shipped), into s->shipped_score; */
void lm_lesson_measure(struct lm_view *s);
/* and what the lesson's goals read, into the step's run. */
void lm_lesson_live(struct app *app, const struct lm_view *s);

#endif
