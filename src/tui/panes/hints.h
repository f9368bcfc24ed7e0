/*
 * hints.h - key hints drawn from a key table (hints.c): the frame's last
 * line, and a view's second line of keys on its status line.
 */
#ifndef HINTS_H
#define HINTS_H

#include "app.h"
#include "hit.h"
#include "layout.h"
#include "mode.h"

/* The rows of table flagged with any of bar (ACTION_BAR_*), on line r
 * from column x: "keys name", two blanks apart, as many as fit whole;
 * each a HIT_KEY region (its first key). Returns the column after the
 * last one drawn. */
int hints_draw(const struct app *app, const struct action *table, unsigned bar, struct rect r, int x,
               struct hit_map *hits);
/* One hint that is no row of a table ("Esc back"): keys, words (may be
 * ""), the key a click presses. Returns the column right after it (x when
 * it does not fit). */
int hints_put(struct rect r, int x, const char *keys, const char *words, int key, struct hit_map *hits);

#endif
