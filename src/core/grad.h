/*
 * grad.h - the backward pass of the multi-head attention block: given
 * dL/dY, the gradients of every stage down to the inputs X, W^Q, W^K, W^V
 * and W^O (and X_kv, P, every layer's W's of a stack). Same legend as mha.h (n tokens, d d_model, h heads, g kv heads,
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
 * allocation; mha_backward overwrites every field. x_l is the layer's
 * input (X + PE in layer 0); K, V's rows are x_l's or, with cross-
 * attention, X_kv's (nk of them). */
struct mha_grads {
	float *x;       /* (n, d)      dL/dX = dL/dx_l (through this layer: x_l = X + PE) */
	float *wq;      /* (d, h*dk)   dL/dW^Q = x_l^T dQ                        */
	float *wk;      /* (d, g*dk)   dL/dW^K = x_l^T dK (X_kv^T dK)            */
	float *wv;      /* (d, g*dk)   dL/dW^V = x_l^T dV (X_kv^T dV)            */
	float *wo;      /* (h*dk, d)   dL/dW^O = Concat^T dY                     */
	float *concat;  /* (n, h*dk)   dConcat = dY W^O^T; dO_i its block i, 0 for heads off */
	float *weights; /* (h, n, nk)  dP_i = dO_i V_j^T                         */
	float *scores;  /* (h, n, nk)  dS_i = P_i * (dP_i - rowsum(P_i * dP_i)), before the scale */
	float *q;       /* (n, h*dk)   dQ_i = s dS_i K_j, turned back (R_p^T) with RoPE:
	                 *             the gradient of Q before the rotation     */
	float *k;       /* (nk, g*dk)  dK_j = sum over heads i of j: s dS_i^T Q_i (turned back) */
	float *v;       /* (nk, g*dk)  dV_j = sum over heads i of j: P_i^T dO_i  */
	float *bq;      /* (h*dk)      dL/db^Q = column sums of dQ (cfg.bias; else 0) */
	float *bk;      /* (g*dk)      dL/db^K = column sums of dK               */
	float *bv;      /* (g*dk)      dL/db^V = column sums of dV               */
	float *bo;      /* (d)         dL/db^O = column sums of dY               */
	float *x_kv;    /* (m, d)      dL/dX_kv = dK W^K^T + dV W^V^T (cross-attention) */
	float *pos;     /* (n, d)      dL/dP = dL/dX with learned positions; else 0 */
	float *work;    /* (max(n,nk), max(dk,d)) scratch for the sums into dK, dV, dX */
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

/*
 * The stack's backward (mha_stack in mha.h). The loss reads the last
 * layer's Y; with D_l = dL/dx_l, the gradient on the stream into layer l,
 *   D_L-1 = layer L-1's dx (from dY = dL/dY),
 *   D_l   = D_l+1 + layer l's dx from dY_l = D_l+1   (x_l+1 = x_l + Y_l),
 * dX = D_0 (= dP with learned positions), dX_kv the sum over the layers.
 */
struct mha_stack_grads {
	int layers;
	struct mha_grads layer[MHA_MAX_LAYERS]; /* layer l's W's and biases; .x its attention's
	                                          * part of D_l only; .pos 0 */
	float *x;       /* (n, d)      dL/dX = D_0                               */
	float *pos;     /* (n, d)      dL/dP = D_0 (learned positions), else 0   */
	float *x_kv;    /* (m, d)      dL/dX_kv, summed over the layers          */
	float *stream;  /* (L, n, d)   D_l = dL/dx_l                             */
	float *mem;
};
enum mha_status mha_stack_grads_alloc(struct mha_stack_grads *g, const struct mha_config *c);
void mha_stack_grads_free(struct mha_stack_grads *g);
/* dy (n,d): dL/dY of the last layer; s: mha_stack_forward's for w. */
void mha_stack_backward(const struct mha_config *c, const struct mha_weights *w,
                        const struct mha_stack *s, const float *dy, struct mha_stack_grads *g);
/* L = 1/2 sum(Y_L-1^2): the last layer's Y (for one layer, mha_backward_half_square's). */
void mha_stack_backward_half_square(const struct mha_config *c, const struct mha_weights *w,
                                    const struct mha_stack *s, struct mha_stack_grads *g);

#endif
