/*
 * lesson_pane.h - the lesson pane (lesson_pane.c): the open step in the
 * side pane (its heading pinned at the top, the goal's state pinned at the
 * bottom, the text between them scrolling with J / K), or the menu when no
 * lesson is open. The words and their wrapping come from the lesson
 * library (pane.h); this only places and styles its lines.
 */
#ifndef LESSON_PANE_H
#define LESSON_PANE_H

#include <curses.h>

#include "app.h"
#include "hit.h"
#include "layout.h"
#include "mode.h"
#include "pane.h"

/* Draws within r; returns how far the step's text scrolls (0: it fits).
 * Records the menu's entries (HIT_MENU) or the step's text (HIT_PANE) in
 * hits (may be NULL). Without the lessons (the workbench's own tests), a
 * note of how to open one. */
int lesson_pane_draw(const struct app *app, const struct frame *f, struct rect r, struct hit_map *hits);

/* The open step's pane text at width into t (nothing with no step
 * open): what lesson_pane_draw draws when its width is the same. 0, or
 * -1 when out of memory. */
int lesson_pane_text(const struct app *app, int width, struct lesson_text *t);
/* The rows the step's pane text t wants: its heading, the parts that stay
 * at the bottom while its goal is open (the question, the answer and its
 * feedback, the goal) and five more for the text that scrolls (a blank
 * line, three lines of it, the "more" line); or all its lines when fewer.
 * 0 for no text. */
int lesson_pane_rows_wanted(const struct app *app, const struct lesson_text *t);
/* Leave lines out of t until it has at most rows, the least read first:
 * the lines of keys (the hint line names them), the lesson's title, then
 * blank lines from the end up. Returns the count left (more than rows
 * when only the words are left). For the reading layout (frame.c). */
int lesson_pane_squeeze(struct lesson_text *t, int rows);

/* The style of a line of lesson text, by its kind. */
attr_t lesson_pane_attr(enum lesson_line_kind k);

#endif
