/*
 * kvdec.c - the decode step at scale (mha_kvdec_* in engine.h): a K/V
 * cache laid out for being read once per step, and one token's attention
 * over it. For each kv head j, the h / g query heads that share it are
 * the rows of one small problem (GQA's saving is exactly that they read
 * j's cache together): blocks of bc keys at a time,
 *   S (G, bc) = scale Q_group K_block^T      (attn_scores, K in panels)
 *   the online softmax per row               (flash_online_row)
 *   O = diag(alpha) O + P V_block            (attn_weighted_acc)
 * so each key and value is fetched from memory once and used by the G
 * query heads while it is in registers or L1, and the scores never
 * exceed one (G, bc) block. The cache is kept in pages of bc tokens, the
 * block's K panels followed by its V rows, one kv head's pages after the
 * other: a step reads one sequential stream per kv head, which the
 * prefetchers (the hardware's and the kernels') follow from the keys into
 * the values and on into the next page, as a streaming read does (against
 * K and V in two arrays, measured under load: the same within the spread,
 * doc/PERFORMANCE.md). dk off the kernels' lanes: plain loops, K stored in
 * rows. Nothing here allocates after mha_kvdec_create, and no
 * threads: one step's work at batch 1 is one pass over the cache.
 * The core's mha_decoder (decode.c) is the reference it is tested against.
 */
#include "kvdec.h"
#include "attn.h"
#include "flash.h"
#include "forward.h"
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KVDEC_MAX_TOKENS = 1 << 20 };

struct mha_kvdec {
	int h, g, dk, cap, len;
	int group;          /* G = h / g query heads per kv head */
	int lanes;          /* attn.h kernels' width, or 0: plain loops, K in rows */
	int bc;             /* keys per block, and tokens per page */
	int pages;          /* ceil(cap / bc) per kv head */
	float *cache;       /* (g, pages, 2, bc, dk) page p of kv head j: K of its bc
	                     * tokens in panels of `lanes` keys (attn_pack_k's
	                     * layout) or rows (bc, dk), then their V rows (bc, dk) */
	float *s;           /* (G, bc) a block of scores, then of exp(s - m) */
	float *m, *l, *alpha; /* (G) the online softmax's per row */
	float *q, *concat;  /* (h dk) mha_kvdec_step's query and outputs */
	float *krow, *vrow; /* (g dk) its new K and V rows */
	void *mem;
};

/* floats rounded up to whole 64-byte lines */
static size_t lines(size_t floats)
{
	return (floats + 15) / 16 * 16;
}

/* floats of one page: bc tokens' K, then their V */
static size_t page_floats(const struct mha_kvdec *kv)
{
	return 2 * (size_t)kv->bc * kv->dk;
}

/* page p of kv head j (its K; its V is bc dk floats on) */
static float *page(const struct mha_kvdec *kv, int j, int p)
{
	return kv->cache + ((size_t)j * kv->pages + p) * page_floats(kv);
}

/* Keys per block: the (G, bc) score block within 16 KiB, so it stays in
 * L1 between the scores and the weighted sum; 32 to 512 keys, a multiple
 * of two panels (attn_scores works on panel pairs). */
static int block_keys(int group, int lanes)
{
	int bc = 4096 / group;
	bc = bc > 512 ? 512 : bc < 32 ? 32 : bc;
	int unit = lanes ? 2 * lanes : 1;
	return bc / unit * unit;
}

enum mha_status mha_kvdec_create(struct mha_kvdec **out, int h, int g, int dk, int cap,
                                 char *msg, size_t len)
{
	*out = NULL;
	if (h < 1 || h > MHA_MAX_HEADS || g < 1 || g > h || h % g || dk < 1 || dk > MHA_MAX_DK
	    || (long)h * dk > MHA_MAX_WIDTH || cap < 1 || cap > KVDEC_MAX_TOKENS) {
		snprintf(msg, len, "decode cache: heads %d, kv heads %d, d-k %d, %d tokens: want kv "
		         "heads dividing heads (1..%d), d-k 1..%d, heads x d-k <= %d, 1..%d tokens",
		         h, g, dk, cap, MHA_MAX_HEADS, MHA_MAX_DK, MHA_MAX_WIDTH, KVDEC_MAX_TOKENS);
		return MHA_EINVAL;
	}
	struct mha_kvdec *kv = calloc(1, sizeof *kv);
	if (!kv)
		goto nomem;
	kv->h = h; kv->g = g; kv->dk = dk; kv->cap = cap;
	kv->group = h / g;
	kv->lanes = attn_lanes(dk);
	kv->bc = block_keys(kv->group, kv->lanes);
	kv->pages = (cap + kv->bc - 1) / kv->bc;
	size_t hw = lines((size_t)h * dk), gw = lines((size_t)g * dk), G = lines((size_t)kv->group);
	size_t floats = lines(page_floats(kv) * kv->pages * g) + lines((size_t)kv->group * kv->bc)
	                + 3 * G + 2 * hw + 2 * gw;
	kv->mem = aligned_alloc(64, floats * sizeof(float));
	if (!kv->mem)
		goto nomem;
	/* zero: the panels' padding lanes past len must hold finite numbers */
	memset(kv->mem, 0, floats * sizeof(float));
	float *f = kv->mem;
	kv->cache = f;  f += lines(page_floats(kv) * kv->pages * g);
	kv->s = f;      f += lines((size_t)kv->group * kv->bc);
	kv->m = f;      f += G;
	kv->l = f;      f += G;
	kv->alpha = f;  f += G;
	kv->q = f;      f += hw;
	kv->concat = f; f += hw;
	kv->krow = f;   f += gw;
	kv->vrow = f;
	*out = kv;
	return MHA_OK;
nomem:
	mha_kvdec_destroy(kv);
	snprintf(msg, len, "decode cache: out of memory for %d tokens (%.1f MiB of K and V)", cap,
	         2.0 * g * dk * (double)cap * sizeof(float) / (1024.0 * 1024.0));
	return MHA_ENOMEM;
}

void mha_kvdec_destroy(struct mha_kvdec *kv)
{
	if (!kv)
		return;
	free(kv->mem);
	free(kv);
}

void mha_kvdec_reset(struct mha_kvdec *kv)
{
	kv->len = 0;
}

int mha_kvdec_len(const struct mha_kvdec *kv)
{
	return kv->len;
}

enum mha_status mha_kvdec_append(struct mha_kvdec *kv, const float *k, const float *v)
{
	if (kv->len >= kv->cap)
		return MHA_EINVAL;
	const int dk = kv->dk, p = kv->len / kv->bc, t = kv->len % kv->bc; /* t: within the page */
	for (int j = 0; j < kv->g; j++) {
		float *kp = page(kv, j, p);
		const float *src = k + (size_t)j * dk;
		if (kv->lanes) {
			// panel t / lanes, lane t % lanes: kp[(P dk + e) lanes + l] = K[t][e]
			float *dst = kp + (size_t)(t / kv->lanes) * dk * kv->lanes + t % kv->lanes;
			for (int e = 0; e < dk; e++)
				dst[(size_t)e * kv->lanes] = src[e];
		} else {
			memcpy(kp + (size_t)t * dk, src, (size_t)dk * sizeof *src);
		}
		memcpy(kp + ((size_t)kv->bc + t) * dk, v + (size_t)j * dk, (size_t)dk * sizeof *v);
	}
	kv->len++;
	return MHA_OK;
}

// S (G, C; stride bc) = scale Q_group (G, dk) @ K_page^T (dk, C), kp: the page
static void block_scores(const struct mha_kvdec *kv, const float *qg, const float *kp, int C,
                         float scale)
{
	const int dk = kv->dk, G = kv->group;
	if (kv->lanes) {
		/* whole panels (the cache's lanes past len are finite, unused);
		 * the prefetch runs on into the page's V rows, read next */
		const int cols = (C + kv->lanes - 1) / kv->lanes * kv->lanes;
		attn_dec_scores(kv->lanes, qg, G, kp, cols, dk, scale, kv->s, kv->bc,
		                kp + (size_t)kv->bc * dk, cols);
		return;
	}
	for (int r = 0; r < G; r++)
		for (int c = 0; c < C; c++) {
			const float *qr = qg + (size_t)r * dk, *kr = kp + (size_t)c * dk;
			float acc = 0.0f;
			for (int e = 0; e < dk; e++)
				acc += qr[e] * kr[e];
			kv->s[(size_t)r * kv->bc + c] = acc * scale;
		}
}

// O_group (G, dk) = diag(alpha) O_group + P (G, C; stride bc) @ V_page (C, dk);
// more: whether another page of this kv head follows (prefetched into)
static void block_weighted(const struct mha_kvdec *kv, const float *kp, int C, bool more,
                           float *og)
{
	const int dk = kv->dk, G = kv->group;
	const float *vb = kp + (size_t)kv->bc * dk;
	if (kv->lanes) {
		/* rows of dk floats from vb on: this page's V, then the next
		 * page's K, which the prefetch reaches as the rows run out */
		attn_dec_weighted(kv->lanes, kv->s, kv->bc, vb, G, C, dk, kv->alpha, og,
		                  more ? 2 * kv->bc : C);
		return;
	}
	for (int r = 0; r < G; r++) {
		float *orow = og + (size_t)r * dk;
		for (int e = 0; e < dk; e++)
			orow[e] *= kv->alpha[r];
		for (int c = 0; c < C; c++) {
			const float p = kv->s[(size_t)r * kv->bc + c], *vr = vb + (size_t)c * dk;
			for (int e = 0; e < dk; e++)
				orow[e] += p * vr[e];
		}
	}
}

void mha_kvdec_attend(struct mha_kvdec *kv, const float *q, float scale, const bool *head_off,
                      float *o)
{
	const int dk = kv->dk, G = kv->group, bc = kv->bc;
	for (int j = 0; j < kv->g; j++) {
		const float *qg = q + (size_t)j * G * dk;
		float *og = o + (size_t)j * G * dk;
		for (int r = 0; r < G; r++) {
			kv->m[r] = -INFINITY;
			kv->l[r] = 0.0f;
		}
		memset(og, 0, (size_t)G * dk * sizeof *og);
		for (int p = 0, c0 = 0; c0 < kv->len; p++, c0 += bc) {
			const int C = kv->len - c0 < bc ? kv->len - c0 : bc;
			const float *kp = page(kv, j, p);
			block_scores(kv, qg, kp, C, scale);
			// per query head r: m' = max(m, max S_r), alpha = exp(m - m'),
			// P_r = exp(S_r - m'), l' = alpha l + sum P_r
			for (int r = 0; r < G; r++)
				flash_online_row(kv->s + (size_t)r * bc, C, &kv->m[r], &kv->l[r], &kv->alpha[r]);
			block_weighted(kv, kp, C, c0 + C < kv->len, og);
		}
		// o_i = O_i / l_i (0 for a head switched off)
		for (int r = 0; r < G; r++) {
			float *orow = og + (size_t)r * dk;
			float inv = kv->l[r] > 0.0f && !(head_off && head_off[j * G + r]) ? 1.0f / kv->l[r] : 0.0f;
			for (int e = 0; e < dk; e++)
				orow[e] *= inv;
		}
	}
}

enum mha_status mha_kvdec_step(struct mha_kvdec *kv, const struct mha_config *c,
                               const struct mha_weights *w, float *y, char *msg, size_t len)
{
	enum mha_status st = mha_config_check_limit(c, MHA_PLAN_MAX_TOKENS, msg, len);
	if (st != MHA_OK)
		return st;
	if (!c->causal || c->top_k || mha_mask_extra(c)) {
		snprintf(msg, len, "the fast decode step takes the causal mask only: top-k, padding, "
		         "window and custom masks are the core's decoder's (mha_decoder_step)");
		return MHA_EINVAL;
	}
	if (c->h != kv->h || c->g != kv->g || c->dk != kv->dk) {
		snprintf(msg, len, "the configuration (heads %d, kv heads %d, d-k %d) is not the cache's "
		         "(%d, %d, %d)", c->h, c->g, c->dk, kv->h, kv->g, kv->dk);
		return MHA_EINVAL;
	}
	const int t = kv->len, d = c->d, hw = c->h * c->dk, gw = c->g * c->dk;
	if (t >= kv->cap || t >= c->n) {
		snprintf(msg, len, "no room for token %d: the cache holds %d, X has %d rows", t, kv->cap,
		         c->n);
		return MHA_EINVAL;
	}
	const float *x = w->x + (size_t)t * d;
	// q_t (1, h dk) = x_t (1, d) @ W^Q (d, h dk); k_t, v_t (1, g dk) likewise
	gemm_rm(false, false, 1, hw, d, 1.0f, x, d, (size_t)d, w->wq, hw, (size_t)d * hw, kv->q, hw,
	        (size_t)hw);
	gemm_rm(false, false, 1, gw, d, 1.0f, x, d, (size_t)d, w->wk, gw, (size_t)d * gw, kv->krow, gw,
	        (size_t)gw);
	gemm_rm(false, false, 1, gw, d, 1.0f, x, d, (size_t)d, w->wv, gw, (size_t)d * gw, kv->vrow, gw,
	        (size_t)gw);
	if (c->bias) {
		bias_add(kv->q, 1, hw, w->bq);
		bias_add(kv->krow, 1, gw, w->bk);
		bias_add(kv->vrow, 1, gw, w->bv);
	}
	mha_kvdec_append(kv, kv->krow, kv->vrow);
	mha_kvdec_attend(kv, kv->q, c->scale ? 1.0f / sqrtf((float)c->dk) : 1.0f, c->head_off,
	                 kv->concat);
	// y_t (1, d) = concat (1, h dk) @ W^O (h dk, d)
	gemm_rm(false, false, 1, d, hw, 1.0f, kv->concat, hw, (size_t)hw, w->wo, d, (size_t)hw * d, y,
	        d, (size_t)d);
	if (c->bias)
		bias_add(y, 1, d, w->bo);
	return MHA_OK;
}

const float *mha_kvdec_query(const struct mha_kvdec *kv)
{
	return kv->q;
}

const float *mha_kvdec_concat(const struct mha_kvdec *kv)
{
	return kv->concat;
}

int64_t mha_kvdec_read_bytes(const struct mha_kvdec *kv)
{
	return 2 * (int64_t)kv->g * kv->dk * kv->len * (int64_t)sizeof(float);
}

size_t mha_kvdec_bytes(const struct mha_kvdec *kv)
{
	return sizeof *kv + (lines(page_floats(kv) * kv->pages * kv->g)
	                     + lines((size_t)kv->group * kv->bc) + 3 * lines((size_t)kv->group)
	                     + 2 * lines((size_t)kv->h * kv->dk) + 2 * lines((size_t)kv->g * kv->dk))
	                    * sizeof(float);
}

int kvdec_regions(const struct mha_kvdec *kv, int j, const float **start, size_t *floats)
{
	const int full = kv->len / kv->bc, rest = kv->len % kv->bc, dk = kv->dk;
	int n = 0;
	if (full) {
		start[n] = page(kv, j, 0);
		floats[n++] = (size_t)full * page_floats(kv);
	}
	if (rest) {
		/* the last page: its K up to len in whole panels, its V rows */
		int keys = kv->lanes ? (rest + kv->lanes - 1) / kv->lanes * kv->lanes : rest;
		start[n] = page(kv, j, full);
		floats[n++] = (size_t)keys * dk;
		start[n] = page(kv, j, full) + (size_t)kv->bc * dk;
		floats[n++] = (size_t)rest * dk;
	}
	return n;
}
