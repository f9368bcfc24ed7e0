/*
 * vscreen.h - a curses screen with no terminal behind it (newterm on
 * /dev/null) at a fixed size: what the screen tests and the UI benchmark
 * draw into, then read back as text.
 */
#ifndef VSCREEN_H
#define VSCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Opens the screen at rows x cols with terminal type xterm-256color (or
 * term), picks the theme; LINES / COLUMNS are unset so they cannot pin the
 * size. 0, or -1 when newterm fails. */
int vscreen_open(int rows, int cols, const char *term, bool no_color);
/* Change the size (as a terminal resize would). */
void vscreen_resize(int rows, int cols);
void vscreen_close(void);
/* The whole screen as text, one line per row with trailing spaces cut, '\n'
 * after each; returns the length written (at most len - 1). */
size_t vscreen_text(char *out, size_t len);
/* The current screen (stdscr: a vscreen, or the real one) as vscreen_text
 * gives it, written to f; 0, or -1. */
int vscreen_write(FILE *f);

#endif
