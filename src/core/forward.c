/*
 * forward.c - one forward pass of multi-head attention, keeping every
 * intermediate for the screen, the dump and the tests: where positions
 * enter (PE added to X, or RoPE after the projection), K and V from X or
 * from a second sequence X_kv, and the residual stream after the layer;
 * mha_stack_forward runs layer after layer on that stream. The same pass runs
 * with OpenBLAS products (mha_forward) or plain loops in double
 * (mha_forward_naive), both with the reference softmax row; only the
 * product differs, so the two can be compared cell by cell. The engine's
 * planned forward (src/engine/plan.c) runs it with its vector softmax
 * row and per-phase clocks at teaching sizes (forward_run in forward.h).
 * Which keys a query sees is mask.c's to say. This file allocates only
 * in mha_acts_alloc.
 */
#include "mha.h"
#include "forward.h"
#include "clock.h"
#include "gemm.h"
#include "mask.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum mha_status mha_acts_alloc(struct mha_acts *a, const struct mha_config *c)
{
	size_t n = (size_t)c->n, nk = (size_t)mha_keys(c), d = (size_t)c->d;
	size_t hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t nn = (size_t)c->h * n * nk;
	/* pe, xin; q, k, v; q_rot, k_rot; scores, weights; heads, concat, y, stream */
	size_t floats = 2 * n * d + n * hw + 2 * nk * gw + n * hw + nk * gw + 2 * nn
	                + (size_t)c->h * n * c->dk + n * hw + 2 * n * d;
	size_t words = (size_t)c->h * n * MHA_KEPT_WORDS(nk);
	memset(a, 0, sizeof *a);
	char *mem = calloc(1, words * sizeof(uint64_t) + floats * sizeof(float) + (size_t)c->h * n);
	if (!mem)
		return MHA_ENOMEM;
	a->kept = (uint64_t *)mem; /* first: calloc's alignment suits the words */
	float *f = (float *)(a->kept + words);
	a->pe = f;      f += n * d;
	a->xin = f;     f += n * d;
	a->q = f;       f += n * hw;
	a->k = f;       f += nk * gw;
	a->v = f;       f += nk * gw;
	a->q_rot = f;   f += n * hw;
	a->k_rot = f;   f += nk * gw;
	a->scores = f;  f += nn;
	a->weights = f; f += nn;
	a->heads = f;   f += (size_t)c->h * n * c->dk;
	a->concat = f;  f += n * hw;
	a->y = f;       f += n * d;
	a->stream = f;  f += n * d;
	a->dead_row = (unsigned char *)f;
	a->mem = mem;
	return MHA_OK;
}

void mha_acts_free(struct mha_acts *a)
{
	free(a->mem);
	memset(a, 0, sizeof *a);
}

static bool softmax_plain(const float *s, float *p, int n, int limit, int top_k, float *work)
{
	(void)work;
	return mha_softmax_row(s, p, n, limit, top_k);
}

/* Is keep[0..n) the prefix [0, kept)? Then the row softmax's limit says it all. */
static bool is_prefix(const unsigned char *keep, int n, int kept)
{
	for (int j = 0; j < n; j++)
		if (keep[j] != (j < kept))
			return false;
	return true;
}

static void bit_set(uint64_t *bits, int j)
{
	bits[j / 64] |= (uint64_t)1 << (j % 64);
}

/* The kept keys of a row whose mask is the prefix [0, limit), after the
 * row softmax wrote p (bits zeroed): all of them when top-k drops none;
 * else top-k keeps exactly top_k keys and a dropped key's weight is
 * exactly 0, so when top_k weights are nonzero their keys are the kept
 * ones, in O(n). Fewer means exp underflowed to 0 for some kept key:
 * then top-k's rank test (mask.h, the row softmax's own) names them. */
static void kept_prefix(const float *s, const float *p, int limit, int top_k, uint64_t *bits)
{
	if (top_k <= 0 || top_k >= limit) {
		/* no key dropped: bits [0, limit) */
		int j = 0;
		for (; j + 64 <= limit; j += 64)
			bits[j / 64] = ~(uint64_t)0;
		if (j < limit)
			bits[j / 64] = ((uint64_t)1 << (limit - j)) - 1;
		return;
	}
	int nonzero = 0;
	for (int j = 0; j < limit; j++)
		if (p[j] != 0.0f) {
			bit_set(bits, j);
			nonzero++;
		}
	if (nonzero == top_k)
		return;
	for (int j = 0; j < limit; j++)
		if (p[j] == 0.0f && mask_in_top_k(s, limit, NULL, top_k, j))
			bit_set(bits, j);
}

/* One row r of P, and its kept keys into bits (MHA_KEPT_WORDS(n) words):
 * a prefix mask (none, causal, a causal window from key 0) goes to the
 * row softmax with its limit and top-k; any other mask to the reference
 * row over mha_mask_row's keep vector, top-k included. extra: the config
 * has a mask beyond causal (mha_mask_extra, asked once per layer); without
 * one the prefix is known without asking mask.c key by key. Beyond the
 * teaching sizes only causal applies (the engine's tiles do the rest). */
static bool softmax_masked(const struct mha_config *c, int r, const float *s, float *p,
                           uint64_t *bits, softmax_fn *softmax, float *work, bool extra)
{
	unsigned char keep[MHA_MAX_TOKENS];
	const int n = mha_keys(c); /* the row's keys */
	memset(bits, 0, MHA_KEPT_WORDS(n) * sizeof *bits);
	int kept = n;
	if (!extra) {
		// no window, padding or cell mask (mha_mask_extra): the kept keys are a
		// prefix, all of them or, causal, keys 0..r (the rule of mask.c's visible)
		kept = c->causal && r + 1 < n ? r + 1 : n;
		bool dead = softmax(s, p, n, kept, c->top_k, work);
		kept_prefix(s, p, kept, c->top_k, bits);
		return dead;
	}
	if (n <= MHA_MAX_TOKENS)
		kept = mha_mask_row(c, r, NULL, keep);
	else if (c->causal)
		kept = r + 1; /* self-attention only: cross-attention has m <= MHA_MAX_TOKENS */
	if (n > MHA_MAX_TOKENS || is_prefix(keep, n, kept)) {
		bool dead = softmax(s, p, n, kept, c->top_k, work);
		kept_prefix(s, p, kept, c->top_k, bits);
		return dead;
	}
	mha_mask_row(c, r, s, keep);
	for (int j = 0; j < n; j++)
		if (keep[j])
			bit_set(bits, j);
	return mha_softmax_keep(s, p, n, keep);
}

void bias_add(float *rows, int n, int width, const float *b)
{
	for (int r = 0; r < n; r++)
		for (int e = 0; e < width; e++)
			rows[(size_t)r * width + e] += b[e];
}

void phase_lap(double *seconds, enum mha_phase st, double *t0)
{
	if (!seconds)
		return;
	double t = clock_wall();
	seconds[st] += t - *t0;
	*t0 = t;
}

/* One layer on a->xin (x_l, filled by the caller): Q from it, K and V
 * from it or from X_kv (cross-attention), RoPE, S, P, O, Concat, Y and
 * the stream x_l+1 = x_l + Y. t0: the phase clock's start. */
static void layer_run(const struct mha_config *c, const struct mha_layer_weights *lw, const float *x_kv,
                      struct mha_acts *a, gemm_fn *mm, softmax_fn *softmax, double *seconds, double *t0)
{
	float work[MHA_MAX_TOKENS]; /* a row that uses it needs nk <= MHA_MAX_TOKENS */
	const int n = c->n, nk = mha_keys(c), d = c->d, dk = c->dk, hw = c->h * c->dk, gw = c->g * c->dk;
	const size_t nd = (size_t)n * d, nh = (size_t)n * hw, ng = (size_t)nk * gw, nn = (size_t)n * nk;
	const size_t kd = (size_t)nk * d;
	const float s = c->scale ? 1.0f / sqrtf((float)dk) : 1.0f;
	const float *src = c->m > 0 ? x_kv : a->xin; /* the rows keys and values come from */

	// Q (n,h*dk) = x_l (n,d) @ W^Q (d,h*dk); K, V (nk,g*dk) = x_l or X_kv (nk,d) @ W^K, W^V
	mm(false, false, n, hw, d, 1.0f, a->xin, d, nd, lw->wq, hw, (size_t)d * hw, a->q, hw, nh);
	mm(false, false, nk, gw, d, 1.0f, src, d, kd, lw->wk, gw, (size_t)d * gw, a->k, gw, ng);
	mm(false, false, nk, gw, d, 1.0f, src, d, kd, lw->wv, gw, (size_t)d * gw, a->v, gw, ng);
	if (c->bias) {
		// Q += 1 b^Q, K += 1 b^K, V += 1 b^V: the same bias on every token's row
		bias_add(a->q, n, hw, lw->bq);
		bias_add(a->k, nk, gw, lw->bk);
		bias_add(a->v, nk, gw, lw->bv);
	}
	const float *qs = a->q, *ks = a->k; /* what the scores read */
	if (c->pos == MHA_POS_ROPE) {
		// Q_rot, K_rot: row r's pairs (2i, 2i+1) turned by (offset + r) theta_i; each
		// sequence counts its positions from the offset. V is not turned
		memcpy(a->q_rot, a->q, nh * sizeof *a->q);
		memcpy(a->k_rot, a->k, ng * sizeof *a->k);
		mha_rope_rows(c, a->q_rot, n, 0, c->h, hw, false);
		mha_rope_rows(c, a->k_rot, nk, 0, c->g, gw, false);
		qs = a->q_rot;
		ks = a->k_rot;
	}
	phase_lap(seconds, MHA_PHASE_PROJECT, t0);

	const bool extra = mha_mask_extra(c); /* a mask beyond causal: row by row through mask.c */
	for (int i = 0; i < c->h; i++) {
		const int j = mha_kv_head(c, i);
		const float *qi = qs + (size_t)i * dk, *kj = ks + (size_t)j * dk, *vj = a->v + (size_t)j * dk;
		float *si = a->scores + i * nn, *pi = a->weights + i * nn, *oi = a->heads + i * (size_t)n * dk;
		// S_i (n,nk) = Q_i (n,dk) @ K_j^T (dk,nk) * s, s = 1/sqrt(dk) or 1
		mm(false, true, n, nk, dk, s, qi, hw, nh - (size_t)i * dk, kj, gw, ng - (size_t)j * dk, si, nk, nn);
		phase_lap(seconds, MHA_PHASE_SCORES, t0);
		// P_i = softmax(mask(S_i)), row by row; the mask is mask.c's
		for (int r = 0; r < n; r++)
			a->dead_row[i * n + r] = softmax_masked(c, r, si + (size_t)r * nk, pi + (size_t)r * nk,
			                                        a->kept + ((size_t)i * n + r) * MHA_KEPT_WORDS(nk),
			                                        softmax, work, extra);
		phase_lap(seconds, MHA_PHASE_SOFTMAX, t0);
		// O_i (n,dk) = P_i (n,nk) @ V_j (nk,dk)
		mm(false, false, n, dk, nk, 1.0f, pi, nk, nn, vj, gw, ng - (size_t)j * dk, oi, dk, (size_t)n * dk);
		// Concat[:, i*dk:(i+1)*dk] = O_i, or 0 for a head switched off
		for (int r = 0; r < n; r++) {
			float *dst = a->concat + (size_t)r * hw + (size_t)i * dk;
			if (c->head_off[i])
				memset(dst, 0, (size_t)dk * sizeof *dst);
			else
				memcpy(dst, oi + (size_t)r * dk, (size_t)dk * sizeof *dst);
		}
		phase_lap(seconds, MHA_PHASE_WEIGHTED, t0);
	}
	// Y (n,d) = Concat (n,h*dk) @ W^O (h*dk,d)
	mm(false, false, n, d, hw, 1.0f, a->concat, hw, nh, lw->wo, d, (size_t)hw * d, a->y, d, nd);
	if (c->bias)
		bias_add(a->y, n, d, lw->bo); // Y += 1 b^O
	// x_l+1 (n,d) = x_l + Y: the residual stream after the layer
	for (size_t e = 0; e < nd; e++)
		a->stream[e] = a->xin[e] + a->y[e];
	phase_lap(seconds, MHA_PHASE_OUTPUT, t0);
}

void forward_run(const struct mha_config *c, const struct mha_weights *w,
                 struct mha_acts *a, gemm_fn *mm, softmax_fn *softmax, double *seconds)
{
	double t0 = seconds ? clock_wall() : 0.0;
	const size_t nd = (size_t)c->n * c->d;
	// x_0 (n,d) = X + PE: where sinusoidal or learned positions enter
	if (c->pos == MHA_POS_SINUSOIDAL || c->pos == MHA_POS_LEARNED) {
		mha_pos_encoding(c, w->pos, a->pe);
		for (size_t e = 0; e < nd; e++)
			a->xin[e] = w->x[e] + a->pe[e];
	} else {
		/* PE = 0: X as it is (a copy, not X + 0, which would turn -0 into +0) */
		memset(a->pe, 0, nd * sizeof *a->pe);
		memcpy(a->xin, w->x, nd * sizeof *a->xin);
	}
	struct mha_layer_weights lw = mha_weights_layer(w, 0);
	layer_run(c, &lw, w->x_kv, a, mm, softmax, seconds, &t0);
}

void stack_run(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s,
               gemm_fn *mm, softmax_fn *softmax, double *seconds)
{
	forward_run(c, w, &s->layer[0], mm, softmax, seconds);
	const size_t nd = (size_t)c->n * c->d;
	for (int l = 1; l < s->layers; l++) {
		double t0 = seconds ? clock_wall() : 0.0;
		struct mha_acts *a = &s->layer[l];
		// x_l = x_l-1 + Y_l-1, the stream the layer below wrote; PE entered in layer 0 only
		memset(a->pe, 0, nd * sizeof *a->pe);
		memcpy(a->xin, s->layer[l - 1].stream, nd * sizeof *a->xin);
		struct mha_layer_weights lw = mha_weights_layer(w, l);
		layer_run(c, &lw, w->x_kv, a, mm, softmax, seconds, &t0);
	}
}

void mha_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a)
{
	forward_run(c, w, a, gemm_rm, softmax_plain, NULL);
}

void mha_forward_naive(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a)
{
	forward_run(c, w, a, gemm_rm_naive, softmax_plain, NULL);
}

enum mha_status mha_stack_alloc(struct mha_stack *s, const struct mha_config *c)
{
	memset(s, 0, sizeof *s);
	int layers = c->layers > 1 ? c->layers : 1;
	for (int l = 0; l < layers; l++)
		if (mha_acts_alloc(&s->layer[l], c) != MHA_OK) {
			mha_stack_free(s);
			return MHA_ENOMEM;
		}
	s->layers = layers;
	return MHA_OK;
}

void mha_stack_free(struct mha_stack *s)
{
	for (int l = 0; l < MHA_MAX_LAYERS; l++)
		if (s->layer[l].mem)
			mha_acts_free(&s->layer[l]);
	memset(s, 0, sizeof *s);
}

void mha_stack_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s)
{
	stack_run(c, w, s, gemm_rm, softmax_plain, NULL);
}

void mha_stack_forward_naive(const struct mha_config *c, const struct mha_weights *w, struct mha_stack *s)
{
	stack_run(c, w, s, gemm_rm_naive, softmax_plain, NULL);
}
