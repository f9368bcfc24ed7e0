/*
 * checker.h - mha-tui --check-lessons: every lesson parses, every step's
 * set-up applies, every exercise's goal is false in its starting state and
 * true once its solution is applied (both on the real forward pass), every
 * exercise has a hint and a solution, every {key:ACTION} is known, no
 * verbatim line or word is wider than the narrowest lesson pane.
 */
#ifndef CHECKER_H
#define CHECKER_H

#include <stdio.h>

#include "lesson.h"
#include "screen_check.h"

struct lesson_check_stats {
	int lessons, steps, exercises;
};

/* Check a loaded set; errors ("file:line: message") appended to errs.
 * Returns 0 when nothing was wrong. */
int lesson_check_set(const struct lesson_set *set, struct lesson_errors *errs,
                     struct lesson_check_stats *st);

/* The whole command: check dir_or_null, or when NULL the directory found
 * by lesson_find_dir(lessons_dir_flag). Prints "N lessons, M steps, K
 * exercises: ok" to out and returns 0; or prints every error to err and
 * returns 1. */
int lesson_check_command(const char *dir_or_null, const char *lessons_dir_flag, FILE *out, FILE *err);

/* The same, and with draw (the TUI's step_screen_text: a step drawn
 * headless) no question's answer may be on its own screen either, as
 * the step opens or after a wrong answer (lesson_check_screens). draw NULL: lesson_check_command. main.c:
 * lesson_check_drawn(cl.check_dir, cl.lessons_dir, step_screen_text, stdout, stderr). */
int lesson_check_drawn(const char *dir_or_null, const char *lessons_dir_flag, lesson_screen_fn *draw,
                       FILE *out, FILE *err);

#endif
