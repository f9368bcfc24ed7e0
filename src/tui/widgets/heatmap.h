/*
 * heatmap.h - one matrix drawn as a grid of coloured, glyph-filled cells
 * with token labels on both axes (heatmap.c); a legend (heatmap_legend.c);
 * and how many fit in a pane (heatmap.c).
 *
 * Layout of one heatmap at (y, x), label column L wide (L = cell_w; 1 at
 * cell_w 1), each cell cell_w wide:
 *   y      title (truncated to the width)
 *   y+1    L spaces, then one column label per cell
 *   y+2..  row label (L-1 chars + space), then the cells of that row
 * so heatmap_measure gives rows + 2 lines and L + cols * cell_w columns
 * (rows * row_h + 2 lines when each row is row_h lines tall).
 * The widgets never call refresh: the caller does.
 */
#ifndef HEATMAP_H
#define HEATMAP_H

#include <stdbool.h>

#include <curses.h>

#include "mha.h"

enum { HEATMAP_CELL_W_MIN = 1, HEATMAP_CELL_W_MAX = 8, HEATMAP_ROW_H_MAX = 3 };

/* Which values set a cell's shade. */
enum heatmap_scale {
	HEATMAP_SCALE_FIXED, /* lo..hi as given (e.g. one range shared by every head) */
	HEATMAP_SCALE_MAP,   /* the map's own range: each head on its own, so an edit
	                      * to one head never restyles another */
	HEATMAP_SCALE_ROW,   /* each row's own range: softmax is taken per row, so
	                      * this shows which key each query prefers */
	HEATMAP_SCALE_COUNT
};

struct heatmap {
	const float *m;               /* (rows, cols) row-major */
	int rows, cols;
	float lo, hi;                 /* colour scale (softmax weights: 0..1; scores: the row range of all heads) */
	const char (*labels)[MHA_LABEL_MAX]; /* token labels: the rows' (queries'), and the columns'
	                               * unless col_labels (may be NULL: numbers) */
	const char *title;            /* "head 1 -> kv 0" */
	int cur_row, cur_col;         /* cursor cell, or -1 */
	bool off;                     /* head switched off: drawn dim, title says "off" */
	attr_t title_attr;            /* title attributes, e.g. theme_head_attr(i); 0: ROLE_TITLE */
	const unsigned char *hidden;  /* (rows, cols) non-zero: the cell shows "?" (a lesson's
	                               * "predict, then reveal"); NULL: none */
	const char *short_title;      /* "h1>kv0": drawn when the title does not fit; NULL: none */
	enum heatmap_scale scale;     /* FIXED (0): lo, hi above; MAP / ROW: computed here */
	const unsigned char *masked;  /* (rows, cols) non-zero: masked (a -inf score, a weight
	                               * the mask zeroed), drawn with theme_masked_glyph and left
	                               * out of the range; NULL: only -inf cells are masked */
	float min_span;               /* MAP / ROW: a range narrower than this is widened to it
	                               * (0: none), so near-equal values stay near one shade
	                               * instead of being stretched over the whole ramp */
	int row_h;                    /* lines per row (0 counts as 1, at most HEATMAP_ROW_H_MAX):
	                               * more on a large terminal, so that a cell is nearer square
	                               * than 8 columns by one line; label and value on its middle
	                               * line (the first of 2), the shade on all */
	const char (*col_labels)[MHA_LABEL_MAX]; /* the columns' (keys') when they are another
	                               * sequence's (cross-attention: rows != cols); NULL: labels */
};

/* What the legend explains (heatmap_key_draw). */
struct heatmap_key {
	float lo, hi;                 /* the range, shown at HEATMAP_SCALE_FIXED */
	enum heatmap_scale scale;
	bool masked;                  /* some cell shows the masked mark: say what it means */
	bool axes;                    /* say that rows are queries and columns keys */
	bool cross;                   /*   from two sequences: X's queries, X_kv's keys */
};

struct heatmap_size { int rows, cols; }; /* screen cells needed */

/* The row-label column's width L at cell_w: the cells start L columns
 * right of x, two lines below y (where a click meets them). */
int heatmap_label_width(int cell_w);
/* cell_w is clamped to HEATMAP_CELL_W_MIN..HEATMAP_CELL_W_MAX; rows
 * count hm->row_h lines each. */
struct heatmap_size heatmap_measure(const struct heatmap *hm, int cell_w);
/* hm->row_h as drawn: 1..HEATMAP_ROW_H_MAX. */
int heatmap_row_h(const struct heatmap *hm);
/* At cell_w >= 5 each cell also shows its value (".42", "-1.3"); in a map
 * with negative values every value keeps a sign column, so +x and -x take
 * the same room and the same number of glyphs. A NaN or +inf value is
 * drawn as "!" in ROLE_ERROR, never "nan"; -inf is a masked cell. The
 * cursor cell keeps its colour and glyph, underlined (its last line), between
 * brackets in the spaces beside it; its row and column labels are in reverse video.
 * Token labels take the same width on both axes (as much of the word as
 * fits); a word that occurs twice carries its index ("the\u2084", ASCII
 * "the4"), or is only its index (subscript "\u2084" in UTF-8) when one
 * column is all there is. */
void heatmap_draw(WINDOW *win, int y, int x, const struct heatmap *hm, int cell_w);
/* A horizontal legend on one line: lo value, the ramp, hi value, within
 * width. The values are never cut (exponent form for huge ones, "!" for
 * non-finite ones): a narrow legend shows fewer ramp cells, and below 2 of
 * them the ramp alone. */
void heatmap_legend_draw(WINDOW *win, int y, int x, int width, float lo, float hi);
/* The columns the legend takes at its widest (two ramp cells a level). */
int heatmap_legend_width(float lo, float hi);
/* The range that shades row r of the map (r < 0: the whole map) under its
 * scale: finite, unmasked values only; lo = 0 when none is negative (a
 * weight of 0 stays blank); then never narrower than hm->min_span (with
 * lo = 0: hi = max(hi, min_span); else widened about its middle). FIXED
 * returns hm->lo, hm->hi. */
void heatmap_range(const struct heatmap *hm, int r, float *lo, float *hi);
/* The scale's name as the legend says it: "all heads", "each head", "each row". */
const char *heatmap_scale_name(enum heatmap_scale s);
/* The legend with what it explains: "lo <ramp> hi" at a fixed scale, else
 * "low <ramp> high, each head" (or each row); then "x masked" when asked;
 * then "rows: queries, columns: keys" (or "rows=q cols=k") when asked and
 * it fits. Parts that do not fit whole are left out, last first; the ramp
 * shrinks before the scale's name goes. Returns the columns drawn. */
int heatmap_key_draw(WINDOW *win, int y, int x, int width, const struct heatmap_key *k);
/* The columns the key needs for its bounds, a ramp of one cell a level
 * and, when k->masked, the masked mark's meaning: what a caller leaves it
 * before anything else shares its line. */
int heatmap_key_min_width(const struct heatmap_key *k);
/* How many heatmaps of shape (rows, cols) fit in (height, width), one
 * column of gap between them; *per_row (may be NULL) gets how many sit side
 * by side. 0 when not even one fits. Paging: page p of total t shows maps
 * p*fit .. min(t, (p+1)*fit) - 1. */
int heatmap_fit(int rows, int cols, int height, int width, int cell_w, int *per_row);
/* Pages needed to show count heatmaps, fit per page: ceil(count / fit);
 * 0 when fit <= 0 (nothing fits: the caller says the pane is too small). */
int heatmap_pages(int count, int fit);
/* The widest cell_w (HEATMAP_CELL_W_MAX down to HEATMAP_CELL_W_MIN) at which
 * all count heatmaps fit at once; HEATMAP_CELL_W_MIN when none does (page). */
int heatmap_pick_cell_w(int rows, int cols, int height, int width, int count);

/* Token i's label (of count tokens) in at most w columns, as the
 * heatmaps write it on both axes and the matrices beside them: as much of
 * the word as fits, a repeated word told apart by its index ("the\u2080",
 * "the\u2084"; "the0" in ASCII), the index when there are no labels. */
void heatmap_token_label(char *buf, size_t len, const char (*labels)[MHA_LABEL_MAX], int count, int i, int w);

#endif
