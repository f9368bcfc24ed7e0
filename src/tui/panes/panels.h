/*
 * panels.h - the stage's matrices on the workbench as a set: sizes, focus,
 * placing and drawing (panels.c; one panel: matrix_panel.h).
 */
#ifndef PANELS_H
#define PANELS_H

#include "app.h"
#include "hit.h"
#include "layout.h"
#include "mode.h"

enum {
	PANELS_LABEL_W = 5,   /* row labels: 4 characters and a space */
	PANELS_NARROW_CW = 5, /* a narrower cell: 4-character numbers ("0.31") */
	PANELS_READABLE_COLS = 3, /* columns a matrix shows before it reads as more than a sliver */
};

/* Cell width, separator included: 6 (5-character numbers, "-0.56") on 80
 * columns; on wide terminals 7 ("-0.556") when every matrix still shows
 * all its columns and the shelves stay as few. */
int panels_cell_width(const struct stage_view *v, int width, int cols);
/* Rows the stage's matrices use at cell width cw in width columns. */
int panels_rows(const struct app *app, const struct stage_view *v, int width, int cw);
/* The matrix whose rows come first and the rows it must show: in a
 * lesson the step's matrix (the cursor's panel; *rows: all when it has at
 * most 8, else 6), in the free workbench what the stage computes (its
 * last panel: Q, S, P, O, Concat, Y; *rows: up to 4). -1 when none. */
int panels_focus(const struct app *app, const struct stage_view *v, int *rows);
/* In a lesson, whether the step's text names panel i's matrix (as a
 * word, in its prose, question or choices: "row i of Q", "Y[3,0]"); never
 * in a step about the heatmaps (its
 * text says "heatmap"), or with no step open. */
bool panels_step_names(const struct app *app, const struct stage_view *v, int i);
/* The rows the matrices the step names, besides its focus, want: a gap,
 * title, header and up to 3 rows each. */
int panels_named_rows(const struct app *app, const struct stage_view *v);
/* The cell width of each panel of v in width columns, into cws: cw, but
 * PANELS_NARROW_CW for the focus (panels_focus) when it is a matrix of
 * weights (P, every value in [0, 1]) too wide at cw. Such a focus is
 * placed whole, the others taking what is left. Returns the focus (-1:
 * none). */
int panels_cell_widths(const struct app *app, const struct stage_view *v, int width, int cw, int *cws);
/* The columns of p shown in got at cell width cw (0: not drawn). */
int panels_cols_shown(const struct panel *p, struct rect got, int cw);
/* The columns the widest of the stage's matrices wants whole (row labels,
 * cells, the softmax row stats) at cell width cw in width columns. */
int panels_widest(const struct app *app, const struct stage_view *v, int width, int cw);
/* Where panels_draw puts each panel of v in area (got[i].h = 0: left
 * out); returns how many are placed. */
int panels_place(const struct app *app, const struct stage_view *v, struct rect area, int cw, struct rect *got);
/* The panels of the frame's stage view in area at cell width cw, the
 * trace from its cursor's cell, recording their cells in hits (may be
 * NULL). */
void panels_draw(const struct app *app, const struct frame *f, struct rect area, int cw, struct hit_map *hits);

#endif
