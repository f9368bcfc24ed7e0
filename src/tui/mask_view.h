/*
 * mask_view.h - the mask view (P): which keys each query sees, and why
 * not; padding, the sliding window and cell-by-cell edits (mask_view.c).
 */
#ifndef MASK_VIEW_H
#define MASK_VIEW_H

#include "app.h"

/* P: open the view, or close it. */
unsigned mask_view_toggle(struct app *app, int arg, int key);

extern const struct mode_ops mask_view_mode;

#endif
