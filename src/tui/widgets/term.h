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
 * forked child (default signal handlers, a 20 s alarm) and writes what
 * edits it can. It answers with bit i set for each file i it wrote (term.h
 * prints note i for it: TERM_CRASH_NOTES files at most, the session's
 * autosave and a lesson's), TERM_CRASH_LOST when some edits could not be
 * written (or the child died: a line then says so), 0 when nothing was
 * owed (nothing said). hook NULL: none. */
enum { TERM_CRASH_NOTES = 2, TERM_CRASH_LOST = 16 };
void term_on_crash(int (*hook)(void *), void *ctx);
/* Note which (0 or 1), printed when the crash hook wrote its file: set
 * again whenever that file moves (a save went beside a file changed
 * behind the run, a lesson step opened); crash signals are held off while
 * it is copied, so a crash prints the old note or the new, whole. */
void term_crash_note(int which, const char *note);
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
