/*
 * mask.c - which keys each query sees: causal, sliding window, padding,
 * a custom cell-by-cell mask, and top-k after them (mha_mask_row in
 * mha.h documents the rules). Every forward, the dump, the counts and the
 * screen ask these functions, so a rule lives in exactly one place. No
 * softmax and no products here, and no allocation.
 */
#include "mha.h"
#include "mask.h"

/* Bits 0..n-1 (all 64 when n >= 64): masks ignore bits at or past n. */
static uint64_t low_bits(int n)
{
	return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

static bool bit(uint64_t word, int j)
{
	return j >= 0 && j < 64 && ((word >> j) & 1u);
}

bool mha_is_pad(const struct mha_config *c, int t)
{
	return t < mha_keys(c) && bit(c->pad, t);
}

bool mha_mask_extra(const struct mha_config *c)
{
	const int nk = mha_keys(c);
	if ((c->pad & low_bits(nk)) || c->window > 0)
		return true;
	for (int i = 0; i < c->n && i < MHA_MAX_TOKENS; i++)
		if (c->hide[i] & low_bits(nk))
			return true;
	return false;
}

void mha_mask_set(struct mha_config *c, int i, int j, bool hidden)
{
	if (i < 0 || i >= MHA_MAX_TOKENS || j < 0 || j >= 64)
		return;
	if (hidden)
		c->hide[i] |= (uint64_t)1 << j;
	else
		c->hide[i] &= ~((uint64_t)1 << j);
}

/* The structural mask: may query i see key j? (j a token of X_kv with
 * cross-attention: positions of both sequences from 0.) */
static bool visible(const struct mha_config *c, int i, int j)
{
	if (c->causal && j > i)
		return false;
	if (c->window > 0) {
		// causal window: i-w+1 <= j <= i; without causality a band |i-j| < w
		int dist = i > j ? i - j : j - i;
		if (dist >= c->window)
			return false;
	}
	if (bit(c->pad, j))
		return false;
	return !(i < MHA_MAX_TOKENS && bit(c->hide[i], j));
}

bool mask_in_top_k(const float *s, int limit, const unsigned char *keep, int top_k, int j)
{
	int above = 0;
	for (int t = 0; t < limit && above < top_k; t++)
		if ((!keep || keep[t]) && (s[t] > s[j] || (s[t] == s[j] && t < j)))
			above++;
	return above < top_k;
}

int mha_mask_row(const struct mha_config *c, int i, const float *s, unsigned char *keep)
{
	const int n = mha_keys(c); /* the keys: X's tokens, or X_kv's */
	int kept = 0;
	for (int j = 0; j < n; j++) {
		keep[j] = visible(c, i, j);
		kept += keep[j];
	}
	if (!s || c->top_k <= 0 || kept <= c->top_k)
		return kept;
	/* top-k among the kept keys: 2 marks "kept by the mask, dropped by
	 * top-k" so that every key is still ranked against the same set */
	for (int j = 0; j < n; j++)
		if (keep[j] && !mask_in_top_k(s, n, keep, c->top_k, j))
			keep[j] = 2;
	kept = 0;
	for (int j = 0; j < n; j++) {
		keep[j] = keep[j] == 1;
		kept += keep[j];
	}
	return kept; /* top_k, or more where NaN scores cannot be ranked */
}
