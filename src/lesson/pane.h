/*
 * pane.h - the lesson's words as lines ready to draw: prose re-wrapped to
 * the pane's width (indented lines kept verbatim), the step's pane with its
 * question, goal status, hints and solution, and the lesson menu. The TUI
 * draws each line as it is, styled by its kind; it never wraps or composes
 * lesson text itself.
 *
 * Key placeholders: lesson text may write {key:ACTION} (ACTION one of
 * lesson_key_actions) where a key belongs, e.g. "press {key:hint} for a
 * hint". The TUI passes a lesson_key_fn that returns the key's name from its
 * key table ("h", "Enter"); without one, or when it returns NULL, the
 * placeholder reads as the action's fallback text ("[hint]").
 */
#ifndef PANE_H
#define PANE_H

#include <stdbool.h>

#include "lesson.h"
#include "progress.h"
#include "run.h"
#include "wrap.h"

/* The whole pane of the run's step: heading, prose, question and choices,
 * the goal's status (with a tick: "✓" when utf8, else "[x]"), the hints
 * shown so far, the solution once applied, and a keys line. The status is
 * the one from the last lesson_run_eval. Returns 0 or -1. */
int lesson_run_pane(const struct lesson_run *run, int width, lesson_key_fn *keys, const void *ctx,
                    bool utf8, struct lesson_text *out);

/* The lesson menu: line 0 a heading, line 1 + i lesson i of the set (its
 * number, a done mark, its title, exercises done), then a blank line and
 * the overall progress. Returns 0 or -1. */
int lesson_menu(const struct lesson_set *set, const struct progress *p, int width, bool utf8,
                struct lesson_text *out);

/* How much of lesson l is done per p: steps and exercises done (earned),
 * and exercises passed with the solution shown (not done). A lesson is
 * done when every step is. */
void lesson_progress_counts(const struct lesson *l, const struct progress *p, int *steps_done,
                            int *exercises_done, int *exercises_shown);
bool lesson_is_done(const struct lesson *l, const struct progress *p);

#endif
