/*
 * weights.c - the inputs the learner edits: X, W^Q, W^K, W^V, W^O, the
 * biases (used when cfg.bias) and the token labels. Allocation, seeded
 * initialisation, the carry rule used when a shape changes, and the range
 * check. No forward pass here.
 */
#include "mha.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t wq_len(const struct mha_config *c) { return (size_t)c->d * c->h * c->dk; }
static size_t wkv_len(const struct mha_config *c) { return (size_t)c->d * c->g * c->dk; }

enum mha_status mha_weights_alloc(struct mha_weights *w, const struct mha_config *c)
{
	size_t nx = (size_t)c->n * c->d;
	size_t hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t total = nx + 2 * wq_len(c) + 2 * wkv_len(c) + hw + 2 * gw + (size_t)c->d;
	size_t label_bytes = (size_t)c->n * MHA_LABEL_MAX;
	memset(w, 0, sizeof *w);
	char *mem = calloc(1, total * sizeof(float) + label_bytes);
	if (!mem)
		return MHA_ENOMEM;
	float *f = (float *)mem;
	w->x = f;  f += nx;
	w->wq = f; f += wq_len(c);
	w->wk = f; f += wkv_len(c);
	w->wv = f; f += wkv_len(c);
	w->wo = f; f += wq_len(c);
	/* biases: always there (zero until set), used when cfg.bias */
	w->bq = f; f += hw;
	w->bk = f; f += gw;
	w->bv = f; f += gw;
	w->bo = f; f += c->d;
	w->labels = (char (*)[MHA_LABEL_MAX])f;
	w->mem = mem;
	return MHA_OK;
}

void mha_weights_free(struct mha_weights *w)
{
	free(w->mem);
	memset(w, 0, sizeof *w);
}

/* SplitMix64 (Steele, Lea, Flood 2014): tiny, well mixed, and defined by
 * integer arithmetic alone, so a seed gives the same stream everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [-a, a): the top 24 bits give an exact float in [0, 1). */
static void fill_uniform(float *p, size_t len, float a, uint64_t *state)
{
	for (size_t i = 0; i < len; i++) {
		float u = (float)(splitmix64(state) >> 40) / 16777216.0f;
		p[i] = a * (2.0f * u - 1.0f);
	}
}

/* Xavier/Glorot uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)), keeps
 * the variance of activations roughly constant through the product. */
static float glorot(int fan_in, int fan_out)
{
	return sqrtf(6.0f / (float)(fan_in + fan_out));
}

/* X ~ U(-1, 1); each W Glorot-uniform. One stream in the order X, W^Q,
 * W^K, W^V, W^O: the same seed and shape give the same numbers anywhere. */
void mha_weights_init(struct mha_weights *w, struct mha_config *c, uint64_t seed)
{
	uint64_t state = seed;
	fill_uniform(w->x, (size_t)c->n * c->d, 1.0f, &state);
	fill_uniform(w->wq, wq_len(c), glorot(c->d, c->h * c->dk), &state);
	fill_uniform(w->wk, wkv_len(c), glorot(c->d, c->g * c->dk), &state);
	fill_uniform(w->wv, wkv_len(c), glorot(c->d, c->g * c->dk), &state);
	fill_uniform(w->wo, wq_len(c), glorot(c->h * c->dk, c->d), &state);
	c->seed = seed;
}

struct mha_bias mha_bias(const struct mha_weights *w, const struct mha_config *c, int k)
{
	const int hw = c->h * c->dk, gw = c->g * c->dk;
	switch (k) {
	case 0: return (struct mha_bias){ "b^Q", "b_Q", w->bq, hw };
	case 1: return (struct mha_bias){ "b^K", "b_K", w->bk, gw };
	case 2: return (struct mha_bias){ "b^V", "b_V", w->bv, gw };
	default: return (struct mha_bias){ "b^O", "b_O", w->bo, c->d };
	}
}

void mha_biases_init(struct mha_weights *w, const struct mha_config *c, uint64_t seed)
{
	uint64_t state = seed ^ 0xB1A5B1A5B1A5B1A5ull; /* a stream apart from X and the W's */
	for (int k = 0; k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias(w, c, k);
		fill_uniform(b.p, (size_t)b.len, 0.5f, &state);
	}
}

void mha_weights_default_labels(struct mha_weights *w, const struct mha_config *c)
{
	static const char *words[] = {
		"the", "cat", "sat", "on", "the", "mat", "and", "the",
		"dog", "saw", "the", "cat", "on", "the", "big", "mat",
	};
	size_t nwords = sizeof words / sizeof words[0];
	for (int i = 0; i < c->n; i++) {
		if ((size_t)i < nwords)
			snprintf(w->labels[i], MHA_LABEL_MAX, "%s", words[i]);
		else
			snprintf(w->labels[i], MHA_LABEL_MAX, "t%d", i + 1);
	}
}

static int imin(int a, int b) { return a < b ? a : b; }

/* Copy the overlap of two (rows, heads*dk) matrices head block by head
 * block: cell (r, head*dk + j) keeps its value while r, head and j exist in
 * both shapes. */
static void carry_cols(float *dst, int drows, int dheads, int ddk,
                       const float *src, int srows, int sheads, int sdk)
{
	for (int r = 0; r < imin(drows, srows); r++)
		for (int hd = 0; hd < imin(dheads, sheads); hd++)
			for (int j = 0; j < imin(ddk, sdk); j++)
				dst[(size_t)r * dheads * ddk + hd * ddk + j] =
					src[(size_t)r * sheads * sdk + hd * sdk + j];
}

/* The same for W^O, whose head blocks are row blocks (h*dk, d). */
static void carry_rows(float *dst, int dheads, int ddk, int dcols,
                       const float *src, int sheads, int sdk, int scols)
{
	for (int hd = 0; hd < imin(dheads, sheads); hd++)
		for (int j = 0; j < imin(ddk, sdk); j++)
			for (int col = 0; col < imin(dcols, scols); col++)
				dst[(size_t)(hd * ddk + j) * dcols + col] =
					src[(size_t)(hd * sdk + j) * scols + col];
}

/* A matrix whose width (heads * dk) stays the same is only regrouped into
 * other heads, as the reshape does: then every cell keeps its place, and
 * the carry treats it as one block. */
static void head_blocks(int dheads, int ddk, int sheads, int sdk, int *dh, int *dd, int *sh, int *sd)
{
	bool same_width = dheads * ddk == sheads * sdk;
	*dh = same_width ? 1 : dheads;
	*dd = same_width ? dheads * ddk : ddk;
	*sh = same_width ? 1 : sheads;
	*sd = same_width ? sheads * sdk : sdk;
}

void mha_weights_carry(struct mha_weights *dst, const struct mha_config *dc,
                       const struct mha_weights *src, const struct mha_config *sc)
{
	int dh, dd, sh, sd;
	carry_cols(dst->x, dc->n, 1, dc->d, src->x, sc->n, 1, sc->d);
	head_blocks(dc->h, dc->dk, sc->h, sc->dk, &dh, &dd, &sh, &sd);
	carry_cols(dst->wq, dc->d, dh, dd, src->wq, sc->d, sh, sd);
	carry_rows(dst->wo, dh, dd, dc->d, src->wo, sh, sd, sc->d);
	head_blocks(dc->g, dc->dk, sc->g, sc->dk, &dh, &dd, &sh, &sd);
	carry_cols(dst->wk, dc->d, dh, dd, src->wk, sc->d, sh, sd);
	carry_cols(dst->wv, dc->d, dh, dd, src->wv, sc->d, sh, sd);
	for (int i = 0; i < imin(dc->n, sc->n); i++)
		memcpy(dst->labels[i], src->labels[i], MHA_LABEL_MAX);
}

bool mha_label_valid(const char *s)
{
	size_t len = strlen(s);
	if (len == 0 || len >= MHA_LABEL_MAX)
		return false;
	for (size_t i = 0; i < len;) {
		unsigned char ch = (unsigned char)s[i];
		/* sequence length from the lead byte; 0 = not a lead byte */
		size_t n = ch < 0x80 ? 1 : (ch & 0xE0) == 0xC0 ? 2 : (ch & 0xF0) == 0xE0 ? 3
		         : (ch & 0xF8) == 0xF0 ? 4 : 0;
		if (n == 0 || i + n > len || ch <= 0x20 || ch == 0x7f || ch == 0xC0 || ch == 0xC1)
			return false;
		for (size_t k = 1; k < n; k++)
			if (((unsigned char)s[i + k] & 0xC0) != 0x80)
				return false;
		/* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
		unsigned char next = n > 1 ? (unsigned char)s[i + 1] : 0;
		if ((ch == 0xE0 && next < 0xA0) || (ch == 0xED && next >= 0xA0) ||
		    (ch == 0xF0 && next < 0x90) || (ch == 0xF4 && next >= 0x90) || ch > 0xF4)
			return false;
		i += n;
	}
	return true;
}

/* b^Q, b^K, b^V, b^O under the inputs' rule: finite, within MHA_VALUE_MAX. */
static enum mha_status biases_check(const struct mha_weights *w, const struct mha_config *c,
                                    char *msg, size_t len)
{
	for (int k = 0; k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias(w, c, k);
		for (int i = 0; i < b.len; i++)
			if (!isfinite(b.p[i]) || fabsf(b.p[i]) > MHA_VALUE_MAX) {
				snprintf(msg, len, "%s[%d] = %g: inputs must be finite and within +-%g",
				         b.name, i, (double)b.p[i], (double)MHA_VALUE_MAX);
				return MHA_ERANGE;
			}
	}
	if (len > 0)
		msg[0] = '\0';
	return MHA_OK;
}

enum mha_status mha_weights_check(const struct mha_weights *w, const struct mha_config *c,
                                  char *msg, size_t len)
{
	for (enum mha_tensor t = MHA_T_X; t <= MHA_T_WO; t++) {
		struct mha_shape s = mha_tensor_shape(c, t);
		const float *p = mha_tensor_data(w, NULL, t);
		for (int r = 0; r < s.rows; r++) {
			for (int col = 0; col < s.cols; col++) {
				float v = p[(size_t)r * s.cols + col];
				if (isfinite(v) && fabsf(v) <= MHA_VALUE_MAX)
					continue;
				snprintf(msg, len, "%s[%d][%d] = %g: inputs must be finite and within +-%g",
				         mha_tensor_info(t)->name, r, col, (double)v, (double)MHA_VALUE_MAX);
				return MHA_ERANGE;
			}
		}
	}
	if (c->bias)
		return biases_check(w, c, msg, len);
	if (len > 0)
		msg[0] = '\0';
	return MHA_OK;
}
