/*
 * analysis_view.h - the head analysis view (A): pattern scores, importance
 * and the prune curve of the workbench's heads (analysis_view.c).
 */
#ifndef ANALYSIS_VIEW_H
#define ANALYSIS_VIEW_H

#include "app.h"

/* A: open the view, or close it (an action's function). */
unsigned analysis_view_toggle(struct app *app, int arg, int key);

extern const struct mode_ops analysis_view_mode;

#endif
