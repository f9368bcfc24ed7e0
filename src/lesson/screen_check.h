/*
 * screen_check.h - the lesson check that reads what a step's screen
 * shows: no question's answer may be on the step's own screen before the
 * learner answers, nor after a wrong answer (a wrong answer reveals
 * nothing: run.h), and a question asked beside other goals comes first
 * (@goal answer), so that the goal line cannot print their targets. The
 * lesson library never draws: the caller passes a function that draws a
 * step headless and returns its text: `mha-tui --check-lessons` passes the
 * TUI's step_screen_text (src/tui/step_screen.c, a vscreen at 80x24),
 * tests/tui/test_blind_learner.c its own.
 * Deliberately not here: numbers of one digit (indices are on every
 * screen; the blind learner test judges those), later stages than the
 * one the step opens on.
 */
#ifndef SCREEN_CHECK_H
#define SCREEN_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

/* Step si of lesson li of set as the learner first sees it, or with
 * answer (not NULL) committed to its question first as the learner types
 * it, as text, one line per screen row, into out (len bytes). 0, or -1
 * when it cannot be drawn (then nothing is checked). */
typedef int lesson_screen_fn(void *ctx, const struct lesson_set *set, int li, int si,
                             const char *answer, char *out, size_t len);

/* A wrong answer to q, as typed: the first wrong choice's key, or a
 * number far from the answer. Into out (len bytes). */
void lesson_screen_wrong_answer(const struct lesson_question *q, char *out, size_t len);

/* Check every question step of set against its drawn screen, as it opens
 * and after a wrong answer; errors
 * ("file:line: message") appended to errs. Returns how many were found. */
int lesson_check_screens(const struct lesson_set *set, lesson_screen_fn *draw, void *ctx,
                         struct lesson_errors *errs);

/* Is the number v shown in text as a whole token, with its sign ("256",
 * "1,048,576", "0.35", "-24"; "-0.75" is not 0.75, the range "r0-2"
 * shows 2), or as the product of a shape ("6x6" shows 36)? Exposed for
 * the tests. */
bool lesson_screen_shows(const char *text, double v);

#endif
