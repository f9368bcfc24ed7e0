/*
 * cond.h - comparisons and one @goal condition parsed (cond.c).
 */
#ifndef COND_H
#define COND_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

/* "<", "<=", ">", ">=", "==", "!=", "in"/"within". -1 when none. */
int lesson_parse_cmp(const char *p, const char **end);
const char *lesson_cmp_text(enum lesson_cmp c);

/* A @goal line's condition (the kinds of lesson.h). */
int lesson_parse_cond(const char *arg, struct lesson_cond *c, char *why, size_t len);

#endif
