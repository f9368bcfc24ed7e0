/*
 * backward.c - gradients of the multi-head attention block, stage by stage
 * in reverse (see grad.h for the formulas, one per field), with positions
 * (RoPE turned back, PE's gradient that of X), cross-attention (K and V's
 * gradients into X_kv) and a stack of layers (the stream's gradient carried
 * down through every residual add). Products go through gemm_rm (OpenBLAS,
 * or plain loops with -Dblas=reference), or the product backward_run is
 * given (the engine's for small matrices); the softmax backward is a loop.
 * This file does not compute a loss (the caller brings dL/dY), does not
 * update weights, and never allocates outside the *_alloc functions.
 */
#include "grad.h"
#include "forward.h"
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum mha_status mha_grads_alloc(struct mha_grads *g, const struct mha_config *c)
{
	size_t n = (size_t)c->n, nk = (size_t)mha_keys(c), d = (size_t)c->d;
	size_t hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk, m = (size_t)c->m;
	size_t nn = (size_t)c->h * n * nk;
	size_t rows = n > nk ? n : nk, cols = (size_t)(c->dk > c->d ? c->dk : c->d);
	size_t floats = n * d + d * hw + 2 * d * gw + hw * d + n * hw + 2 * nn + n * hw + 2 * nk * gw
	                + rows * cols + hw + 2 * gw + d + m * d + n * d;
	memset(g, 0, sizeof *g);
	float *f = calloc(floats, sizeof(float));
	if (!f)
		return MHA_ENOMEM;
	g->mem = f;
	g->x = f;       f += n * d;
	g->wq = f;      f += d * hw;
	g->wk = f;      f += d * gw;
	g->wv = f;      f += d * gw;
	g->wo = f;      f += hw * d;
	g->concat = f;  f += n * hw;
	g->weights = f; f += nn;
	g->scores = f;  f += nn;
	g->q = f;       f += n * hw;
	g->k = f;       f += nk * gw;
	g->v = f;       f += nk * gw;
	g->bq = f;      f += hw;
	g->bk = f;      f += gw;
	g->bv = f;      f += gw;
	g->bo = f;      f += d;
	g->x_kv = f;    f += m * d;
	g->pos = f;     f += n * d;
	g->work = f;
	return MHA_OK;
}

void mha_grads_free(struct mha_grads *g)
{
	free(g->mem);
	memset(g, 0, sizeof *g);
}

/* dst block (rows, dk) with row stride ld += src (rows, dk) packed */
static void add_block(float *dst, int ld, const float *src, int rows, int dk)
{
	for (int r = 0; r < rows; r++)
		for (int col = 0; col < dk; col++)
			dst[(size_t)r * ld + col] += src[(size_t)r * dk + col];
}

/* out (width) = sum over the n rows of m (n, width); all 0 when m is NULL */
static void column_sums(const float *m, int n, int width, float *out)
{
	for (int col = 0; col < width; col++) {
		double acc = 0.0;
		for (int r = 0; m && r < n; r++)
			acc += m[(size_t)r * width + col];
		out[col] = (float)acc;
	}
}

/* Softmax backward, one head: p = softmax(s) row-wise gives
 *   dS[r][c] = P[r][c] * (dP[r][c] - sum_c' P[r][c'] dP[r][c']).
 * Masked and dead entries have P = 0, so their dS is exactly 0. */
static void softmax_backward(const float *p, const float *dp, float *ds, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		const float *pr = p + (size_t)r * cols, *dpr = dp + (size_t)r * cols;
		float *dsr = ds + (size_t)r * cols;
		double dot = 0.0;
		for (int col = 0; col < cols; col++)
			dot += (double)pr[col] * dpr[col];
		for (int col = 0; col < cols; col++)
			dsr[col] = pr[col] * (dpr[col] - (float)dot);
	}
}

/* One layer on its activations a (a->xin = x_l), W's lw, K and V's rows
 * from x_kv with cross-attention: every field of g but pos (the caller's).
 * g->x is dL/dx_l through this layer's attention (not the residual). */
static void layer_backward(const struct mha_config *c, const struct mha_layer_weights *lw,
                           const float *x_kv, const struct mha_acts *a, const float *dy,
                           struct mha_grads *g, gemm_fn *mm)
{
	const int n = c->n, nk = mha_keys(c), d = c->d, dk = c->dk, hw = c->h * c->dk, gw = c->g * c->dk;
	const size_t nd = (size_t)n * d, nh = (size_t)n * hw, ng = (size_t)nk * gw, nn = (size_t)n * nk;
	const size_t kd = (size_t)nk * d, kdk = (size_t)nk * dk;
	const float s = c->scale ? 1.0f / sqrtf((float)dk) : 1.0f;
	const bool cross = c->m > 0, rope = c->pos == MHA_POS_ROPE;
	const float *src = cross ? x_kv : a->xin; /* the rows K and V were projected from */
	const float *qs = rope ? a->q_rot : a->q, *ks = rope ? a->k_rot : a->k; /* what S read */

	// dW^O (h*dk,d) = Concat^T (h*dk,n) @ dY (n,d)
	mm(true, false, hw, d, n, 1.0f, a->concat, hw, nh, dy, d, nd, g->wo, d, (size_t)hw * d);
	// dConcat (n,h*dk) = dY (n,d) @ W^O^T (d,h*dk)
	mm(false, true, n, hw, d, 1.0f, dy, d, nd, lw->wo, d, (size_t)hw * d, g->concat, hw, nh);

	memset(g->k, 0, ng * sizeof *g->k);
	memset(g->v, 0, ng * sizeof *g->v);
	for (int i = 0; i < c->h; i++) {
		const int j = mha_kv_head(c, i);
		float *dpi = g->weights + i * nn, *dsi = g->scores + i * nn;
		float *dqi = g->q + (size_t)i * dk, *doi = g->concat + (size_t)i * dk;
		if (c->head_off[i]) {
			// the head never reached the concat: nothing flows back into it
			memset(dpi, 0, nn * sizeof *dpi);
			memset(dsi, 0, nn * sizeof *dsi);
			for (int r = 0; r < n; r++) {
				memset(dqi + (size_t)r * hw, 0, (size_t)dk * sizeof *dqi);
				memset(doi + (size_t)r * hw, 0, (size_t)dk * sizeof *doi);
			}
			continue;
		}
		const float *pi = a->weights + i * nn;
		const float *qi = qs + (size_t)i * dk, *kj = ks + (size_t)j * dk, *vj = a->v + (size_t)j * dk;
		// dP_i (n,nk) = dO_i (n,dk) @ V_j^T (dk,nk)
		mm(false, true, n, nk, dk, 1.0f, doi, hw, nh - (size_t)i * dk, vj, gw, ng - (size_t)j * dk,
		        dpi, nk, nn);
		// dV_j (nk,dk) += P_i^T (nk,n) @ dO_i (n,dk)
		mm(true, false, nk, dk, n, 1.0f, pi, nk, nn, doi, hw, nh - (size_t)i * dk, g->work, dk, kdk);
		add_block(g->v + (size_t)j * dk, gw, g->work, nk, dk);
		// dS_i = softmax backward of P_i, dP_i
		softmax_backward(pi, dpi, dsi, n, nk);
		// dQ_i (n,dk) = s dS_i (n,nk) @ K_j (nk,dk)
		mm(false, false, n, dk, nk, s, dsi, nk, nn, kj, gw, ng - (size_t)j * dk, dqi, hw,
		        nh - (size_t)i * dk);
		// dK_j (nk,dk) += s dS_i^T (nk,n) @ Q_i (n,dk)
		mm(true, false, nk, dk, n, s, dsi, nk, nn, qi, hw, nh - (size_t)i * dk, g->work, dk, kdk);
		add_block(g->k + (size_t)j * dk, gw, g->work, nk, dk);
	}
	if (rope) {
		// RoPE is a rotation R_p per row: dQ = R_p^T dQ_rot, turned back by the same angle
		mha_rope_rows(c, g->q, n, 0, c->h, hw, true);
		mha_rope_rows(c, g->k, nk, 0, c->g, gw, true);
	}

	// dW^Q (d,h*dk) = x_l^T (d,n) @ dQ (n,h*dk); dW^K, dW^V from their rows (x_l or X_kv)
	mm(true, false, d, hw, n, 1.0f, a->xin, d, nd, g->q, hw, nh, g->wq, hw, (size_t)d * hw);
	mm(true, false, d, gw, nk, 1.0f, src, d, kd, g->k, gw, ng, g->wk, gw, (size_t)d * gw);
	mm(true, false, d, gw, nk, 1.0f, src, d, kd, g->v, gw, ng, g->wv, gw, (size_t)d * gw);
	// dx_l (n,d) = dQ W^Q^T (+ dK W^K^T + dV W^V^T when K and V came from x_l);
	// dX_kv (m,d) = dK W^K^T + dV W^V^T with cross-attention
	mm(false, true, n, d, hw, 1.0f, g->q, hw, nh, lw->wq, hw, (size_t)d * hw, g->x, d, nd);
	float *dsrc = cross ? g->x_kv : g->x;
	if (cross)
		memset(g->x_kv, 0, kd * sizeof *g->x_kv);
	for (int t = 0; t < 2; t++) {
		const float *dkv = t ? g->v : g->k, *wkv = t ? lw->wv : lw->wk;
		mm(false, true, nk, d, gw, 1.0f, dkv, gw, ng, wkv, gw, (size_t)d * gw, g->work, d, kd);
		for (size_t e = 0; e < kd; e++)
			dsrc[e] += g->work[e];
	}
	// db = 1^T dZ for Z = ... + 1 b: each bias was added to every row
	column_sums(c->bias ? g->q : NULL, n, hw, g->bq);
	column_sums(c->bias ? g->k : NULL, nk, gw, g->bk);
	column_sums(c->bias ? g->v : NULL, nk, gw, g->bv);
	column_sums(c->bias ? dy : NULL, n, d, g->bo);
}

void backward_run(const struct mha_config *c, const struct mha_weights *w,
                  const struct mha_acts *a, const float *dy, struct mha_grads *g, gemm_fn *mm)
{
	struct mha_layer_weights lw = mha_weights_layer(w, 0);
	layer_backward(c, &lw, w->x_kv, a, dy, g, mm);
	// x_0 = X + PE: dX = dx_0, and dP = dx_0 for learned positions (sinusoidal PE has no input)
	const size_t nd = (size_t)c->n * c->d;
	if (c->pos == MHA_POS_LEARNED)
		memcpy(g->pos, g->x, nd * sizeof *g->pos);
	else
		memset(g->pos, 0, nd * sizeof *g->pos);
}

void mha_backward(const struct mha_config *c, const struct mha_weights *w,
                  const struct mha_acts *a, const float *dy, struct mha_grads *g)
{
	backward_run(c, w, a, dy, g, gemm_rm);
}

void mha_backward_half_square(const struct mha_config *c, const struct mha_weights *w,
                              const struct mha_acts *a, struct mha_grads *g)
{
	mha_backward(c, w, a, a->y, g);
}

enum mha_status mha_stack_grads_alloc(struct mha_stack_grads *g, const struct mha_config *c)
{
	memset(g, 0, sizeof *g);
	int layers = c->layers > 1 ? c->layers : 1;
	size_t nd = (size_t)c->n * c->d, md = (size_t)c->m * c->d;
	g->mem = calloc((size_t)(layers + 2) * nd + md, sizeof(float));
	if (!g->mem)
		return MHA_ENOMEM;
	float *f = g->mem;
	g->x = f;      f += nd;
	g->pos = f;    f += nd;
	g->x_kv = f;   f += md;
	g->stream = f;
	for (int l = 0; l < layers; l++)
		if (mha_grads_alloc(&g->layer[l], c) != MHA_OK) {
			mha_stack_grads_free(g);
			return MHA_ENOMEM;
		}
	g->layers = layers;
	return MHA_OK;
}

void mha_stack_grads_free(struct mha_stack_grads *g)
{
	for (int l = 0; l < MHA_MAX_LAYERS; l++)
		if (g->layer[l].mem)
			mha_grads_free(&g->layer[l]);
	free(g->mem);
	memset(g, 0, sizeof *g);
}

void mha_stack_backward(const struct mha_config *c, const struct mha_weights *w,
                        const struct mha_stack *s, const float *dy, struct mha_stack_grads *g)
{
	const int L = g->layers;
	const size_t nd = (size_t)c->n * c->d, md = (size_t)c->m * c->d;
	memset(g->x_kv, 0, md * sizeof *g->x_kv);
	for (int l = L - 1; l >= 0; l--) {
		// the last layer's Y carries the loss; below it dY_l = D_l+1 = dL/dx_l+1
		const float *dyl = l == L - 1 ? dy : g->stream + (size_t)(l + 1) * nd;
		struct mha_layer_weights lw = mha_weights_layer(w, l);
		struct mha_grads *gl = &g->layer[l];
		layer_backward(c, &lw, w->x_kv, &s->layer[l], dyl, gl, gemm_rm);
		// D_l = D_l+1 (the residual x_l+1 = x_l + Y_l) + this layer's dx_l; the stream
		// above the last layer is not in the loss
		float *dl = g->stream + (size_t)l * nd;
		if (l == L - 1)
			memcpy(dl, gl->x, nd * sizeof *dl);
		else
			for (size_t e = 0; e < nd; e++)
				dl[e] = gl->x[e] + dyl[e];
		if (c->m > 0)
			for (size_t e = 0; e < md; e++)
				g->x_kv[e] += gl->x_kv[e];
		memset(gl->pos, 0, nd * sizeof *gl->pos); /* P is the stack's, below */
	}
	// x_0 = X + PE: dX = D_0; dP = D_0 with learned positions
	memcpy(g->x, g->stream, nd * sizeof *g->x);
	if (c->pos == MHA_POS_LEARNED)
		memcpy(g->pos, g->stream, nd * sizeof *g->pos);
	else
		memset(g->pos, 0, nd * sizeof *g->pos);
}

void mha_stack_backward_half_square(const struct mha_config *c, const struct mha_weights *w,
                                    const struct mha_stack *s, struct mha_stack_grads *g)
{
	mha_stack_backward(c, w, s, s->layer[g->layers - 1].y, g);
}
