/*
 * stage.h - for each of the pipeline's seven stages (pipeline.h), the
 * matrices (panels) its screen shows. Pure: no curses, no drawing.
 */
#ifndef STAGE_H
#define STAGE_H

#include <stdbool.h>

#include "mha.h"
#include "pipeline.h"

/* Which projection Projection and Reshape show; PROJ_POS: on Projection,
 * where order enters (stage_pos_shown), after Q, K and V. */
enum proj { PROJ_Q, PROJ_K, PROJ_V, PROJ_COUNT, PROJ_POS = PROJ_COUNT };

enum { STAGE_PANELS_MAX = 4, PANEL_TITLE_MAX = 64 };

/* A window onto one tensor: the column block [col0, col0 + cols) of matrix
 * m (the head, for per-head tensors). */
struct panel {
	enum mha_tensor t;
	int m;
	int col0, cols, rows;
	char title[PANEL_TITLE_MAX]; /* name and shape: "Q_1 6x4" */
	int colour_cols;  /* > 0: colour column c by head c / colour_cols (head blocks) */
	int colour_rows;  /* > 0: colour row r by head r / colour_rows (W^O) */
	int fixed_head;   /* >= 0: every cell in that head's colour (O_i); else -1 */
	bool proof;       /* values computed on screen: X times the column block of W */
	bool write;       /* Output: head write_head's write into Y, C_i = O_i W^O_i (t is Y, m 0) */
	int write_head;
	bool row_stats;   /* softmax: each row's sum and entropy beside it */
	bool row_tokens;  /* rows are tokens: label them with the token labels */
	bool col_tokens;  /* columns are tokens (scores, weights) */
	bool row_kv;      /* the row tokens are X_kv's, the source's (cross-attention: X_kv, K, V) */
	bool col_kv;      /* the column tokens are X_kv's (cross-attention: S, P) */
	bool masked;      /* scores: show masked cells as -inf */
	char tag[48];     /* after the title when it fits whole, in head tag_head's colour
	                   * ("h1: rows 4-7" on W^O); "": none */
	int tag_head;
};

struct stage_view {
	int count;
	struct panel p[STAGE_PANELS_MAX];
	char formula[128];  /* "Q 6x16 = X 6x16 . W^Q 16x16" */
	char note[128];     /* a second line: GQA sharing, the mask, ... */
	const char *note_key; /* NULL, or an action id whose key takes the note's "%s" ("%s: show Q / K / V") */
};

/* The panels of stage s for head `head` and projection `proj` (both
 * clamped to the configuration). */
void stage_view(enum pipeline_stage s, const struct mha_config *c, int head, enum proj proj,
                struct stage_view *out);
/* Does layer `layer` of c show where order enters (PROJ_POS)? Layer 0
 * with PE added to X (sinusoidal, learned); every layer with RoPE. */
bool stage_pos_shown(const struct mha_config *c, int layer);
/* The same in layer `layer` of a stack (clamped to c->layers): its
 * projections read x_l, and Output adds the stream x_l+1 = x_l + Y. */
void stage_view_layer(enum pipeline_stage s, const struct mha_config *c, int layer, int head, enum proj proj,
                      struct stage_view *out);

#endif
