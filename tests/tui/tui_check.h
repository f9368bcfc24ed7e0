/*
 * tui_check.h - helpers shared by the workbench's tests: an app on the
 * default configuration, and keys typed into it.
 */
#ifndef TUI_CHECK_H
#define TUI_CHECK_H

#include "app.h"
#include "lesson.h"

/* The default workbench (fails the test when it cannot be made), with the
 * lessons of set attached when set is not NULL (progress in memory only). */
struct app *tui_check_open(const struct lesson_set *set);
void tui_check_close(struct app *app);
/* Each character as a key ('\n' as Enter), recomputing when told; returns
 * the flags of them all. */
unsigned tui_check_keys(struct app *app, const char *s);

#endif
