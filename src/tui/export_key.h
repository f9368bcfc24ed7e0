/*
 * export_key.h - E in the workbench: the numpy script and the SVG of what
 * is on screen, written beside the session file (export_key.c).
 */
#ifndef EXPORT_KEY_H
#define EXPORT_KEY_H

#include <stdio.h>

#include "app.h"

/* The files e writes, in the session file's directory (else the current one). */
#define EXPORT_KEY_PY "mha-tui-export.py"
#define EXPORT_KEY_SVG "mha-tui-export.svg"
#define EXPORT_KEY_TXT "mha-tui-export.txt"

/* E: write both, and say where (or why not) on the status line. */
unsigned export_key_run(struct app *app, int arg, int key);

/* The current curses screen (stdscr) as plain UTF-8 text into f, a line a
 * row, trailing spaces cut; 0 or -1. */
int export_key_text(FILE *f);

/* mha-tui --export txt: the workbench with cfg and w (ownership of w
 * passes here, freed in every case) drawn at rows x cols on a screen with
 * no terminal, focused on stage (a pipeline_stage, or -1 for the
 * workbench's default), written to f as export_key_text does. 0, or -1
 * with msg. */
int export_key_headless(FILE *f, const struct mha_config *cfg, struct mha_weights *w, int stage,
                        int rows, int cols, char *msg, size_t len);

#endif
