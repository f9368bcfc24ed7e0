/*
 * softmax.c - one row of masked, top-k softmax: mha_softmax_row (and
 * mha_softmax_keep for any mask), the plain reference (expf, double sum,
 * mask.c's O(n^2) top-k rank test) that the forwards of the core and the
 * tests trust. The engine's vector row with the same contract is
 * src/engine/softmax_fast.c.
 * No products here, and no allocation.
 */
#include "mha.h"
#include "mask.h"

#include <math.h>

/* The reference row over the keys j < limit with keep[j] != 0 (keep may
 * be NULL: all of them), top-k among those (mask.h's rank test). */
static bool softmax_ref(const float *s, float *p, int n, int limit,
                        const unsigned char *keep, int top_k)
{
	if (limit > n)
		limit = n;
	float m = -INFINITY;
	int kept = 0;
	for (int j = 0; j < n; j++) {
		p[j] = 0.0f; /* 0 marks a masked key; 1 a kept one, for now */
		if (j >= limit || (keep && !keep[j]) ||
		    (top_k > 0 && !mask_in_top_k(s, limit, keep, top_k, j)))
			continue;
		p[j] = 1.0f;
		kept++;
		if (s[j] > m || isnan(s[j]))
			m = s[j];
	}
	if (kept == 0)
		return true;
	/* Subtract the row max: softmax is shift-invariant, and exp(s) would
	 * overflow for s > 88. With finite scores, s_j - m <= 0, so every
	 * term is in (0, 1] and the sum in [1, n]: the result stays finite.
	 * An infinite max (overflowed products) shares the weight among
	 * the scores equal to it, instead of computing inf - inf = NaN. */
	double sum = 0.0;
	for (int j = 0; j < n; j++) {
		if (p[j] == 0.0f)
			continue;
		float e = isinf(m) ? (s[j] == m ? 1.0f : 0.0f) : expf(s[j] - m);
		p[j] = e;
		sum += e;
	}
	float inv = (float)(1.0 / sum);
	for (int j = 0; j < n; j++)
		p[j] *= inv;
	return false;
}

bool mha_softmax_row(const float *s, float *p, int n, int limit, int top_k)
{
	return softmax_ref(s, p, n, limit, NULL, top_k);
}

bool mha_softmax_keep(const float *s, float *p, int n, const unsigned char *keep)
{
	return softmax_ref(s, p, n, n, keep, 0);
}
