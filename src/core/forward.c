/*
 * forward.c - one forward pass of multi-head attention, keeping every
 * intermediate for the screen, the dump and the tests. The same pass runs
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
#include "gemm.h"
#include "mask.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum mha_status mha_acts_alloc(struct mha_acts *a, const struct mha_config *c)
{
	size_t n = (size_t)c->n, hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t nn = (size_t)c->h * n * n;
	size_t floats = n * hw + 2 * n * gw + 2 * nn + (size_t)c->h * n * c->dk + n * hw + n * c->d;
	size_t words = (size_t)c->h * n * MHA_KEPT_WORDS(n);
	memset(a, 0, sizeof *a);
	char *mem = calloc(1, words * sizeof(uint64_t) + floats * sizeof(float) + (size_t)c->h * n);
	if (!mem)
		return MHA_ENOMEM;
	a->kept = (uint64_t *)mem; /* first: calloc's alignment suits the words */
	float *f = (float *)(a->kept + words);
	a->q = f;       f += n * hw;
	a->k = f;       f += n * gw;
	a->v = f;       f += n * gw;
	a->scores = f;  f += nn;
	a->weights = f; f += nn;
	a->heads = f;   f += (size_t)c->h * n * c->dk;
	a->concat = f;  f += n * hw;
	a->y = f;       f += n * c->d;
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
 * row over mha_mask_row's keep vector, top-k included. Beyond the
 * teaching sizes only causal applies (the engine's tiles do the rest). */
static bool softmax_masked(const struct mha_config *c, int r, const float *s, float *p,
                           uint64_t *bits, softmax_fn *softmax, float *work)
{
	unsigned char keep[MHA_MAX_TOKENS];
	const int n = c->n;
	memset(bits, 0, MHA_KEPT_WORDS(n) * sizeof *bits);
	int kept = n;
	if (n <= MHA_MAX_TOKENS)
		kept = mha_mask_row(c, r, NULL, keep);
	else if (c->causal)
		kept = r + 1;
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

double phase_clock(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void phase_lap(double *seconds, enum mha_phase st, double *t0)
{
	if (!seconds)
		return;
	double t = phase_clock();
	seconds[st] += t - *t0;
	*t0 = t;
}

void forward_run(const struct mha_config *c, const struct mha_weights *w,
                 struct mha_acts *a, gemm_fn *mm, softmax_fn *softmax, double *seconds)
{
	float work[MHA_MAX_TOKENS]; /* a row that uses it needs n <= MHA_MAX_TOKENS */
	double t0 = seconds ? phase_clock() : 0.0;
	const int n = c->n, d = c->d, dk = c->dk, hw = c->h * c->dk, gw = c->g * c->dk;
	const size_t nd = (size_t)n * d, nh = (size_t)n * hw, ng = (size_t)n * gw, nn = (size_t)n * n;
	const float s = c->scale ? 1.0f / sqrtf((float)dk) : 1.0f;

	// Q (n,h*dk) = X (n,d) @ W^Q (d,h*dk); K, V (n,g*dk) likewise
	mm(false, false, n, hw, d, 1.0f, w->x, d, nd, w->wq, hw, (size_t)d * hw, a->q, hw, nh);
	mm(false, false, n, gw, d, 1.0f, w->x, d, nd, w->wk, gw, (size_t)d * gw, a->k, gw, ng);
	mm(false, false, n, gw, d, 1.0f, w->x, d, nd, w->wv, gw, (size_t)d * gw, a->v, gw, ng);
	if (c->bias) {
		// Q += 1 b^Q, K += 1 b^K, V += 1 b^V: the same bias on every token's row
		bias_add(a->q, n, hw, w->bq);
		bias_add(a->k, n, gw, w->bk);
		bias_add(a->v, n, gw, w->bv);
	}
	phase_lap(seconds, MHA_PHASE_PROJECT, &t0);

	for (int i = 0; i < c->h; i++) {
		const int j = mha_kv_head(c, i);
		const float *qi = a->q + (size_t)i * dk, *kj = a->k + (size_t)j * dk, *vj = a->v + (size_t)j * dk;
		float *si = a->scores + i * nn, *pi = a->weights + i * nn, *oi = a->heads + i * (size_t)n * dk;
		// S_i (n,n) = Q_i (n,dk) @ K_j^T (dk,n) * s, s = 1/sqrt(dk) or 1
		mm(false, true, n, n, dk, s, qi, hw, nh - (size_t)i * dk, kj, gw, ng - (size_t)j * dk, si, n, nn);
		phase_lap(seconds, MHA_PHASE_SCORES, &t0);
		// P_i = softmax(mask(S_i)), row by row; the mask is mask.c's
		for (int r = 0; r < n; r++)
			a->dead_row[i * n + r] = softmax_masked(c, r, si + (size_t)r * n, pi + (size_t)r * n,
			                                        a->kept + ((size_t)i * n + r) * MHA_KEPT_WORDS(n),
			                                        softmax, work);
		phase_lap(seconds, MHA_PHASE_SOFTMAX, &t0);
		// O_i (n,dk) = P_i (n,n) @ V_j (n,dk)
		mm(false, false, n, dk, n, 1.0f, pi, n, nn, vj, gw, ng - (size_t)j * dk, oi, dk, (size_t)n * dk);
		// Concat[:, i*dk:(i+1)*dk] = O_i, or 0 for a head switched off
		for (int r = 0; r < n; r++) {
			float *dst = a->concat + (size_t)r * hw + (size_t)i * dk;
			if (c->head_off[i])
				memset(dst, 0, (size_t)dk * sizeof *dst);
			else
				memcpy(dst, oi + (size_t)r * dk, (size_t)dk * sizeof *dst);
		}
		phase_lap(seconds, MHA_PHASE_WEIGHTED, &t0);
	}
	// Y (n,d) = Concat (n,h*dk) @ W^O (h*dk,d)
	mm(false, false, n, d, hw, 1.0f, a->concat, hw, nh, w->wo, d, (size_t)hw * d, a->y, d, nd);
	if (c->bias)
		bias_add(a->y, n, d, w->bo); // Y += 1 b^O
	phase_lap(seconds, MHA_PHASE_OUTPUT, &t0);
}

void mha_forward(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a)
{
	forward_run(c, w, a, gemm_rm, softmax_plain, NULL);
}

void mha_forward_naive(const struct mha_config *c, const struct mha_weights *w, struct mha_acts *a)
{
	forward_run(c, w, a, gemm_rm_naive, softmax_plain, NULL);
}
