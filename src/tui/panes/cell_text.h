/*
 * cell_text.h - a cell as the learner reads it on the workbench, in the
 * one notation (src/core/notation.h), with the app's token labels and
 * the terminal's UTF-8 or ASCII form, fitted to a width (cell_text.c).
 * Every screen that names a cell (the status line, the value prompt, the
 * heatmap's readout, a click on a heatmap) asks here: none builds the
 * text by hand.
 */
#ifndef CELL_TEXT_H
#define CELL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* "P₀[2,0]", or with labels "P₀[2 sat, 0 the]" ("P_0[2 sat, 0 the]" in
 * ASCII). Returns buf. */
char *cell_text_name(const struct app *app, const struct cell *c, bool labels, char *buf, size_t len);
/* The cell c of Y named as head `head`'s write into it, "C₁[2 sat,3]". */
char *cell_text_write_name(const struct app *app, const struct cell *c, int head, bool labels, char *buf,
                           size_t len);

/* The status line for the cursor's cell c (panel p) in at most width
 * display columns: "P₀[2 sat, 0 the] = 0.351733685   from S₀[2,*]" and,
 * on an input, the keys that edit it. What does not fit goes whole, in
 * this order: the token labels, the keys, the cells it was computed from
 * (last first), then digits of the value; a number is never cut. */
void cell_text_status(const struct app *app, const struct cell *c, const struct panel *p, int width, char *buf,
                      size_t len);

/* "P₀[2 sat, 0 the]=0.351733685" for the value v of cell c ("?" when
 * hidden) in at most width columns: with labels when asked and they fit,
 * else without; then fewer digits, down to min_digits significant
 * (3..9). Returns its width in columns, or -1 (and "") when even that
 * does not fit. */
int cell_text_value(const struct app *app, const struct cell *c, float v, bool hidden, bool labels, int width,
                    int min_digits, char *buf, size_t len);

#endif
