/*
 * config.c - the configuration of one attention layer (and of a stack of
 * them): defaults, the validity rules, and the counts (parameters, FLOPs, what masks and top-k
 * could save, the KV cache at any scale) that follow from it. Nothing here
 * touches matrices.
 */
#include "mha.h"

#include <stdio.h>
#include <string.h>

struct mha_config mha_config_default(void)
{
	struct mha_config c;
	memset(&c, 0, sizeof c);
	c.n = 6;
	c.d = 16;
	c.h = 4;
	c.g = 4;
	c.dk = 4;
	c.scale = true;
	c.seed = MHA_SEED_WIRED; /* the wired workbench: attention visible at once */
	c.pos = MHA_POS_NONE;    /* the workbench as it always was: no positions */
	c.layers = 1;
	return c;
}

static enum mha_status range_error(char *msg, size_t len, const char *field,
                                   int value, int lo, int hi)
{
	snprintf(msg, len, "%s %d is out of range: allowed %d..%d", field, value, lo, hi);
	return MHA_EINVAL;
}

static enum mha_status check_added(const struct mha_config *c, char *msg, size_t len);

enum mha_status mha_config_check(const struct mha_config *c, char *msg, size_t len)
{
	return mha_config_check_limit(c, MHA_MAX_TOKENS, msg, len);
}

enum mha_status mha_config_check_limit(const struct mha_config *c, int max_tokens,
                                       char *msg, size_t len)
{
	if (c->n < 1 || c->n > max_tokens)
		return range_error(msg, len, "tokens", c->n, 1, max_tokens);
	if (c->d < 1 || c->d > MHA_MAX_D_MODEL)
		return range_error(msg, len, "d-model", c->d, 1, MHA_MAX_D_MODEL);
	if (c->h < 1 || c->h > MHA_MAX_HEADS)
		return range_error(msg, len, "heads", c->h, 1, MHA_MAX_HEADS);
	if (c->dk < 1 || c->dk > MHA_MAX_DK)
		return range_error(msg, len, "d-k", c->dk, 1, MHA_MAX_DK);
	if (c->g < 1 || c->g > c->h)
		return range_error(msg, len, "kv-heads", c->g, 1, c->h);
	if (c->h % c->g != 0) {
		snprintf(msg, len, "kv-heads %d does not divide heads %d: "
		         "choose a divisor of %d (1 = MQA, %d = MHA)", c->g, c->h, c->h, c->h);
		return MHA_EINVAL;
	}
	if ((long)c->h * c->dk > MHA_MAX_WIDTH) {
		snprintf(msg, len, "heads x d-k = %d x %d = %ld is too wide: at most %d",
		         c->h, c->dk, (long)c->h * c->dk, MHA_MAX_WIDTH);
		return MHA_EINVAL;
	}
	if (c->m < 0 || c->m > MHA_MAX_KV_TOKENS)
		return range_error(msg, len, "kv-tokens", c->m, 0, MHA_MAX_KV_TOKENS);
	if (c->top_k < 0 || c->top_k > mha_keys(c))
		return range_error(msg, len, "top-k", c->top_k, 0, mha_keys(c));
	if (c->window < 0 || c->window > max_tokens)
		return range_error(msg, len, "window", c->window, 0, max_tokens);
	return check_added(c, msg, len);
}

/* The rules positions, cross-attention and the stack add. */
static enum mha_status check_added(const struct mha_config *c, char *msg, size_t len)
{
	if (c->layers < 1 || c->layers > MHA_MAX_LAYERS)
		return range_error(msg, len, "layers", c->layers, 1, MHA_MAX_LAYERS);
	if ((unsigned)c->pos >= MHA_POS_COUNT) {
		snprintf(msg, len, "pos %d is not a kind of position: allowed none, learned, sinusoidal, rope",
		         (int)c->pos);
		return MHA_EINVAL;
	}
	if (c->pos == MHA_POS_ROPE && c->dk % 2 != 0) {
		snprintf(msg, len, "d-k %d is odd: --pos rope turns each head's columns in pairs "
		         "(2i, 2i+1), so d_k must be even", c->dk);
		return MHA_EINVAL;
	}
	if (c->pos_offset < 0 || c->pos_offset > MHA_MAX_POS_OFFSET)
		return range_error(msg, len, "pos-offset", c->pos_offset, 0, MHA_MAX_POS_OFFSET);
	if (c->pos_offset > 0 && c->pos != MHA_POS_SINUSOIDAL && c->pos != MHA_POS_ROPE) {
		snprintf(msg, len, "pos-offset %d shifts positions of --pos sinusoidal or rope; pos %s has "
		         "none to shift (a learned P has one row per token)", c->pos_offset, mha_pos_name(c->pos));
		return MHA_EINVAL;
	}
	if (c->m > 0 && c->causal) {
		snprintf(msg, len, "kv-tokens %d with --causal: the keys are another sequence's tokens, none "
		         "of them 'later' than a query (encoder-decoder attention has no causal mask); "
		         "use --window or --pad on the source instead", c->m);
		return MHA_EINVAL;
	}
	if (len > 0)
		msg[0] = '\0';
	return MHA_OK;
}

/* LLaMA's repeat_kv: query heads are grouped in runs of h/g that share a kv head. */
int mha_kv_head(const struct mha_config *c, int i)
{
	return i / (c->h / c->g);
}

int mha_keys(const struct mha_config *c)
{
	return c->m > 0 ? c->m : c->n;
}

/*
 * Counts. A multiply-add is 2 FLOPs; max, subtract, exp, add and divide are
 * 1 each. The 1/sqrt(dk) scale is not counted: it folds into W^Q for free.
 * Causal and top-k masks are not subtracted: the products are computed
 * densely, as on a GPU. What a sparse kernel could skip is counted apart
 * (count_sparse), and so is the KV cache at model scale (mha_kv_cache).
 */
static void count_sparse(const struct mha_config *c, struct mha_counts *k);

struct mha_counts mha_counts(const struct mha_config *c)
{
	struct mha_counts k;
	int64_t n = c->n, d = c->d, h = c->h, g = c->g, dk = c->dk, nk = mha_keys(c);
	int64_t layers = c->layers > 1 ? c->layers : 1;
	k.params_wq = d * h * dk;
	k.params_wk = d * g * dk;
	k.params_wv = d * g * dk;
	k.params_wo = h * dk * d;
	k.params_total = k.params_wq + k.params_wk + k.params_wv + k.params_wo;
	/* Q from the n queries, K and V from the nk keys' rows */
	k.flops_projection = 2 * n * d * h * dk + 2 * nk * d * 2 * g * dk;
	k.flops_scores = h * 2 * n * nk * dk;
	k.flops_softmax = h * 5 * n * nk;
	k.flops_weighted_sum = h * 2 * n * nk * dk;
	k.flops_output = 2 * n * h * dk * d;
	/* adding PE: one add per cell; RoPE: (a cos - b sin, a sin + b cos) is 4
	 * multiplies and 2 adds per pair, 3 per value, over Q and K */
	int64_t pe_add = c->pos == MHA_POS_LEARNED || c->pos == MHA_POS_SINUSOIDAL ? n * d : 0;
	int64_t rope = c->pos == MHA_POS_ROPE ? 3 * (n * h * dk + nk * g * dk) : 0;
	k.flops_position = pe_add + rope;
	k.flops_total = k.flops_projection + k.flops_scores + k.flops_softmax
	              + k.flops_weighted_sum + k.flops_output + k.flops_position;
	k.params_stack = layers * k.params_total;
	/* every layer as layer 0 but PE added once; x_l+1 = x_l + Y: n d adds a layer */
	k.flops_stack = layers * (k.flops_total - pe_add) + pe_add + layers * n * d;
	k.kv_cache_per_token = 2 * g * dk;
	/* one head of full dimension (h = g = 1, dk = d), the same n queries and
	 * nk keys: 2nd^2 + 4 nk d^2 + 2 n nk d + 5 n nk + 2 n nk d + 2nd^2
	 * (nk = n: 8nd^2 + 4n^2 d + 5n^2) */
	k.flops_one_full_head = 4 * n * d * d + 4 * nk * d * d + 4 * n * nk * d + 5 * n * nk;
	count_sparse(c, &k);
	return k;
}

/* Top-k keeps min(top_k, visible) keys of a row, whatever the scores are,
 * so what it saves follows from the configuration alone. */
static void count_sparse(const struct mha_config *c, struct mha_counts *k)
{
	int64_t n = c->n, nk = mha_keys(c), h = c->h, dk = c->dk, visible = 0, kept = 0;
	unsigned char keep[MHA_MAX_TOKENS];
	for (int i = 0; i < c->n; i++) {
		int v = c->n <= MHA_MAX_TOKENS ? mha_mask_row(c, i, NULL, keep)
		      : c->causal ? i + 1 : c->n;
		visible += v;
		kept += c->top_k > 0 && c->top_k < v ? c->top_k : v;
	}
	k->pairs_visible = visible;
	k->pairs_kept = kept;
	k->flops_scores_masked = 2 * h * dk * (n * nk - visible);
	k->flops_weighted_skippable = 2 * h * dk * (n * nk - kept);
	k->flops_sparse_saving = 4 * h * dk * (visible - kept);
	k->selector_break_even = visible ? (double)k->flops_sparse_saving / (double)visible : 0.0;
}

int mha_dtype_bytes(enum mha_dtype t)
{
	return t == MHA_FP32 ? 4 : t == MHA_FP16 ? 2 : 1;
}

const char *mha_dtype_name(enum mha_dtype t)
{
	return t == MHA_FP32 ? "fp32" : t == MHA_FP16 ? "fp16" : "int8";
}

struct mha_kv_cache mha_kv_cache(int g, int dk, int layers, enum mha_dtype t, int64_t context)
{
	struct mha_kv_cache k;
	int64_t b = mha_dtype_bytes(t);
	k.values_token_layer = 2 * (int64_t)g * dk;
	k.values_token = k.values_token_layer * layers;
	k.bytes_token_layer = k.values_token_layer * b;
	k.bytes_token = k.values_token * b;
	k.bytes_context_layer = k.bytes_token_layer * context;
	k.bytes_context = k.bytes_token * context;
	return k;
}

const struct mha_model mha_models[] = {
	{ "Transformer base (paper)", 512, 8, 8, 64, 6 },
	{ "LLaMA-2-70B-shaped", 8192, 64, 8, 128, 80 },
	{ NULL, 0, 0, 0, 0, 0 },
};

const char *mha_strerror(enum mha_status s)
{
	switch (s) {
	case MHA_OK: return "ok";
	case MHA_EINVAL: return "invalid configuration";
	case MHA_ENOMEM: return "out of memory";
	case MHA_ERANGE: return "value out of range";
	}
	return "unknown error";
}
