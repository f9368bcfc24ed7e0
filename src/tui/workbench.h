/*
 * workbench.h - the workbench mode (workbench.c): the stage screens, with
 * the action table holding the keys. Its matrices are drawn by panels.c,
 * its heatmaps by heat_view.c; what else it exports, the prompts and the
 * lesson pane use.
 */
#ifndef WORKBENCH_H
#define WORKBENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* Editing needs an input cell: true on one; else false, and the status
 * line says where the inputs are. */
bool workbench_cursor_editable(struct app *app);

/* A row or column label: the token's label (at most width characters)
 * when tokens, else the index. */
void workbench_label(const struct app *app, bool tokens, int i, char *buf, size_t len, int width);

/* The mouse (the KEY_MOUSE row of the action table): what the last
 * drawing put under the pointer (app->mouse), acted on. */
unsigned workbench_mouse(struct app *app);

#endif
