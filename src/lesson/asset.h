/*
 * asset.h - the files lessons read besides themselves (asset.c).
 */
#ifndef ASSET_H
#define ASSET_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"
#include "arena.h"

/* Read an asset file (NAME + ext under dir) into the arena; NUL-terminated.
 * 0, or -1 with why. */
int lesson_asset_read(const char *dir, const char *name, const char *ext, struct lesson_arena *a,
               char **text, size_t *size, char *why, size_t len);
/* A .mat asset (rows of numbers) into op->data / rows / cols. */
int lesson_asset_matrix(const char *dir, struct lesson_op *op, struct lesson_arena *a,
                      char *why, size_t len);
/* The two .feat assets of an @embed. */
int lesson_asset_embed(const char *dir, struct lesson_op *op, struct lesson_arena *a,
                     char *why, size_t len);

#endif
