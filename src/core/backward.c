/*
 * backward.c - gradients of the multi-head attention block, stage by stage
 * in reverse (see grad.h for the formulas, one per field). Products go
 * through gemm_rm (OpenBLAS, or plain loops with -Dblas=reference); the
 * softmax backward is a loop. This file does not compute a loss (the
 * caller brings dL/dY), does not update weights, and never allocates
 * outside mha_grads_alloc.
 */
#include "grad.h"
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum mha_status mha_grads_alloc(struct mha_grads *g, const struct mha_config *c)
{
	size_t n = (size_t)c->n, d = (size_t)c->d, hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t nn = (size_t)c->h * n * n;
	size_t floats = n * d + d * hw + 2 * d * gw + hw * d + n * hw + 2 * nn + n * hw + 2 * n * gw
	                + n * (size_t)(c->dk > c->d ? c->dk : c->d) + hw + 2 * gw + d;
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
	g->k = f;       f += n * gw;
	g->v = f;       f += n * gw;
	g->bq = f;      f += hw;
	g->bk = f;      f += gw;
	g->bv = f;      f += gw;
	g->bo = f;      f += d;
	g->work = f;
	return MHA_OK;
}

void mha_grads_free(struct mha_grads *g)
{
	free(g->mem);
	memset(g, 0, sizeof *g);
}

/* dst block (n, dk) with row stride ld += src (n, dk) packed */
static void add_block(float *dst, int ld, const float *src, int n, int dk)
{
	for (int r = 0; r < n; r++)
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
static void softmax_backward(const float *p, const float *dp, float *ds, int n)
{
	for (int r = 0; r < n; r++) {
		const float *pr = p + (size_t)r * n, *dpr = dp + (size_t)r * n;
		float *dsr = ds + (size_t)r * n;
		double dot = 0.0;
		for (int col = 0; col < n; col++)
			dot += (double)pr[col] * dpr[col];
		for (int col = 0; col < n; col++)
			dsr[col] = pr[col] * (dpr[col] - (float)dot);
	}
}

void mha_backward(const struct mha_config *c, const struct mha_weights *w,
                  const struct mha_acts *a, const float *dy, struct mha_grads *g)
{
	const int n = c->n, d = c->d, dk = c->dk, hw = c->h * c->dk, gw = c->g * c->dk;
	const size_t nd = (size_t)n * d, nh = (size_t)n * hw, ng = (size_t)n * gw, nn = (size_t)n * n;
	const size_t ndk = (size_t)n * dk;
	const float s = c->scale ? 1.0f / sqrtf((float)dk) : 1.0f;

	// dW^O (h*dk,d) = Concat^T (h*dk,n) @ dY (n,d)
	gemm_rm(true, false, hw, d, n, 1.0f, a->concat, hw, nh, dy, d, nd, g->wo, d, (size_t)hw * d);
	// dConcat (n,h*dk) = dY (n,d) @ W^O^T (d,h*dk)
	gemm_rm(false, true, n, hw, d, 1.0f, dy, d, nd, w->wo, d, (size_t)hw * d, g->concat, hw, nh);

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
		const float *qi = a->q + (size_t)i * dk, *kj = a->k + (size_t)j * dk, *vj = a->v + (size_t)j * dk;
		// dP_i (n,n) = dO_i (n,dk) @ V_j^T (dk,n)
		gemm_rm(false, true, n, n, dk, 1.0f, doi, hw, nh - (size_t)i * dk, vj, gw, ng - (size_t)j * dk,
		        dpi, n, nn);
		// dV_j (n,dk) += P_i^T (n,n) @ dO_i (n,dk)
		gemm_rm(true, false, n, dk, n, 1.0f, pi, n, nn, doi, hw, nh - (size_t)i * dk, g->work, dk, ndk);
		add_block(g->v + (size_t)j * dk, gw, g->work, n, dk);
		// dS_i = softmax backward of P_i, dP_i
		softmax_backward(pi, dpi, dsi, n);
		// dQ_i (n,dk) = s dS_i (n,n) @ K_j (n,dk)
		gemm_rm(false, false, n, dk, n, s, dsi, n, nn, kj, gw, ng - (size_t)j * dk, dqi, hw,
		        nh - (size_t)i * dk);
		// dK_j (n,dk) += s dS_i^T (n,n) @ Q_i (n,dk)
		gemm_rm(true, false, n, dk, n, s, dsi, n, nn, qi, hw, nh - (size_t)i * dk, g->work, dk, ndk);
		add_block(g->k + (size_t)j * dk, gw, g->work, n, dk);
	}

	// dW^Q (d,h*dk) = X^T (d,n) @ dQ (n,h*dk); dW^K, dW^V likewise
	gemm_rm(true, false, d, hw, n, 1.0f, w->x, d, nd, g->q, hw, nh, g->wq, hw, (size_t)d * hw);
	gemm_rm(true, false, d, gw, n, 1.0f, w->x, d, nd, g->k, gw, ng, g->wk, gw, (size_t)d * gw);
	gemm_rm(true, false, d, gw, n, 1.0f, w->x, d, nd, g->v, gw, ng, g->wv, gw, (size_t)d * gw);
	// dX (n,d) = dQ W^Q^T + dK W^K^T + dV W^V^T
	gemm_rm(false, true, n, d, hw, 1.0f, g->q, hw, nh, w->wq, hw, (size_t)d * hw, g->x, d, nd);
	for (int t = 0; t < 2; t++) {
		const float *dkv = t ? g->v : g->k, *wkv = t ? w->wv : w->wk;
		gemm_rm(false, true, n, d, gw, 1.0f, dkv, gw, ng, wkv, gw, (size_t)d * gw, g->work, d, nd);
		for (size_t e = 0; e < nd; e++)
			g->x[e] += g->work[e];
	}
	// db = 1^T dZ for Z = ... + 1 b: each bias was added to every row
	column_sums(c->bias ? g->q : NULL, n, hw, g->bq);
	column_sums(c->bias ? g->k : NULL, n, gw, g->bk);
	column_sums(c->bias ? g->v : NULL, n, gw, g->bv);
	column_sums(c->bias ? dy : NULL, n, d, g->bo);
}

void mha_backward_half_square(const struct mha_config *c, const struct mha_weights *w,
                              const struct mha_acts *a, struct mha_grads *g)
{
	mha_backward(c, w, a, a->y, g);
}
