/*
 * tui_check.h - helpers shared by the workbench's tests: an app on the
 * default configuration, and keys typed into it.
 */
#ifndef TUI_CHECK_H
#define TUI_CHECK_H

#include "app.h"
#include "layout.h"
#include "lesson.h"

/* The default configuration, and w allocated with its seeded weights and
 * labels (as a fresh workbench starts). */
struct mha_config tui_check_default_weights(struct mha_weights *w);

/* The default workbench (fails the test when it cannot be made), with the
 * lessons of set attached when set is not NULL (progress in memory only). */
struct app *tui_check_open(const struct lesson_set *set);
void tui_check_close(struct app *app);
/* Each character as a key ('\n' as Enter), recomputing when told; returns
 * the flags of them all. */
unsigned tui_check_keys(struct app *app, const char *s);
/* The default configuration with these shapes (not checked). */
struct mha_config tui_check_config(int n, int d, int h, int g, int dk);
/* Group set-up and teardown for the lesson tests: the shipped lessons
 * into set, and dir (a mkdtemp template) made; then both undone, dir
 * removed with what is in it. 0, or -1 with the reason on stderr. */
int tui_check_lessons_open(struct lesson_set *set, char *dir);
int tui_check_lessons_close(struct lesson_set *set, const char *dir);
/* A set of one lesson: text written to dir/NAME/01-NAME.lesson and
 * loaded into set (the test fails when it does not load cleanly). */
void tui_check_one_lesson(struct lesson_set *set, const char *dir, const char *name, const char *text);

/* The whole screen drawn for rows x cols with no hit regions kept
 * (draw_screen_hits(app, rows, cols, NULL)): the tests' and the
 * benchmark's drawing, which the program itself never needs. */
struct body_layout draw_screen(const struct app *app, int rows, int cols);

#endif
