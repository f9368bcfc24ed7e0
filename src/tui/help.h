/*
 * help.h - the help overlay (help.c), a flag over the current mode
 * (app->help_open; ? toggles it, a row of the workbench's table).
 */
#ifndef HELP_H
#define HELP_H

#include "app.h"
#include "wrap.h"

/* A key while it is open: Up/Down/PgUp/PgDn (and the wheel) scroll, q
 * quits, any other key closes it. APP_* flags. */
unsigned help_key(struct app *app, int key);
/* Over the body of a rows x cols screen (lines 1 .. rows - 3). */
void help_draw(const struct app *app, int rows, int cols);
/* The keys the overlay lists at text width textw: the view it is opened
 * over (a prompt has no help: every key types), then the workbench's
 * groups; a group's name as a title line, then " KEYS        help" lines.
 * 0, or -1 when out of memory. */
int help_lines(const struct app *app, int textw, struct lesson_text *out);

#endif
