/*
 * draw.h - the whole screen as a function of the app's state (draw.c):
 * erase, draw the frame and what the current mode draws, leave the
 * refresh to the caller (the loop, or a test that reads the virtual
 * screen back); and the one text helper every view draws with.
 */
#ifndef DRAW_H
#define DRAW_H

#include <curses.h>

#include "app.h"
#include "hit.h"
#include "layout.h"

/* Draws on stdscr for a terminal of rows x cols, recording in hits
 * (cleared first; may be NULL) where each stage label, matrix, heatmap,
 * lesson menu and key hint was drawn. Returns the body layout used
 * (heat_per_page tells the loop how heatmaps page). */
struct body_layout draw_screen_hits(const struct app *app, int rows, int cols, struct hit_map *hits);

/* s at (y, x) in at most width columns with attribute a (nothing when
 * width <= 0); returns the columns used. */
int draw_put(int y, int x, int width, const char *s, attr_t a);

#endif
