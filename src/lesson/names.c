/*
 * names.c - the names lesson files use for what the workbench shows: the
 * quantities goals compare and set-ups assign (with their values under a
 * configuration), the tensors by their on-screen names, the stages by
 * label or number (the labels themselves are the core's, pipeline.h).
 * Nothing here knows about files or lines.
 */
#include "lesson_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int lesson_stage_by_name(const char *text)
{
	if (text[0] >= '1' && text[0] < '1' + PIPELINE_STAGE_COUNT && text[1] == '\0')
		return text[0] - '1';
	return pipeline_stage_by_label(text);
}

static const char *const qty_names[LESSON_Q_COUNT] = {
	"tokens", "d_model", "heads", "kv_heads", "d_k", "causal", "top_k", "scale", "seed",
	"pos", "pos_offset", "layers", "kv_tokens", "heads_off", "params", "params_wq", "params_wk", "params_wv", "params_wo", "flops",
	"flops_projection", "flops_scores", "flops_softmax", "flops_weighted_sum",
	"flops_output", "flops_one_full_head", "kv_cache",
};

const char *lesson_qty_name(enum lesson_qty q)
{
	return (unsigned)q < LESSON_Q_COUNT ? qty_names[q] : "?";
}

enum lesson_qty lesson_qty_by_name(const char *name)
{
	char buf[32];
	size_t n = strlen(name);
	if (n >= sizeof buf)
		return LESSON_Q_COUNT;
	for (size_t i = 0; i <= n; i++) /* d-model reads as d_model */
		buf[i] = name[i] == '-' ? '_' : name[i];
	for (int q = 0; q < LESSON_Q_COUNT; q++)
		if (!strcmp(buf, qty_names[q]))
			return (enum lesson_qty)q;
	return LESSON_Q_COUNT;
}

long long lesson_qty_value(const struct mha_config *c, enum lesson_qty q)
{
	struct mha_counts k = mha_counts(c);
	int off = 0;
	switch (q) {
	case LESSON_Q_TOKENS: return c->n;
	case LESSON_Q_D_MODEL: return c->d;
	case LESSON_Q_HEADS: return c->h;
	case LESSON_Q_KV_HEADS: return c->g;
	case LESSON_Q_D_K: return c->dk;
	case LESSON_Q_CAUSAL: return c->causal;
	case LESSON_Q_TOP_K: return c->top_k;
	case LESSON_Q_SCALE: return c->scale;
	case LESSON_Q_SEED: return (long long)c->seed;
	case LESSON_Q_POS: return c->pos;
	case LESSON_Q_POS_OFFSET: return c->pos_offset;
	case LESSON_Q_LAYERS: return c->layers;
	case LESSON_Q_KV_TOKENS: return c->m;
	case LESSON_Q_HEADS_OFF:
		for (int i = 0; i < c->h && i < MHA_MAX_HEADS; i++)
			off += c->head_off[i];
		return off;
	case LESSON_Q_PARAMS: return k.params_total;
	case LESSON_Q_PARAMS_WQ: return k.params_wq;
	case LESSON_Q_PARAMS_WK: return k.params_wk;
	case LESSON_Q_PARAMS_WV: return k.params_wv;
	case LESSON_Q_PARAMS_WO: return k.params_wo;
	case LESSON_Q_FLOPS: return k.flops_total;
	case LESSON_Q_FLOPS_PROJECTION: return k.flops_projection;
	case LESSON_Q_FLOPS_SCORES: return k.flops_scores;
	case LESSON_Q_FLOPS_SOFTMAX: return k.flops_softmax;
	case LESSON_Q_FLOPS_WEIGHTED_SUM: return k.flops_weighted_sum;
	case LESSON_Q_FLOPS_OUTPUT: return k.flops_output;
	case LESSON_Q_FLOPS_ONE_FULL_HEAD: return k.flops_one_full_head;
	case LESSON_Q_KV_CACHE: return k.kv_cache_per_token;
	case LESSON_Q_COUNT: break;
	}
	return 0;
}

enum mha_tensor lesson_tensor_by_name(const char *name)
{
	for (int t = 0; t < MHA_T_COUNT; t++) {
		const struct mha_tensor_info *ti = mha_tensor_info((enum mha_tensor)t);
		if (!strcmp(name, ti->name) || !strcmp(name, ti->key))
			return (enum mha_tensor)t;
	}
	return MHA_T_COUNT;
}
