/*
 * grad.h - the backward pass of the multi-head attention block: given
 * dL/dY, the gradients of every stage down to the inputs X, W^Q, W^K, W^V
 * and W^O. Same legend as mha.h (n tokens, d d_model, h heads, g kv heads,
 * dk head size). The backward needs only the forward's activations (P in
 * particular): a masked weight is exactly 0, so its gradient through the
 * softmax is 0 whatever the mask was (causal, top-k, a dead row). Top-k's
 * selection is piecewise constant: its gradient is that of the fixed mask.
 * With cfg.bias the biases' gradients are the column sums of dQ, dK, dV
 * and dY (each bias is added to every row); X's and the W's gradients do
 * not change form.
 *
 *     struct mha_grads g;
 *     mha_grads_alloc(&g, &cfg);
 *     mha_forward(&cfg, &w, &a);
 *     mha_backward(&cfg, &w, &a, dy, &g);   // dy (n,d) = dL/dY
 *     g.wq[0] ...                            // dL/dW^Q[0][0]
 *     mha_grads_free(&g);
 */
#ifndef MHA_GRAD_H
#define MHA_GRAD_H

#include "mha.h"

/* Gradients of L with respect to the inputs (same shapes as struct
 * mha_weights) and to the intermediates the backward passes through. One
 * allocation; mha_backward overwrites every field. */
struct mha_grads {
	float *x;       /* (n, d)      dL/dX                                     */
	float *wq;      /* (d, h*dk)   dL/dW^Q = X^T dQ                          */
	float *wk;      /* (d, g*dk)   dL/dW^K = X^T dK                          */
	float *wv;      /* (d, g*dk)   dL/dW^V = X^T dV                          */
	float *wo;      /* (h*dk, d)   dL/dW^O = Concat^T dY                     */
	float *concat;  /* (n, h*dk)   dConcat = dY W^O^T; dO_i its block i, 0 for heads off */
	float *weights; /* (h, n, n)   dP_i = dO_i V_j^T                         */
	float *scores;  /* (h, n, n)   dS_i = P_i * (dP_i - rowsum(P_i * dP_i)), before the scale */
	float *q;       /* (n, h*dk)   dQ_i = s dS_i K_j                         */
	float *k;       /* (n, g*dk)   dK_j = sum over heads i of j: s dS_i^T Q_i */
	float *v;       /* (n, g*dk)   dV_j = sum over heads i of j: P_i^T dO_i  */
	float *bq;      /* (h*dk)      dL/db^Q = column sums of dQ (cfg.bias; else 0) */
	float *bk;      /* (g*dk)      dL/db^K = column sums of dK               */
	float *bv;      /* (g*dk)      dL/db^V = column sums of dV               */
	float *bo;      /* (d)         dL/db^O = column sums of dY               */
	float *work;    /* (n, max(dk,d)) scratch for the sums into dK, dV, dX   */
	void *mem;
};

enum mha_status mha_grads_alloc(struct mha_grads *g, const struct mha_config *c);
void mha_grads_free(struct mha_grads *g);

/* dy (n,d): dL/dY. a: the forward's activations for w (mha_forward).
 * Fills every field of g. Products go through gemm_rm (OpenBLAS). */
void mha_backward(const struct mha_config *c, const struct mha_weights *w,
                  const struct mha_acts *a, const float *dy, struct mha_grads *g);

/* L = 1/2 sum(Y^2), so dL/dY = Y: the loss of `mha-tui --dump json --grad`. */
void mha_backward_half_square(const struct mha_config *c, const struct mha_weights *w,
                              const struct mha_acts *a, struct mha_grads *g);

#endif
