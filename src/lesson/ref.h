/*
 * ref.h - tensor references in the cell notation, "P₁[5,4]" (ref.c).
 */
#ifndef REF_H
#define REF_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson.h"

/* A tensor reference at p: "NAME[row,column]", a head after S, P, O
 * ("P₀[2,0]", "P_0[2,0]"); missing indices mean "all". why gets the
 * reason on failure (for the old "P[0][2]", its new form). */
int lesson_parse_ref(const char *p, const char **end, struct lesson_ref *ref, char *why, size_t len);
/* The first cell in text written in an old notation: brackets one after
 * another ("P[0][2]", "S[1][0][4]", "W^K[1][5]", "S_1[0][4]") or the
 * ASCII head in text the pane shows ("S_1[0,4]", a matrix "S_1").
 * Returns where it starts, its length in *n and the form to write in want
 * ("P₀[2,*]", "S₁[0,4]", "W^K[1,5]", "S₁"); NULL when there is none. */
const char *lesson_notation_old(const char *text, size_t *n, char *want, size_t len);
/* The numbers ref's cells live in, laid out as mha_tensor_shape(c, ref->t):
 * its layer's W's or activations. layers holds c->layers activations in a
 * row, layer l at layers + l (mha_stack.layer); NULL for inputs only.
 * NULL when the layer does not exist. */
float *lesson_ref_data(const struct lesson_ref *ref, const struct mha_config *c,
                             const struct mha_weights *w, const struct mha_acts *layers);
/* Does ref name cells of tensor t as the screen shows it in that layer?
 * The stream x_L is layer L's x_l and layer L-1's x_l+1; X, X_kv and
 * P_pos are every layer's. */
bool lesson_ref_in_layer(const struct lesson_ref *ref, enum mha_tensor t, int layer);
/* Ref as text: "P₁[5,4]", "W^Q[*,0..3]", "layer 1 S₀[2,3]", "x₁[2,0]". */
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

#endif
