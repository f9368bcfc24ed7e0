/*
 * nav.h - where the learner goes: resuming at start-up, and recording
 * progress as they move. Small decisions the TUI would otherwise make on
 * its own, kept here so that they are tested without a terminal.
 */
#ifndef NAV_H
#define NAV_H

#include <stdbool.h>

#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson.h"
#include "progress.h"

enum lesson_resume {
	LESSON_RESUME_MENU,   /* first run, or the saved place no longer exists: show the menu */
	LESSON_RESUME_LESSON, /* open *lesson at *step (lesson_run_start with force) */
	LESSON_RESUME_FREE,   /* the learner was in the free workbench; *lesson, *step say where to come back */
};

/* What `mha-tui` with no arguments opens. *lesson and *step are indices
 * into set and its lesson, valid unless LESSON_RESUME_MENU. */
enum lesson_resume lesson_resume(const struct lesson_set *set, const struct progress *p,
                                 int *lesson, int *step);

/* Record the run in p: its place (in the lesson, or left for the free
 * workbench when in_lesson is false), and the step as done when its goal
 * holds (run->met, after lesson_run_eval) or, for a step without an
 * exercise, when the learner is moving on from it (leaving) or it is the
 * lesson's last step (shown is done). A right answer given is recorded
 * with it. An exercise met with its solution shown (S) is recorded as
 * shown (progress_mark_shown), not done, and its answer is not kept: it
 * was not earned; so is one whose question's tries were used up
 * (run->unearned). Wrong answers are recorded (progress_set_wrong).
 * Returns true when p changed (save it). */
bool lesson_progress_update(const struct lesson_run *run, struct progress *p, bool leaving,
                            bool in_lesson);

/* Give the run's question again the right answer p recorded for its step
 * (a resumed step shows as answered), and what p says of it: shown, and
 * the wrong answers given (tries spent stay spent). Returns true when a
 * recorded answer was given again. */
bool lesson_progress_restore(struct lesson_run *run, const struct progress *p);

/* Where lesson les opens: the learner's saved place when p's place is in
 * it (returns true: its edits and state are to be restored too), else its
 * first step not done yet, or its first step when all are (returns false). */
bool lesson_where_left(const struct lesson *les, const struct progress *p, int *step);

/* The first lesson of the set not yet done (for the menu's cursor), or 0. */
int lesson_next_undone(const struct lesson_set *set, const struct progress *p);

#endif
