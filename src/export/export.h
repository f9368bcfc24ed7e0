/*
 * export.h - headless exports of one computation (mha-tui --export FORMAT
 * FILE): a numpy script that proves every number, and SVG heatmaps for
 * slides and papers. The screen as text (txt) belongs to the TUI.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdio.h>

#include "mha.h"

/* A standalone Python script holding the inputs and every intermediate
 * mha-tui computed, every layer's (layers[0 .. count): a finished
 * forward's, mha_stack's layer array or one mha_acts); run with
 * numpy, it recomputes each stage in float64 from the inputs (positions,
 * RoPE, cross-attention and the residual stream included), prints one line
 * per stage ("L1 Scores" in a stack), and exits 1 unless each matches to
 * 1e-5 relative. Returns 0, or -1 on a write error. */
int export_py(FILE *f, const struct mha_config *c, const struct mha_weights *w,
              const struct mha_acts *layers, int count);

/* The per-head heatmaps of one stage (MHA_T_SCORES or MHA_T_WEIGHTS) as
 * an SVG document: token labels on both axes (queries down, keys across:
 * the source's tokens with cross-attention; layer 0 of a stack),
 * each head titled, the scale's legend, masked cells and padding tokens
 * marked. Returns 0, or -1 on a write error. */
int export_svg(FILE *f, const struct mha_config *c, const struct mha_weights *w,
               const struct mha_acts *a, enum mha_tensor stage);

#endif
