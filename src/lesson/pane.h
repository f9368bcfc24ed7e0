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

#include "exercise.h"
#include "lesson.h"
#include "progress.h"

typedef const char *lesson_key_fn(const char *action, void *ctx);

/* Every ACTION a lesson may name in {key:ACTION}, NULL-terminated. */
extern const char *const lesson_key_actions[];
bool lesson_key_action_known(const char *action);

enum lesson_line_kind {
	LESSON_LINE_BLANK,
	LESSON_LINE_TITLE,     /* lesson or step heading */
	LESSON_LINE_PROSE,     /* re-wrapped text */
	LESSON_LINE_VERBATIM,  /* an indented line, as written (formulas, tables) */
	LESSON_LINE_QUESTION,
	LESSON_LINE_CHOICE,
	LESSON_LINE_ANSWER,    /* what the learner answered, and whether it is right */
	LESSON_LINE_MET,       /* the goal holds: draw with the tick / success colour */
	LESSON_LINE_UNMET,     /* the goal does not hold yet */
	LESSON_LINE_HINT,
	LESSON_LINE_SOLUTION,
	LESSON_LINE_KEYS,      /* which keys do what here */
	LESSON_LINE_MENU,      /* a lesson in the menu */
	LESSON_LINE_MENU_DONE, /* a lesson in the menu, done */
};

struct lesson_line {
	enum lesson_line_kind kind;
	char *text;  /* UTF-8, at most `width` characters */
};

struct lesson_text {
	struct lesson_line *lines;
	int count, cap;
};
void lesson_text_free(struct lesson_text *t);
/* Append one line, cut at width characters (no cut when width <= 0). 0 or -1. */
int lesson_text_add(struct lesson_text *t, enum lesson_line_kind kind, const char *s, int width);

/* Append prose wrapped to width characters: lines separated by a blank
 * line are paragraphs, re-wrapped (kind: LESSON_LINE_PROSE, or `kind` for
 * continuation text such as hints); lines that start with a space or tab
 * are verbatim (tabs as 4 spaces, cut at the width). keys may be NULL.
 * Returns 0, or -1 when out of memory. */
int lesson_wrap(struct lesson_text *out, const char *prose, int width, enum lesson_line_kind kind,
                lesson_key_fn *keys, void *ctx);

/* The whole pane of the run's step: heading, prose, question and choices,
 * the goal's status (with a tick: "✓" when utf8, else "[x]"), the hints
 * shown so far, the solution once applied, and a keys line. The status is
 * the one from the last lesson_run_eval. Returns 0 or -1. */
int lesson_run_pane(const struct lesson_run *run, int width, lesson_key_fn *keys, void *ctx,
                    bool utf8, struct lesson_text *out);

/* The lesson menu: line 0 a heading, line 1 + i lesson i of the set (its
 * number, a done mark, its title, exercises done), then a blank line and
 * the overall progress. Returns 0 or -1. */
int lesson_menu(const struct lesson_set *set, const struct progress *p, int width, bool utf8,
                struct lesson_text *out);

/* How much of lesson l is done per p: steps and exercises done. A lesson
 * is done when every step is. */
void lesson_progress_counts(const struct lesson *l, const struct progress *p, int *steps_done,
                            int *exercises_done);
bool lesson_is_done(const struct lesson *l, const struct progress *p);

#endif
