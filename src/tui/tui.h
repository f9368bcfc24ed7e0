/*
 * tui.h - the interactive workbench: run it (tui.c). src/tui is the only
 * library that includes curses.h.
 */
#ifndef TUI_H
#define TUI_H

#include <stdbool.h>

#include "mha.h"

struct tui_options {
	struct mha_config cfg;    /* configuration to open with (valid) */
	bool config_given;        /* cfg came from flags: start fresh with it */
	const char *load;         /* session file to open, or NULL */
	const char *session_path; /* where w and q save (the --load file, else the state dir) */
	bool no_color;            /* --no-color, or NO_COLOR set */
	bool no_mouse;            /* --no-mouse: leave the mouse to the terminal (text selection) */
	const char *lesson;       /* --lesson ID, or NULL */
	bool model;               /* --text: open on the sentence through the language model (W) */
	const char *lm_model;     /* --model FILE: the language model W opens, or NULL: the shipped one */
	const char *lessons_dir;  /* --lessons-dir, or NULL */
	const char *held;         /* the session another mha-tui has open (this run saves elsewhere), or NULL */
	int holder;               /*   its pid, 0 when unknown */
};

/* Could the workbench start on this terminal (stdin and stdout terminals,
 * a usable TERM)? 0, or -1 with a message saying why not and what to use
 * instead. Checked before anything is written for the run. */
int tui_check_terminal(char *msg, size_t len);

/* Run until the learner quits. The terminal is restored before return.
 * Returns the process exit status (0, or 1 with a message on stderr). */
int tui_run(const struct tui_options *o);

#endif
