/*
 * term.h - the terminal: opened with newterm (never initscr, which exits
 * the process on failure), closed with endwin on every path, restored even
 * on a crash; signals turned into a flag the main loop polls.
 */
#ifndef TERM_H
#define TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Would term_open take this terminal: stdin and stdout terminals, TERM
 * set, known and able to move the cursor? 0, or -1 with msg; nothing
 * opened, nothing changed. */
int term_check(char *msg, size_t len);
/* Checks that stdout is a terminal and TERM is usable, installs the signal
 * handlers, opens curses, picks the theme. 0, or -1 with msg (the terminal
 * untouched). */
int term_open(bool no_color, bool no_mouse, char *msg, size_t len);
/* endwin and free the screen; safe to call twice. */
void term_close(void);
/* 0, or the number of a signal received that asks the program to stop
 * (INT, QUIT, TERM, HUP, USR1/2, ALRM, XCPU, ...: term.c lists them). */
int term_signal(void);
/* On a crash signal, after the terminal is restored: hook(ctx) runs in a
 * forked child (default signal handlers, a 20 s alarm); when it returns 0
 * (written), note is printed on the restored terminal; above 0, nothing
 * to write, nothing said; below 0 (or the child died), a line says the
 * edits could not be autosaved. hook NULL: none. */
void term_on_crash(int (*hook)(void *), void *ctx, const char *note);
/* A new note for the crash hook (the autosave it writes moved: a save
 * went beside a file changed behind the run); crash signals are held off
 * while it is copied, so a crash prints the old note or the new, whole. */
void term_crash_note(const char *note);
/* For a child forked while the terminal is open (the autosave writer):
 * requests to stop ignored (the parent acts on them, the child finishes),
 * crash, Ctrl-Z and resize handling back to the defaults, so the child
 * never touches the learner's terminal. */
void term_child_signals(void);
/* Call in the loop: after Ctrl-Z and fg, the modes ncurses does not
 * restore by itself (bracketed paste, each mouse mode on its own) are
 * asked for again. Nothing otherwise. */
void term_resume(void);
/* Milliseconds on a monotonic clock. */
long long term_now_ms(void);

#endif
