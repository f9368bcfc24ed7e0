/*
 * names.h - quantities, tensors and stages by the names lessons use
 * (names.c; the quantities' names and values are in lesson.h).
 */
#ifndef NAMES_H
#define NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

/* The quantity by name, or LESSON_Q_COUNT. on / off read as 1 / 0. */
enum lesson_qty lesson_qty_by_name(const char *name);
/* The tensor by its on-screen name, or MHA_T_COUNT. */
enum mha_tensor lesson_tensor_by_name(const char *name);
/* A stage by its label (case-insensitive, "weighted sum" / "weighted-sum") or 1..7. */
int lesson_stage_by_name(const char *text);

#endif
