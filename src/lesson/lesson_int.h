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
struct lesson_arena *lesson_arena_new(void);
void lesson_arena_free(struct lesson_arena *a);
/* Zeroed memory; NULL only when out of memory. */
void *lesson_arena_alloc(struct lesson_arena *a, size_t size);
char *lesson_arena_strndup(struct lesson_arena *a, const char *s, size_t n);
char *lesson_arena_strdup(struct lesson_arena *a, const char *s);
/* Grow an array of *count elements by one (capacity doubles inside the
 * arena); returns the new, zeroed last element or NULL. */
void *lesson_arena_push(struct lesson_arena *a, void **array, int *count, int *cap, size_t elem);

/* ---- small parsers over one line; each returns 0, or -1 with why ---- */
/* Skip spaces and tabs. */
const char *lesson_skip_blanks(const char *p);
/* A word (letters, digits, '_', '-', '^', '.') into buf; returns the end. */
const char *lesson_read_word(const char *p, char *buf, size_t len);
/* A decimal number, locale-independent (digits, sign, '.', exponent). */
int lesson_parse_number(const char *p, const char **end, double *out);
/* A whole number. */
int lesson_parse_int(const char *p, const char **end, long long *out);

/* A tensor reference "NAME[..][..]" at p, missing trailing indices mean
 * "all". why gets the reason on failure. */
int lesson_parse_ref(const char *p, const char **end, struct lesson_ref *ref, char *why, size_t len);
/* The tensor by its on-screen name, or MHA_T_COUNT. */
enum mha_tensor lesson_tensor_by_name(const char *name);
/* The quantity by name, or LESSON_Q_COUNT. on / off read as 1 / 0. */
enum lesson_qty lesson_qty_by_name(const char *name);
int lesson_parse_qty_value(const char *p, const char **end, double *out);
/* A stage by its label (case-insensitive, "weighted sum" / "weighted-sum") or 1..7. */
int lesson_stage_by_name(const char *text);
/* "<", "<=", ">", ">=", "==", "!=", "in"/"within". -1 when none. */
int lesson_parse_cmp(const char *p, const char **end);
const char *lesson_cmp_text(enum lesson_cmp c);

/* Ref as text: "P[1][5][4]", "W^Q[*][0..3]". */
void lesson_ref_format(const struct lesson_ref *r, char *buf, size_t len);
/* Clamp a range to 0..n-1; false when empty or out of range. */
bool lesson_range_resolve(struct lesson_range r, int n, int *lo, int *hi);
/* Call fn with the flat index (m * rows + r) * cols + c of every cell of
 * ref within shape s (ranges clamped to it); stops early when fn returns
 * false. */
void lesson_ref_visit(const struct lesson_ref *ref, struct mha_shape s,
               bool (*fn)(size_t at, void *ctx), void *ctx);
/* Is (m, r, c) inside ref? */
bool lesson_ref_contains(const struct lesson_ref *ref, int m, int r, int c);
/* Every index of ref within the shape of its tensor under c? why says which not. */
int lesson_ref_check(const struct lesson_ref *ref, const struct mha_config *c, char *why, size_t len);

/* An edit line ("W^Q[4][0] = 12", "heads = 8", "head 2 off", "answer b"). */
int lesson_parse_edit(const char *p, struct lesson_edit *e, struct lesson_arena *a, bool allow_answer,
               char *why, size_t len);

/* A @goal line's condition (the kinds of lesson.h). */
int lesson_parse_cond(const char *arg, struct lesson_cond *c, char *why, size_t len);

/* A configuration from mha_config_default changed by base then step
 * (kv_heads defaults to heads, d_k to d_model / heads). 0, or -1 with why. */
int lesson_setup_resolve_config(const struct lesson_setup *base, const struct lesson_setup *step,
                         struct mha_config *out, char *why, size_t len);

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

/* lesson_find_dir with its inputs given, for the tests: the flag, the
 * environment variable's value, the source tree (tried only when
 * use_source), the installed dir. */
int lesson_dir_search(const char *flag, const char *env, const char *source, bool use_source,
                       const char *install, char *out, size_t outlen, char *msg, size_t len);

/* ---- text widths (UTF-8 characters, as the pane counts them) ---- */
/* Bytes of the first `chars` characters of s (all of s when shorter). */
size_t lesson_utf8_prefix(const char *s, int chars);
/* Characters in s. */
int lesson_utf8_width(const char *s);

/* Edit distance, for "did you mean". */
int lesson_edit_distance(const char *a, const char *b);
/* The known word nearest to w among names[0..n), or NULL when none is within 2 edits. */
const char *lesson_nearest_word(const char *w, const char *const *names, int n);

#endif
