/*
 * softmax_fast.c - softmax_row_fast (softmax_fast.h): mha_softmax_row's
 * contract with the vector kernels of vexp.h and an O(n) top-k selection,
 * for the engine's paths. Rows with NaN or an infinite maximum are rare
 * and subtle, so it hands them to the reference instead of repeating its
 * rules. No products here, and no allocation: scratch comes from the caller.
 */
#include "mha.h"
#include "softmax_fast.h"
#include "vexp.h"

#include <math.h>
#include <string.h>

float softmax_select_desc(float *w, int len, int k)
{
	int lo = 0, hi = len - 1;
	while (lo < hi) {
		float pivot = w[lo + (hi - lo) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (w[i] > pivot)
				i++;
			while (w[j] < pivot)
				j--;
			if (i <= j) {
				float t = w[i];
				w[i++] = w[j];
				w[j--] = t;
			}
		}
		/* now w[lo..j] >= pivot, w[i..hi] <= pivot, and between them == pivot */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return w[k];
	}
	return w[k];
}

/* work[j] = s_j - m for the top_k kept keys of s[0..limit), -inf for the
 * rest (exp turns it into exactly 0). The threshold v is the top_k-th
 * largest score: every score above v is kept, and of those equal to v
 * the lowest-indexed ones fill the remaining places, as in_top_k does. */
static void top_k_shifted(const float *s, int limit, int top_k, float m, float *work)
{
	memcpy(work, s, (size_t)limit * sizeof *work);
	float v = softmax_select_desc(work, limit, top_k - 1);
	int ties = top_k;
	for (int j = 0; j < limit; j++)
		ties -= s[j] > v;
	for (int j = 0; j < limit; j++)
		work[j] = s[j] > v || (s[j] == v && ties-- > 0) ? s[j] - m : -INFINITY;
}

bool softmax_row_fast(const float *s, float *p, int n, int limit, int top_k,
                      float *work, float *inv)
{
	if (limit > n)
		limit = n;
	if (limit <= 0) {
		memset(p, 0, (size_t)n * sizeof *p);
		if (inv)
			*inv = 0.0f;
		return true;
	}
	bool nan;
	float m = vexp_max(s, (size_t)limit, &nan);
	if (nan || isinf(m)) {
		/* the reference's rules for NaN and infinite scores */
		memcpy(work, s, (size_t)n * sizeof *work);
		bool dead = mha_softmax_row(work, p, n, limit, top_k);
		if (inv)
			*inv = dead ? 0.0f : 1.0f;
		return dead;
	}
	// p_j = exp(s_j - m), m = max over kept keys: every term in (0, 1]
	float sum;
	if (top_k > 0 && top_k < limit) {
		top_k_shifted(s, limit, top_k, m, work);
		sum = vexp_shift_sum(work, 0.0f, p, (size_t)limit);
	} else {
		sum = vexp_shift_sum(s, m, p, (size_t)limit);
	}
	memset(p + limit, 0, (size_t)(n - limit) * sizeof *p);
	/* sum >= 1: the maximum contributes exp(0) = 1 */
	float r = 1.0f / sum;
	if (inv)
		*inv = r;
	else
		vexp_scale(p, (size_t)limit, r);
	return false;
}
