/*
 * weights.c - the inputs the learner edits: X, W^Q, W^K, W^V, W^O, the
 * biases (used when cfg.bias) and the token labels; the source sequence
 * X_kv of cross-attention with its labels, the learned positions P, and
 * the W's of every layer of a stack. Allocation, seeded initialisation
 * (and the default, wired workbench of seed 0), the carry rule used when a
 * shape changes, and the range check. No forward pass here.
 */
#include "mha.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t wq_len(const struct mha_config *c) { return (size_t)c->d * c->h * c->dk; }
static size_t wkv_len(const struct mha_config *c) { return (size_t)c->d * c->g * c->dk; }

static int layers_of(const struct mha_config *c)
{
	return c->layers > 1 ? c->layers : 1;
}

/* One layer's W's and biases at f; returns the float after them. */
static float *layer_place(struct mha_layer_weights *lw, const struct mha_config *c, float *f)
{
	size_t hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	lw->wq = f; f += wq_len(c);
	lw->wk = f; f += wkv_len(c);
	lw->wv = f; f += wkv_len(c);
	lw->wo = f; f += wq_len(c);
	/* biases: always there (zero until set), used when cfg.bias */
	lw->bq = f; f += hw;
	lw->bk = f; f += gw;
	lw->bv = f; f += gw;
	lw->bo = f; f += c->d;
	return f;
}

enum mha_status mha_weights_alloc(struct mha_weights *w, const struct mha_config *c)
{
	size_t nx = (size_t)c->n * c->d, mx = (size_t)c->m * c->d;
	size_t hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t layer = 2 * wq_len(c) + 2 * wkv_len(c) + hw + 2 * gw + (size_t)c->d;
	/* X, X_kv, P, then every layer */
	size_t total = nx + mx + nx + (size_t)layers_of(c) * layer;
	size_t label_bytes = (size_t)(c->n + c->m) * MHA_LABEL_MAX;
	memset(w, 0, sizeof *w);
	char *mem = calloc(1, total * sizeof(float) + label_bytes);
	if (!mem)
		return MHA_ENOMEM;
	float *f = (float *)mem;
	w->x = f;  f += nx;
	struct mha_layer_weights l0;
	f = layer_place(&l0, c, f);
	w->wq = l0.wq; w->wk = l0.wk; w->wv = l0.wv; w->wo = l0.wo;
	w->bq = l0.bq; w->bk = l0.bk; w->bv = l0.bv; w->bo = l0.bo;
	w->x_kv = f; f += mx;
	w->pos = f;  f += nx; /* always there (used when cfg.pos is learned), like the biases */
	for (int l = 1; l < layers_of(c); l++)
		f = layer_place(&w->upper[l - 1], c, f);
	w->labels = (char (*)[MHA_LABEL_MAX])f;
	w->kv_labels = w->labels + c->n;
	w->mem = mem;
	return MHA_OK;
}

struct mha_layer_weights mha_weights_layer(const struct mha_weights *w, int l)
{
	if (l > 0 && l < MHA_MAX_LAYERS)
		return w->upper[l - 1];
	return (struct mha_layer_weights){ w->wq, w->wk, w->wv, w->wo, w->bq, w->bk, w->bv, w->bo };
}

void mha_weights_free(struct mha_weights *w)
{
	free(w->mem);
	memset(w, 0, sizeof *w);
}

/* SplitMix64 (Steele, Lea, Flood 2014): tiny, well mixed, and defined by
 * integer arithmetic alone, so a seed gives the same stream everywhere. */
uint64_t mha_rand64(uint64_t *state)
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
		float u = (float)(mha_rand64(state) >> 40) / 16777216.0f;
		p[i] = a * (2.0f * u - 1.0f);
	}
}

/* Xavier/Glorot uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)), keeps
 * the variance of activations roughly constant through the product. */
static float glorot(int fan_in, int fan_out)
{
	return sqrtf(6.0f / (float)(fan_in + fan_out));
}

/* The default token labels: a sentence whose repeated "the" and "cat"
 * give the same-word head something to find. */
static const char *const default_words[] = {
	"the", "cat", "sat", "on", "the", "mat", "and", "the",
	"dog", "saw", "the", "cat", "on", "the", "big", "mat",
};
enum { NWORDS = sizeof default_words / sizeof default_words[0] };

/* Word number of token i under the default labels: distinct words count
 * 0, 1, 2, ... in order of first appearance (the 0, cat 1, sat 2, on 3,
 * mat 4, ...); a repeated word gets its first number; tokens past the
 * list are words of their own. */
static int word_number(int i)
{
	int next = 0; /* numbers given so far */
	for (int k = 0; k < NWORDS; k++) {
		int seen = -1;
		for (int m = 0; m < k && seen < 0; m++)
			if (strcmp(default_words[m], default_words[k]) == 0)
				seen = m;
		if (k == i)
			return seen >= 0 ? word_number(seen) : next;
		next += seen < 0;
	}
	return next + (i - NWORDS);
}

/* X ~ U(-1, 1); each W Glorot-uniform. One stream in the order X, W^Q,
 * W^K, W^V, W^O: the same seed and shape give the same numbers anywhere. */
static void init_random(struct mha_weights *w, const struct mha_config *c, uint64_t seed)
{
	uint64_t state = seed;
	fill_uniform(w->x, (size_t)c->n * c->d, 1.0f, &state);
	fill_uniform(w->wq, wq_len(c), glorot(c->d, c->h * c->dk), &state);
	fill_uniform(w->wk, wkv_len(c), glorot(c->d, c->g * c->dk), &state);
	fill_uniform(w->wv, wkv_len(c), glorot(c->d, c->g * c->dk), &state);
	fill_uniform(w->wo, wq_len(c), glorot(c->h * c->dk, c->d), &state);
}

/* What each head of the wired workbench looks for; kv head j (and every
 * query head reading it) takes role j mod 4. */
enum wired_role { ROLE_PREVIOUS, ROLE_SAME_WORD, ROLE_FIRST, ROLE_NEXT, ROLE_COUNT };

/*
 * The default workbench (seed MHA_SEED_WIRED): heads wired by hand, so
 * that attention is visible from the first screen, W^V and W^O random as
 * for seed 0. Needs d >= 6 and dk >= 2 (else the plain random seed 0).
 *
 * X (n, d): columns 0..d-5 say which word token i is (one-hot, column
 * = word number mod (d-4)); then F first-token flag, P position i,
 * P2 = i^2, ONE = 1 (the last four columns).
 * Head blocks of W^Q (query head) and W^K (its kv head), only their
 * first two columns non-zero, c = 3 sqrt(dk) (a gap of 3 per unit after
 * the 1/sqrt(dk) scale):
 *   previous / next token (o = -1 / +1): q = c (2(i+o), -1), k = (j, j^2),
 *     q.k = -c (j - (i+o))^2 + c (i+o)^2: largest at j = i+o (the ends
 *     fall back to the nearest key);
 *   same word (v = word number + 1, so that no word row is all zero):
 *     q = c (2v_i, -1), k = (v_j, v_j^2), q.k = -c (v_j - v_i)^2 + c v_i^2:
 *     largest on every copy of the word. A sentence has fewer than
 *     MHA_MAX_TOKENS word numbers, so word row r takes v = r mod 64 + 1:
 *     v^2 <= 4096 and 2 c v <= 12288 at any d and dk (with v = r + 1,
 *     d = 1024 gave W^K 1,040,400, past MHA_VALUE_MAX: a session that
 *     could not be read back);
 *   first token: q = a, k = F, a = sqrt(dk) (ln(n-1) + 2), so key 0 has
 *     about e^2/(e^2 + 1) = 0.88 of each row whatever n is.
 * The cells come from wired_cell, one cell at a time (W^Q's or W^K's), so that
 * mha_wired_role can tell whether a head still holds its wiring.
 */
static bool wired_fits(const struct mha_config *c) { return c->d >= 6 && c->dk >= 2; }

/* Cell (r, j) of the head block of role `role`: W^Q's (query) or W^K's. */
static float wired_cell(const struct mha_config *c, enum wired_role role, bool query, int r, int j)
{
	int d = c->d, nw = d - 4;
	int col_f = d - 4, col_p = d - 3, col_p2 = d - 2, col_one = d - 1;
	/* rounded to quarters, so that every product and sum is exact in
	 * float: equal scores stay exactly equal (top-k ties go to the lower
	 * index in every implementation, BLAS or not) */
	float cq = roundf(12.0f * sqrtf((float)c->dk)) / 4.0f;
	float a = roundf(4.0f * sqrtf((float)c->dk) * (logf((float)(c->n > 1 ? c->n - 1 : 1)) + 2.0f)) / 4.0f;
	switch (role) {
	case ROLE_PREVIOUS:
	case ROLE_NEXT: {
		float o = role == ROLE_NEXT ? 1.0f : -1.0f;
		if (!query)
			return (r == col_p && j == 0) || (r == col_p2 && j == 1) ? 1.0f : 0.0f;
		if (r == col_p && j == 0)
			return 2.0f * cq;
		if (r == col_one)
			return j == 0 ? 2.0f * cq * o : j == 1 ? -cq : 0.0f;
		return 0.0f;
	}
	case ROLE_SAME_WORD: {
		if (r >= nw || j > 1)
			return 0.0f;
		float v = (float)(r % MHA_MAX_TOKENS + 1);
		if (query)
			return j == 0 ? 2.0f * cq * v : -cq;
		return j == 0 ? v : v * v;
	}
	case ROLE_FIRST:
		return j == 0 && r == (query ? col_one : col_f) ? (query ? a : 1.0f) : 0.0f;
	default:
		return 0.0f;
	}
}

/* Row i of the wired X: word one-hot, F, P, P2, ONE. */
static void wired_row(const struct mha_config *c, int i, float *x)
{
	int d = c->d, nw = d - 4;
	memset(x, 0, (size_t)d * sizeof *x);
	x[word_number(i) % nw] = 1.0f;
	x[d - 4] = i == 0 ? 1.0f : 0.0f; /* F */
	x[d - 3] = (float)i;             /* P */
	x[d - 2] = (float)i * (float)i;  /* P2 */
	x[d - 1] = 1.0f;                 /* ONE */
}

static void init_wired(struct mha_weights *w, const struct mha_config *c)
{
	int d = c->d, dk = c->dk;
	size_t qw = (size_t)c->h * dk, kw = (size_t)c->g * dk;
	for (int i = 0; i < c->n; i++)
		wired_row(c, i, w->x + (size_t)i * d);
	for (int hq = 0; hq < c->h; hq++) {
		int kv = mha_kv_head(c, hq);
		enum wired_role role = (enum wired_role)(kv % ROLE_COUNT);
		for (int r = 0; r < d; r++)
			for (int j = 0; j < dk; j++) {
				w->wq[(size_t)r * qw + (size_t)hq * dk + j] = wired_cell(c, role, true, r, j);
				w->wk[(size_t)r * kw + (size_t)kv * dk + j] = wired_cell(c, role, false, r, j);
			}
	}
}

int mha_wired_role(const struct mha_weights *w, const struct mha_config *c, int head)
{
	if (!wired_fits(c) || head < 0 || head >= c->h)
		return -1;
	int kv = mha_kv_head(c, head), dk = c->dk;
	enum wired_role role = (enum wired_role)(kv % ROLE_COUNT);
	size_t qw = (size_t)c->h * dk, kw = (size_t)c->g * dk;
	for (int r = 0; r < c->d; r++)
		for (int j = 0; j < dk; j++)
			if (w->wq[(size_t)r * qw + (size_t)head * dk + j] != wired_cell(c, role, true, r, j) ||
			    w->wk[(size_t)r * kw + (size_t)kv * dk + j] != wired_cell(c, role, false, r, j))
				return -1;
	return (int)role;
}

const char *mha_wired_role_name(int role, bool brief)
{
	static const char *const names[ROLE_COUNT][2] = {
		{ "previous token", "prev" }, { "same word", "word" },
		{ "first token", "1st" }, { "next token", "next" },
	};
	return role >= 0 && role < ROLE_COUNT ? names[role][brief] : "";
}

/* Streams apart from X and layer 0's W's (whose stream is the seed's
 * own), so that adding a source, positions or layers leaves every number
 * a seed gave before as it was. */
#define STREAM_BIAS 0xB1A5B1A5B1A5B1A5ull
#define STREAM_KV 0x5EC0DE5EC0DE5EC0ull
#define STREAM_POS 0x9051710905171090ull
#define STREAM_LAYER 0x1A7E21A7E21A7E20ull

/* The inputs beyond one self-attention layer: X_kv (seed 0: wired rows
 * like X's, so the wired heads find positions and words in the source
 * too; else U(-1, 1)), P ~ U(-0.5, 0.5), and layers 1..L-1 Glorot-uniform
 * as layer 0. */
static void init_added(struct mha_weights *w, const struct mha_config *c, uint64_t seed)
{
	uint64_t state = seed ^ STREAM_KV;
	if (seed == MHA_SEED_WIRED && wired_fits(c))
		for (int j = 0; j < c->m; j++)
			wired_row(c, j, w->x_kv + (size_t)j * c->d);
	else
		fill_uniform(w->x_kv, (size_t)c->m * c->d, 1.0f, &state);
	state = seed ^ STREAM_POS;
	fill_uniform(w->pos, (size_t)c->n * c->d, 0.5f, &state);
	for (int l = 1; l < layers_of(c); l++) {
		struct mha_layer_weights *lw = &w->upper[l - 1];
		state = seed ^ (STREAM_LAYER + (uint64_t)l);
		fill_uniform(lw->wq, wq_len(c), glorot(c->d, c->h * c->dk), &state);
		fill_uniform(lw->wk, wkv_len(c), glorot(c->d, c->g * c->dk), &state);
		fill_uniform(lw->wv, wkv_len(c), glorot(c->d, c->g * c->dk), &state);
		fill_uniform(lw->wo, wq_len(c), glorot(c->h * c->dk, c->d), &state);
	}
}

void mha_weights_init(struct mha_weights *w, struct mha_config *c, uint64_t seed)
{
	init_random(w, c, seed);
	if (seed == MHA_SEED_WIRED && wired_fits(c))
		init_wired(w, c);
	init_added(w, c, seed);
	c->seed = seed;
}

struct mha_bias mha_bias_layer(const struct mha_weights *w, const struct mha_config *c, int l, int k)
{
	const int hw = c->h * c->dk, gw = c->g * c->dk;
	struct mha_layer_weights lw = mha_weights_layer(w, l);
	switch (k) {
	case 0: return (struct mha_bias){ "b^Q", "b_Q", lw.bq, hw };
	case 1: return (struct mha_bias){ "b^K", "b_K", lw.bk, gw };
	case 2: return (struct mha_bias){ "b^V", "b_V", lw.bv, gw };
	default: return (struct mha_bias){ "b^O", "b_O", lw.bo, c->d };
	}
}

struct mha_bias mha_bias(const struct mha_weights *w, const struct mha_config *c, int k)
{
	return mha_bias_layer(w, c, 0, k);
}

void mha_biases_init(struct mha_weights *w, const struct mha_config *c, uint64_t seed)
{
	for (int l = 0; l < layers_of(c); l++) {
		/* a stream apart from X and the W's; layer 0's as it always was */
		uint64_t state = seed ^ (STREAM_BIAS + (uint64_t)l);
		for (int k = 0; k < MHA_BIASES; k++) {
			struct mha_bias b = mha_bias_layer(w, c, l, k);
			fill_uniform(b.p, (size_t)b.len, 0.5f, &state);
		}
	}
}

/* The source's default labels are the same sentence (its wired rows are
 * X's too): cross-attention then starts out looking like self-attention,
 * and every change to X_kv shows what the second sequence does. */
void mha_weights_default_labels(struct mha_weights *w, const struct mha_config *c)
{
	for (int i = 0; i < c->n; i++) {
		if (i < NWORDS)
			snprintf(w->labels[i], MHA_LABEL_MAX, "%s", default_words[i]);
		else
			snprintf(w->labels[i], MHA_LABEL_MAX, "t%d", i + 1);
	}
	for (int j = 0; j < c->m; j++) {
		if (j < NWORDS)
			snprintf(w->kv_labels[j], MHA_LABEL_MAX, "%s", default_words[j]);
		else
			snprintf(w->kv_labels[j], MHA_LABEL_MAX, "s%d", j + 1);
	}
}

enum mha_status mha_weights_start(struct mha_weights *w, struct mha_config *c)
{
	enum mha_status s = mha_weights_alloc(w, c);
	if (s != MHA_OK)
		return s;
	mha_weights_init(w, c, c->seed);
	mha_weights_default_labels(w, c);
	if (c->bias)
		mha_biases_init(w, c, c->seed);
	return MHA_OK;
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

/* One layer's W's and biases, by the rule of mha_weights_carry. */
static void carry_layer(const struct mha_layer_weights *dst, const struct mha_config *dc,
                        const struct mha_layer_weights *src, const struct mha_config *sc)
{
	int dh, dd, sh, sd;
	head_blocks(dc->h, dc->dk, sc->h, sc->dk, &dh, &dd, &sh, &sd);
	carry_cols(dst->wq, dc->d, dh, dd, src->wq, sc->d, sh, sd);
	carry_rows(dst->wo, dh, dd, dc->d, src->wo, sh, sd, sc->d);
	carry_cols(dst->bq, 1, dh, dd, src->bq, 1, sh, sd); /* b^Q: one row of W^Q's columns */
	head_blocks(dc->g, dc->dk, sc->g, sc->dk, &dh, &dd, &sh, &sd);
	carry_cols(dst->wk, dc->d, dh, dd, src->wk, sc->d, sh, sd);
	carry_cols(dst->wv, dc->d, dh, dd, src->wv, sc->d, sh, sd);
	carry_cols(dst->bk, 1, dh, dd, src->bk, 1, sh, sd);
	carry_cols(dst->bv, 1, dh, dd, src->bv, 1, sh, sd);
	carry_cols(dst->bo, 1, 1, dc->d, src->bo, 1, 1, sc->d);
}

void mha_weights_carry(struct mha_weights *dst, const struct mha_config *dc,
                       const struct mha_weights *src, const struct mha_config *sc)
{
	carry_cols(dst->x, dc->n, 1, dc->d, src->x, sc->n, 1, sc->d);
	for (int l = 0; l < imin(layers_of(dc), layers_of(sc)); l++) {
		struct mha_layer_weights d = mha_weights_layer(dst, l), s = mha_weights_layer(src, l);
		carry_layer(&d, dc, &s, sc);
	}
	for (int i = 0; i < imin(dc->n, sc->n); i++)
		memcpy(dst->labels[i], src->labels[i], MHA_LABEL_MAX);
	/* the source and P: absent from weights a caller filled by hand (src/train) */
	if (dst->x_kv && src->x_kv) {
		carry_cols(dst->x_kv, dc->m, 1, dc->d, src->x_kv, sc->m, 1, sc->d);
		for (int j = 0; j < imin(dc->m, sc->m); j++)
			memcpy(dst->kv_labels[j], src->kv_labels[j], MHA_LABEL_MAX);
	}
	if (dst->pos && src->pos)
		carry_cols(dst->pos, dc->n, 1, dc->d, src->pos, sc->n, 1, sc->d);
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
		if ((ch == 0xC2 && next < 0xA0) || /* C1 controls: terminals act on them, as lessons refuse */
		    (ch == 0xE0 && next < 0xA0) || (ch == 0xED && next >= 0xA0) ||
		    (ch == 0xF0 && next < 0x90) || (ch == 0xF4 && next >= 0x90) || ch > 0xF4)
			return false;
		i += n;
	}
	return true;
}

/* "layer 2 " before a name of a layer past the first, "" for layer 0 */
static void layer_prefix(char *buf, size_t len, int l)
{
	if (l > 0)
		snprintf(buf, len, "layer %d ", l);
	else if (len > 0)
		buf[0] = '\0';
}

/* Layer l's b^Q, b^K, b^V, b^O under the inputs' rule: finite, within MHA_VALUE_MAX. */
static enum mha_status biases_check(const struct mha_weights *w, const struct mha_config *c, int l,
                                    char *msg, size_t len)
{
	for (int k = 0; k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias_layer(w, c, l, k);
		for (int i = 0; i < b.len; i++)
			if (!isfinite(b.p[i]) || fabsf(b.p[i]) > MHA_VALUE_MAX) {
				char at[24];
				layer_prefix(at, sizeof at, l);
				snprintf(msg, len, "%s%s[%d] = %g: inputs must be finite and within +-%g",
				         at, b.name, i, (double)b.p[i], (double)MHA_VALUE_MAX);
				return MHA_ERANGE;
			}
	}
	return MHA_OK;
}

/* Tensor t of layer l (an input c uses) under the same rule. */
static enum mha_status input_check(const struct mha_weights *w, const struct mha_config *c, int l,
                                   enum mha_tensor t, char *msg, size_t len)
{
	struct mha_shape s = mha_tensor_shape(c, t);
	const float *p = mha_tensor_data_layer(w, NULL, l, t);
	for (int r = 0; r < s.rows; r++) {
		for (int col = 0; col < s.cols; col++) {
			float v = p[(size_t)r * s.cols + col];
			if (isfinite(v) && fabsf(v) <= MHA_VALUE_MAX)
				continue;
			char at[24];
			layer_prefix(at, sizeof at, l);
			snprintf(msg, len, "%s%s[%d,%d] = %g: inputs must be finite and within +-%g",
			         at, mha_tensor_info(t)->name, r, col, (double)v, (double)MHA_VALUE_MAX);
			return MHA_ERANGE;
		}
	}
	return MHA_OK;
}

enum mha_status mha_weights_check(const struct mha_weights *w, const struct mha_config *c,
                                  char *msg, size_t len)
{
	static const enum mha_tensor shared[] = { MHA_T_X, MHA_T_XKV, MHA_T_POS };
	enum mha_status st = MHA_OK;
	for (size_t k = 0; st == MHA_OK && k < sizeof shared / sizeof shared[0]; k++)
		if (mha_tensor_used(c, shared[k]))
			st = input_check(w, c, 0, shared[k], msg, len);
	for (int l = 0; st == MHA_OK && l < layers_of(c); l++) {
		for (enum mha_tensor t = MHA_T_WQ; st == MHA_OK && t <= MHA_T_WO; t++)
			st = input_check(w, c, l, t, msg, len);
		if (st == MHA_OK && c->bias)
			st = biases_check(w, c, l, msg, len);
	}
	if (st == MHA_OK && len > 0)
		msg[0] = '\0';
	return st;
}
