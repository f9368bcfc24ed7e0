/*
 * panels.h - the stage's matrices on the workbench (panels.c).
 */
#ifndef PANELS_H
#define PANELS_H

#include "app.h"
#include "hit.h"
#include "layout.h"

enum { PANELS_LABEL_W = 5 }; /* row labels: 4 characters and a space */

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
/* Where panels_draw puts each panel of v in area (got[i].h = 0: left
 * out); returns how many are placed. */
int panels_place(const struct app *app, const struct stage_view *v, struct rect area, int cw, struct rect *got);
/* The panels of v in area at cell width cw, recording their cells in hits (may be NULL). */
void panels_draw(const struct app *app, const struct stage_view *v, struct rect area, int cw,
                 struct hit_map *hits);

#endif
