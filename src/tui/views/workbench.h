/*
 * workbench.h - what the workbench's files share (the workbench mode is
 * workbench_mode, its drawing and mouse workbench.c; its key table
 * workbench_keys.c; its export key workbench_export.c). Not for other
 * views: each view reaches the workbench only through the app and the
 * action ids (mode.h).
 */
#ifndef WORKBENCH_H
#define WORKBENCH_H

#include "app.h"
#include "mode.h"

/* The workbench's keys (workbench_keys.c). */
extern const struct action workbench_keys[];

/* The mouse (the KEY_MOUSE row): what the last drawing put under the
 * pointer (app->mouse), acted on (workbench.c). */
unsigned workbench_mouse(struct app *app);

/* E: the numpy script, the SVG and the screen's text of what is on screen,
 * beside the session file (workbench_export.c), under these names. */
#define WORKBENCH_EXPORT_PY "mha-tui-export.py"
#define WORKBENCH_EXPORT_SVG "mha-tui-export.svg"
#define WORKBENCH_EXPORT_TXT "mha-tui-export.txt"
unsigned workbench_export(struct app *app, int arg, int key);

#endif
