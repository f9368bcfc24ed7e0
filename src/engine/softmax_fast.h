/*
 * softmax_fast.h - the row softmax of the engine's paths (internal to the
 * engine; the tests include it too). The reference row is mha_softmax_row in
 * mha.h; this one keeps its contract exactly and differs only in how the
 * numbers are made (vexp.h's exp, float sums, an O(n) top-k selection).
 */
#ifndef SOFTMAX_FAST_H
#define SOFTMAX_FAST_H

#include <stdbool.h>

/* Row softmax with the mask (keys j < limit kept) and top-k, as
 * mha_softmax_row: masked weights exactly 0, ties to the lower index,
 * true and an all-zero row when no key is kept, NaN only from NaN input.
 * p may equal s (in place). work: n floats of scratch.
 * inv == NULL: p is normalised. inv != NULL: p holds the unnormalised
 * exp(s_j - m) and *inv = 1 / sum (0 for a dead row), for a caller that
 * scales a later product instead of the whole row. */
bool softmax_row_fast(const float *s, float *p, int n, int limit, int top_k,
                      float *work, float *inv);

/* The k-th largest (k from 0) of w[0..len), no NaN: Hoare's selection,
 * expected O(len). Reorders w. */
float softmax_select_desc(float *w, int len, int k);

#endif
