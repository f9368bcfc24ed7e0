/*
 * help.h - the help overlay (help.c), a flag over the current mode.
 */
#ifndef HELP_H
#define HELP_H

#include "app.h"

/* ?: open or close it. APP_* flags. */
unsigned help_toggle(struct app *app);
/* A key while it is open: Up/Down/PgUp/PgDn (and the wheel) scroll, q
 * quits, any other key closes it. APP_* flags. */
unsigned help_key(struct app *app, int key);
/* Over the body of a rows x cols screen (lines 1 .. rows - 3). */
void help_draw(const struct app *app, int rows, int cols);

#endif
