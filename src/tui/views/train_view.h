/*
 * train_view.h - the training screen (a screen mode: train_mode, modes.h),
 * for the tests: its state as it is (NULL until it was first opened).
 * The state itself is train_view_int.h's.
 */
#ifndef TRAIN_VIEW_H
#define TRAIN_VIEW_H

#include "app.h"

struct train_view;
const struct train_view *train_view_now(const struct app *app);

#endif
