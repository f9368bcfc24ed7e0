/*
 * decode.c - prefill and token-by-token decode with a growing K/V cache
 * (mha_decoder_* in mha.h). Each step projects one token (x_t + PE_t),
 * appends its K and V rows (K turned by RoPE), and attends its query over
 * the cached keys (cross-attention: the source's, cached once), with the plain
 * loops of mha_forward_naive (gemm_rm_naive, the reference softmax row) so
 * that its rows equal that pass's bit for bit. The mask is mask.c's. No
 * BLAS speed here: a step is a few vector products at teaching sizes, and
 * the point is to see the cache fill and compare the costs.
 */
#include "mha.h"
#include "forward.h"
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mha_status mha_decoder_alloc(struct mha_decoder *dec, const struct mha_config *c)
{
	size_t cap = (size_t)mha_keys(c), hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t floats = 2 * cap * gw + (size_t)c->d + hw + 2 * (size_t)c->h * cap + hw + (size_t)c->d;
	memset(dec, 0, sizeof *dec);
	char *mem = calloc(1, floats * sizeof(float) + (size_t)c->h);
	if (!mem)
		return MHA_ENOMEM;
	float *f = (float *)mem;
	dec->k = f;       f += cap * gw;
	dec->v = f;       f += cap * gw;
	dec->x = f;       f += c->d;
	dec->q = f;       f += hw;
	dec->scores = f;  f += (size_t)c->h * cap;
	dec->weights = f; f += (size_t)c->h * cap;
	dec->concat = f;  f += hw;
	dec->y = f;       f += c->d;
	dec->dead = (unsigned char *)f;
	dec->cap = c->n;
	dec->mem = mem;
	return MHA_OK;
}

void mha_decoder_free(struct mha_decoder *dec)
{
	free(dec->mem);
	memset(dec, 0, sizeof *dec);
}

void mha_decoder_reset(struct mha_decoder *dec)
{
	dec->len = 0;
	dec->keys = 0;
}

static enum mha_status room(const struct mha_decoder *dec, const struct mha_config *c, int count,
                            char *msg, size_t len)
{
	if (!c->causal && c->m == 0) {
		snprintf(msg, len, "decoding needs the causal mask: a token cannot see keys not made yet");
		return MHA_EINVAL;
	}
	if (c->layers > 1) {
		snprintf(msg, len, "decoding runs one layer: this configuration has %d (a stack keeps a "
		         "cache per layer)", c->layers);
		return MHA_EINVAL;
	}
	if (count < 1 || dec->len + count > dec->cap || dec->cap != c->n) {
		snprintf(msg, len, "%d more token(s) do not fit: %d of %d cached", count, dec->len, dec->cap);
		return MHA_EINVAL;
	}
	if (len > 0)
		msg[0] = '\0';
	return MHA_OK;
}

// dec->x (1,d) = x_t + PE_t: the row the forward's x_0 holds
static void input_row(struct mha_decoder *dec, const struct mha_config *c, const struct mha_weights *w,
                      const float *x, int t)
{
	if (c->pos == MHA_POS_SINUSOIDAL || c->pos == MHA_POS_LEARNED) {
		mha_pos_encoding_row(c, w->pos, t, dec->x);
		for (int e = 0; e < c->d; e++)
			dec->x[e] = x[e] + dec->x[e];
	} else {
		memcpy(dec->x, x, (size_t)c->d * sizeof *dec->x);
	}
}

// K, V rows of key t (1, g*dk) = x (1,d) @ W^K, W^V (d, g*dk) (+ b); K turned at t with RoPE
static void project_key(struct mha_decoder *dec, const struct mha_config *c, const struct mha_weights *w,
                        const float *x, int t)
{
	const int d = c->d, gw = c->g * c->dk;
	float *k = dec->k + (size_t)t * gw, *v = dec->v + (size_t)t * gw;
	gemm_rm_naive(false, false, 1, gw, d, 1.0f, x, d, (size_t)d, w->wk, gw, (size_t)d * gw, k, gw, (size_t)gw);
	gemm_rm_naive(false, false, 1, gw, d, 1.0f, x, d, (size_t)d, w->wv, gw, (size_t)d * gw, v, gw, (size_t)gw);
	if (c->bias) {
		bias_add(k, 1, gw, w->bk);
		bias_add(v, 1, gw, w->bv);
	}
	if (c->pos == MHA_POS_ROPE)
		mha_rope_rows(c, k, 1, t, c->g, gw, false);
}

// the cache's new rows: tokens [t0, t0+count) of X (+ PE) one by one (the plain loops
// give each row what one product of them all would); cross-attention: X_kv's rows, once
static void project_kv(struct mha_decoder *dec, const struct mha_config *c,
                       const struct mha_weights *w, int t0, int count)
{
	if (c->m > 0) {
		/* the source is all there before the first token; PE is X's, not its */
		for (int j = dec->keys; j < c->m; j++)
			project_key(dec, c, w, w->x_kv + (size_t)j * c->d, j);
		dec->keys = c->m;
		return;
	}
	for (int t = t0; t < t0 + count; t++) {
		input_row(dec, c, w, w->x + (size_t)t * c->d, t);
		project_key(dec, c, w, dec->x, t);
	}
	dec->keys = t0 + count;
}

/* Token t = dec->len - 1, whose K and V are cached (or the source's): its
 * query and outputs. */
static void attend_last(struct mha_decoder *dec, const struct mha_config *c, const struct mha_weights *w)
{
	const int t = dec->len - 1, keys = dec->keys, d = c->d, dk = c->dk;
	const int hw = c->h * dk, gw = c->g * dk, cap = mha_keys(c);
	const float s = c->scale ? 1.0f / sqrtf((float)dk) : 1.0f;
	unsigned char keep[MHA_MAX_TOKENS];
	// q_t (1,h*dk) = (x_t + PE_t) (1,d) @ W^Q (d,h*dk), turned at position t with RoPE
	input_row(dec, c, w, w->x + (size_t)t * d, t);
	gemm_rm_naive(false, false, 1, hw, d, 1.0f, dec->x, d, (size_t)d,
	              w->wq, hw, (size_t)d * hw, dec->q, hw, (size_t)hw);
	if (c->bias)
		bias_add(dec->q, 1, hw, w->bq);
	if (c->pos == MHA_POS_ROPE)
		mha_rope_rows(c, dec->q, 1, t, c->h, hw, false);
	for (int i = 0; i < c->h; i++) {
		const int j = mha_kv_head(c, i);
		float *si = dec->scores + (size_t)i * cap, *pi = dec->weights + (size_t)i * cap;
		float *oi = dec->concat + (size_t)i * dk;
		// s_i (1,keys) = q_t,i (1,dk) @ K_j[0..keys)^T (dk,keys) * s
		gemm_rm_naive(false, true, 1, keys, dk, s, dec->q + (size_t)i * dk, dk, (size_t)dk,
		              dec->k + (size_t)j * dk, gw, (size_t)keys * gw - (size_t)j * dk, si, keys, (size_t)keys);
		memset(si + keys, 0, (size_t)(cap - keys) * sizeof *si);
		// p_i = softmax(mask(s_i)): row t of the full pass's mask, top-k on these scores
		mha_mask_row(c, t, si, keep);
		dec->dead[i] = mha_softmax_keep(si, pi, keys, keep);
		memset(pi + keys, 0, (size_t)(cap - keys) * sizeof *pi);
		// o_i (1,dk) = p_i (1,keys) @ V_j[0..keys) (keys,dk), or 0 for a head switched off
		if (c->head_off[i])
			memset(oi, 0, (size_t)dk * sizeof *oi);
		else
			gemm_rm_naive(false, false, 1, dk, keys, 1.0f, pi, keys, (size_t)keys,
			              dec->v + (size_t)j * dk, gw, (size_t)keys * gw - (size_t)j * dk,
			              oi, dk, (size_t)dk);
	}
	// y_t (1,d) = concat (1,h*dk) @ W^O (h*dk,d)
	gemm_rm_naive(false, false, 1, d, hw, 1.0f, dec->concat, hw, (size_t)hw,
	              w->wo, d, (size_t)hw * d, dec->y, d, (size_t)d);
	if (c->bias)
		bias_add(dec->y, 1, d, w->bo);
}

enum mha_status mha_decoder_prefill(struct mha_decoder *dec, const struct mha_config *c,
                                    const struct mha_weights *w, int count, char *msg, size_t len)
{
	enum mha_status st = room(dec, c, count, msg, len);
	if (st != MHA_OK)
		return st;
	project_kv(dec, c, w, dec->len, count);
	dec->len += count;
	attend_last(dec, c, w);
	return MHA_OK;
}

enum mha_status mha_decoder_step(struct mha_decoder *dec, const struct mha_config *c,
                                 const struct mha_weights *w)
{
	char msg[MHA_MSG_MAX];
	return mha_decoder_prefill(dec, c, w, 1, msg, sizeof msg);
}

struct mha_decode_cost mha_decode_cost(const struct mha_config *c, int t)
{
	struct mha_decode_cost k;
	int64_t d = c->d, h = c->h, g = c->g, dk = c->dk;
	/* cross-attention: the m source rows were projected before the first step */
	int64_t keys = c->m > 0 ? c->m : (int64_t)t + 1, kv_rows = c->m > 0 ? 0 : 1;
	k.step_flops = 2 * d * (h + 2 * g * kv_rows) * dk + 4 * h * dk * keys + 5 * h * keys + 2 * h * dk * d;
	struct mha_config full = *c;
	full.n = t + 1;
	k.recompute_flops = mha_counts(&full).flops_total;
	k.cache_values = 2 * g * dk * keys;
	return k;
}
