/*
 * draw.h - the whole screen as a function of the app's state: erase, draw
 * every pane, leave the refresh to the caller (the loop, or a test that
 * reads the virtual screen back).
 */
#ifndef DRAW_H
#define DRAW_H

#include "app.h"
#include "hit.h"
#include "layout.h"

/* Draws on stdscr for a terminal of rows x cols. Returns the body layout
 * used (heat_per_page tells the loop how heatmaps page). */
struct body_layout draw_screen(const struct app *app, int rows, int cols);
/* The same, recording in hits (cleared first; may be NULL) where each
 * stage label, matrix, heatmap, lesson menu and key hint was drawn. */
struct body_layout draw_screen_hits(const struct app *app, int rows, int cols, struct hit_map *hits);

#endif
