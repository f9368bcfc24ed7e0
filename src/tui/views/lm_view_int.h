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
};

/* The view (lm_view.c) and its generation page (lm_generate.c). */
extern const struct mode_ops lm_view_mode, lm_gen_mode;

/* lm_view.c: the view's sentence through the model, as W does (for a
 * page opened before the view was); false with a message when it cannot. */
bool lm_view_ready(struct app *app);
/* lm_view.c: ".208" for 0.208, "1.00" */
void lm_prob_text(char *out, size_t len, float p);

#endif
