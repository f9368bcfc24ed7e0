/*
 * marks.h - which cells the last edit changed (marks.c).
 */
#ifndef MARKS_H
#define MARKS_H

#include <stdbool.h>

#include "mha.h"

struct app;

/* Copy every tensor aside before an edit, so that the cells it changes
 * are marked for APP_CHANGED_MS after the recompute. */
void app_snapshot(struct app *app);
/* Was this cell changed by the last edit (and is the mark still shown)? */
bool app_cell_changed(const struct app *app, enum mha_tensor t, int m, int r, int c);

#endif
