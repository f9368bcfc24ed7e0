/*
 * lesson_int.h - shared by the lesson module's own files, not by its users:
 * the arena that owns a parsed lesson, and the small parsers of the pieces
 * that goals, edits and set-ups share (references, quantities, stages).
 */
#ifndef LESSON_INT_H
#define LESSON_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

/* ---- arena: every allocation of one lesson, freed at once ---- */
struct lesson_arena *arena_new(void);
void arena_free(struct lesson_arena *a);
/* Zeroed memory; NULL only when out of memory. */
void *arena_alloc(struct lesson_arena *a, size_t size);
/* Bytes the arena holds (its blocks' capacity). */
size_t arena_size(const struct lesson_arena *a);
char *arena_strndup(struct lesson_arena *a, const char *s, size_t n);
char *arena_strdup(struct lesson_arena *a, const char *s);
/* Grow an array of *count elements by one (capacity doubles inside the
 * arena); returns the new, zeroed last element or NULL. */
void *arena_push(struct lesson_arena *a, void **array, int *count, int *cap, size_t elem);

/* ---- small parsers over one line; each returns 0, or -1 with why ---- */
/* Skip spaces and tabs. */
const char *skip_blanks(const char *p);
/* A word (letters, digits, '_', '-', '^', '.') into buf; returns the end. */
const char *read_word(const char *p, char *buf, size_t len);
/* A decimal number, locale-independent (digits, sign, '.', exponent). */
int parse_number(const char *p, const char **end, double *out);
/* A whole number. */
int parse_int(const char *p, const char **end, long long *out);

/* A tensor reference "NAME[..][..]" at p, missing trailing indices mean
 * "all". why gets the reason on failure. */
int parse_ref(const char *p, const char **end, struct lesson_ref *ref, char *why, size_t len);
/* The tensor by its on-screen name, or MHA_T_COUNT. */
enum mha_tensor tensor_by_name(const char *name);
/* The quantity by name, or LESSON_Q_COUNT. on / off read as 1 / 0. */
enum lesson_qty qty_by_name(const char *name);
int parse_qty_value(const char *p, const char **end, double *out);
/* A stage by its label (case-insensitive, "weighted sum" / "weighted-sum") or 1..7. */
int stage_by_name(const char *text);
/* "<", "<=", ">", ">=", "==", "!=", "in"/"within". -1 when none. */
int parse_cmp(const char *p, const char **end);
const char *cmp_text(enum lesson_cmp c);

/* Ref as text: "P[1][5][4]", "W^Q[*][0..3]". */
void ref_format(const struct lesson_ref *r, char *buf, size_t len);
/* Clamp a range to 0..n-1; false when empty or out of range. */
bool range_resolve(struct lesson_range r, int n, int *lo, int *hi);
/* Call fn with the flat index (m * rows + r) * cols + c of every cell of
 * ref within shape s (ranges clamped to it); stops early when fn returns
 * false. */
void ref_visit(const struct lesson_ref *ref, struct mha_shape s,
               bool (*fn)(size_t at, void *ctx), void *ctx);
/* Is (m, r, c) inside ref? */
bool ref_contains(const struct lesson_ref *ref, int m, int r, int c);
/* Every index of ref within the shape of its tensor under c? why says which not. */
int ref_check(const struct lesson_ref *ref, const struct mha_config *c, char *why, size_t len);

/* An edit line ("W^Q[4][0] = 12", "heads = 8", "head 2 off", "answer b"). */
int parse_edit(const char *p, struct lesson_edit *e, struct lesson_arena *a, bool allow_answer,
               char *why, size_t len);

/* A @goal line's condition (the kinds of lesson.h). */
int parse_cond(const char *arg, struct lesson_cond *c, char *why, size_t len);

/* A configuration from mha_config_default changed by base then step
 * (kv_heads defaults to heads, d_k to d_model / heads). 0, or -1 with why. */
int setup_resolve_config(const struct lesson_setup *base, const struct lesson_setup *step,
                         struct mha_config *out, char *why, size_t len);

/* Read an asset file (NAME + ext under dir) into the arena; NUL-terminated.
 * 0, or -1 with why. */
int asset_read(const char *dir, const char *name, const char *ext, struct lesson_arena *a,
               char **text, size_t *size, char *why, size_t len);
/* A .mat asset (rows of numbers) into op->data / rows / cols. */
int asset_load_matrix(const char *dir, struct lesson_op *op, struct lesson_arena *a,
                      char *why, size_t len);
/* The two .feat assets of an @embed. */
int asset_load_embed(const char *dir, struct lesson_op *op, struct lesson_arena *a,
                     char *why, size_t len);

/* lesson_find_dir with its inputs given, for the tests: the flag, the
 * environment variable's value, the source tree (tried only when
 * use_source), the installed dir. */
int lessons_dir_search(const char *flag, const char *env, const char *source, bool use_source,
                       const char *install, char *out, size_t outlen, char *msg, size_t len);

/* ---- text widths (UTF-8 characters, as the pane counts them) ---- */
/* Bytes of the first `chars` characters of s (all of s when shorter). */
size_t text_prefix(const char *s, int chars);
/* Characters in s. */
int text_width(const char *s);

/* Edit distance, for "did you mean". */
int edit_distance(const char *a, const char *b);
/* The known word nearest to w among names[0..n), or NULL when none is within 2 edits. */
const char *nearest_word(const char *w, const char *const *names, int n);

#endif
