/*
 * forward.h - what the engine's planned forward shares with forward.c
 * (internal to the core and the engine): the forward pass with its product
 * and its softmax row as parameters, the backward with its product, and
 * the per-phase clock.
 */
#ifndef FORWARD_H
#define FORWARD_H

#include "mha.h"

struct mha_grads; /* grad.h */

/* A row-major product as gemm_rm (gemm.h). */
typedef void gemm_fn(bool ta, bool tb, int m, int n, int k, float alpha,
                     const float *a, int lda, size_t a_len,
                     const float *b, int ldb, size_t b_len,
                     float *c, int ldc, size_t c_len);
/* One row of softmax (mha_softmax_row's contract); work: n floats. */
typedef bool softmax_fn(const float *s, float *p, int n, int limit, int top_k, float *work);

/* seconds[ph] += now - *t0, then *t0 = now; nothing when seconds is NULL. */
void phase_lap(double *seconds, enum mha_phase ph, double *t0);
/* The forward pass with these product and row, every intermediate kept in
 * a, adding each phase's time to seconds[MHA_PHASE_COUNT] (NULL: no clock
 * read). The row's n floats of scratch are on the stack: a row that uses
 * them needs n <= MHA_MAX_TOKENS. */
void forward_run(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a,
                 gemm_fn *mm, softmax_fn *softmax, double *seconds);
/* Every layer of s (forward_run for layer 0, then each on the stream the
 * one below wrote), the same way. */
void stack_run(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s,
               gemm_fn *mm, softmax_fn *softmax, double *seconds);

/* mha_backward with this product (the engine's trainer passes its small
 * matrices' product). */
void backward_run(const struct mha_config *c, const struct mha_weights *w,
                  const struct mha_acts *a, const float *dy, struct mha_grads *g, gemm_fn *mm);

/* rows (n, width) += b on every row (a bias), in float. */
void bias_add(float *rows, int n, int width, const float *b);

#endif
