/*
 * heat_strip.h - the per-head heatmaps under the matrices (heat_strip.c).
 */
#ifndef HEAT_STRIP_H
#define HEAT_STRIP_H

#include "app.h"
#include "hit.h"
#include "layout.h"
#include "mode.h"

/* The strip b->heat: a page of heads, the legend, the value under the
 * cursor; records each map's cells (HIT_HEAT) in hits (may be NULL). */
void heat_strip_draw(const struct app *app, const struct frame *f, const struct body_layout *b,
                     struct hit_map *hits);
/* Every head's weights P as the strip draws them, in r (another view's
 * spare rows): the widest cells at which all of them fit, the legend
 * under them; false, drawing nothing, when they do not all fit. */
bool heat_strip_weights_in(const struct app *app, const struct frame *f, struct rect r);
/* The action of the heatmap scale key: each head -> each row -> shared
 * (the scores' range over every head; weights 0..1) -> each head. */
unsigned heat_strip_scale_next(struct app *app, int arg, int key);

#endif
