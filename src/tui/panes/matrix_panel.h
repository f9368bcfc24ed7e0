/*
 * matrix_panel.h - one matrix of the stage on the workbench, drawn
 * (matrix_panel.c); panels.h places the stage's matrices and calls it.
 */
#ifndef MATRIX_PANEL_H
#define MATRIX_PANEL_H

#include <stdbool.h>

#include "app.h"
#include "hit.h"
#include "layout.h"
#include "stage.h"

/* What drawing one panel needs besides its rectangle. */
struct matrix_panel {
	const struct app *app;
	const struct panel *p;
	bool has_cursor;      /* the cursor is in this panel */
	bool have_target;     /* the cursor's cell, for the trace */
	struct cell target;
	int cw;               /* cell width, separator included */
	int index;            /* the panel's index in the stage view */
	struct hit_map *hits; /* where its cells go (NULL: not recorded) */
};

/* Panel k->p in rc: title (with the rows and columns shown when it is
 * cut), column header, row labels and cells, the softmax row stats;
 * scrolled so the cursor (or the cells it depends on) is in view; its
 * cells recorded in k->hits. */
void matrix_panel_draw(const struct matrix_panel *k, struct rect rc);

#endif
