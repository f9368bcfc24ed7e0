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

/* The display columns of s (up to 512). */
int draw_width(const char *s);

/* s whole when it fits in width columns; else its short form, the
 * longest start that ends before a clause ("  ", ", ", ": ", "; ", " (")
 * and fits ("mask none, top-k off, scale 1" -> "mask none, top-k off");
 * else nothing. Never a cut word or number. Into out; returns its
 * columns (0: nothing fits). */
int draw_short(char *out, size_t len, const char *s, int width);

/* draw_put of draw_short's form of s; returns the columns used. */
int draw_fit(int y, int x, int width, const char *s, attr_t a);

/* A message (the status line's): s whole when it fits; else its short
 * form (draw_short, or the words that fit when no clause does) and an
 * ellipsis saying there is more (a lesson's feedback is whole in the
 * pane). Returns the columns used. */
int draw_message(int y, int x, int width, const char *s, attr_t a);

#endif
