/*
 * counts_panel.h - the counts panel: parameters of W^Q, W^K, W^V, W^O and
 * total; FLOPs of each stage and total; KV-cache values per token; ratio of
 * total compute to one head of full dimension (x1.00 when h*dk = d_model,
 * whatever h is). Numbers with thousands separators (1,048,576), or k/M/G
 * suffixes when narrow. Every figure comes from mha_counts().
 */
#ifndef COUNTS_PANEL_H
#define COUNTS_PANEL_H

#include <curses.h>

#include "mha.h"

/* Lines the panel's full form needs at that width. */
int counts_panel_height(int width);
/* Draws within (height, width) at (y, x). Shorter than counts_panel_height:
 * the compact form, totals first with their parts indented below them
 * ("Parameters", " W^Q", ..., "FLOPs", " Projection", ..., "KV/token",
 * the ratio: each weight named as the tensors name it, each stage as the
 * pipeline labels it), keeping the `height` most important lines: the
 * parameter total, the FLOP total, KV/token and the ratio go last (they
 * need 4 lines). */
void counts_panel_draw(WINDOW *win, int y, int x, int height, int width, const struct mha_config *c);

#endif
