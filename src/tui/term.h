/*
 * term.h - the terminal: opened with newterm (never initscr, which exits
 * the process on failure), closed with endwin on every path, restored even
 * on a crash; signals turned into a flag the main loop polls.
 */
#ifndef TERM_H
#define TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Checks that stdout is a terminal and TERM is usable, installs the signal
 * handlers, opens curses, picks the theme. 0, or -1 with msg (the terminal
 * untouched). */
int term_open(bool no_color, bool no_mouse, char *msg, size_t len);
/* endwin and free the screen; safe to call twice. */
void term_close(void);
/* 0, or the number of a SIGINT / SIGTERM / SIGHUP received. */
int term_signal(void);
/* Milliseconds on a monotonic clock. */
long long term_now_ms(void);

#endif
