/*
 * edit.h - one edit line parsed (edit.c).
 */
#ifndef EDIT_H
#define EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"
#include "arena.h"

/* An edit line ("W^Q[4,0] = 12", "heads = 8", "head 2 off", "answer b"). */
int lesson_parse_edit(const char *p, struct lesson_edit *e, struct lesson_arena *a, bool allow_answer,
               char *why, size_t len);

#endif
