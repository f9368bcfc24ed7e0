/*
 * arena.h - every allocation of one lesson, freed at once (arena.c).
 */
#ifndef ARENA_H
#define ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

struct lesson_arena *lesson_arena_new(void);
void lesson_arena_free(struct lesson_arena *a);
/* Zeroed memory; NULL only when out of memory. */
void *lesson_arena_alloc(struct lesson_arena *a, size_t size);
/* Bytes the arena holds (its blocks' capacity). */
size_t lesson_arena_size(const struct lesson_arena *a);
char *lesson_arena_strndup(struct lesson_arena *a, const char *s, size_t n);
char *lesson_arena_strdup(struct lesson_arena *a, const char *s);
/* Grow an array of *count elements by one (capacity doubles inside the
 * arena); returns the new, zeroed last element or NULL. */
void *lesson_arena_push(struct lesson_arena *a, void **array, int *count, int *cap, size_t elem);

#endif
