/*
 * train_view.h - the training screen (a screen mode, mode.h): a tiny
 * attention model learning a toy task live (src/train), its loss and
 * accuracy as sparklines, each head's pattern scores and gradient norm,
 * and the shown layer's attention on a fixed probe as heatmaps.
 */
#ifndef TRAIN_VIEW_H
#define TRAIN_VIEW_H

#include <stdbool.h>

#include "app.h"

/* Open the training screen (the action 'G'); the model is made the first
 * time, the induction task by default. Returns APP_* flags. */
unsigned train_view_open(struct app *app, int arg, int key);
/* Run training steps for a slice of time when it is running: the loop
 * calls it when no key came (mode idle). true: redraw. */
bool train_view_idle(struct app *app);
void train_view_free(struct app *app);

#endif
