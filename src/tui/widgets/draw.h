/*
 * draw.h - the text helpers every view draws with (draw.c): on stdscr, in
 * display columns, never cutting a word or a number where a short form
 * exists. No app: the whole screen is frame.h's.
 */
#ifndef DRAW_H
#define DRAW_H

#include <curses.h>
#include <stddef.h>

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
