/*
 * frame.h - the whole screen as a function of the app's state (frame.c):
 * erase, draw the frame and what the current mode draws, leave the
 * refresh to the caller (the loop, or a test that reads the virtual
 * screen back).
 */
#ifndef FRAME_H
#define FRAME_H

#include "app.h"
#include "hit.h"
#include "layout.h"

/* Draws on stdscr for a terminal of rows x cols, recording in hits
 * (cleared first; may be NULL) where each stage label, matrix, heatmap,
 * lesson menu and key hint was drawn. Returns the body layout used
 * (heat_per_page tells the loop how heatmaps page). */
struct body_layout frame_draw(const struct app *app, int rows, int cols, struct hit_map *hits);

#endif
