/*
 * pane_view.h - the lesson pane on screen: the open step (its heading
 * pinned at the top, the goal's state pinned at the bottom, the text
 * between them scrolling), or the lesson menu. The words and their
 * wrapping come from the lesson library (pane.h); this only places and
 * styles its lines.
 */
#ifndef PANE_VIEW_H
#define PANE_VIEW_H

#include "app.h"
#include "hit.h"
#include "layout.h"

/* Draws within r; returns how far the step's text scrolls (0: it fits).
 * Records the menu's entries (HIT_MENU) or the step's text (HIT_PANE) in
 * hits (may be NULL). */
int pane_view_draw(const struct app *app, struct rect r, struct hit_map *hits);

/* The placeholder function lessons' {key:ACTION} calls: the key from the
 * action table (actions_key_name). */
const char *pane_view_key(const char *action, void *ctx);

#endif
