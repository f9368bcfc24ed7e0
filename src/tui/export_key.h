/*
 * export_key.h - E in the workbench: the numpy script and the SVG of what
 * is on screen, written beside the session file (export_key.c).
 */
#ifndef EXPORT_KEY_H
#define EXPORT_KEY_H

#include "app.h"

/* The files e writes, in the session file's directory (else the current one). */
#define EXPORT_KEY_PY "mha-tui-export.py"
#define EXPORT_KEY_SVG "mha-tui-export.svg"

/* E: write both, and say where (or why not) on the status line. */
unsigned export_key_run(struct app *app, int arg, int key);

#endif
