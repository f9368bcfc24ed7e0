/*
 * dump.c - print configuration, counts, inputs and every intermediate
 * (every layer's) as JSON. Floats use %.9g so a float32 reads back exactly; a non-finite value
 * (impossible for checked inputs) prints as null rather than invalid JSON.
 */
#include "dump.h"

#include <inttypes.h>
#include <math.h>

static void put_float(FILE *f, float v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", (double)v);
	else
		fputs("null", f);
}

/* A (rows, cols) row-major block with row stride ld, as an array of rows. */
void dump_put_matrix(FILE *f, const float *p, int rows, int cols, int ld)
{
	fputc('[', f);
	for (int r = 0; r < rows; r++) {
		fputs(r ? ",\n  [" : "[", f);
		for (int col = 0; col < cols; col++) {
			if (col)
				fputc(',', f);
			put_float(f, p[(size_t)r * ld + col]);
		}
		fputc(']', f);
	}
	fputc(']', f);
}

void dump_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* The masks beyond causal in the config: "pad": [tokens], "window": w,
 * "hidden": [[query, key], ...] (the custom mask's hidden cells). */
static void put_mask_config(FILE *f, const struct mha_config *c)
{
	fputs(", \"pad\": [", f);
	for (int t = 0, first = 1; t < mha_keys(c); t++)
		if (mha_is_pad(c, t)) {
			fprintf(f, first ? "%d" : ", %d", t);
			first = 0;
		}
	fprintf(f, "], \"bias\": %s, \"window\": %d, \"hidden\": [", c->bias ? "true" : "false", c->window);
	for (int i = 0, first = 1; i < c->n && i < MHA_MAX_TOKENS; i++)
		for (int j = 0; j < mha_keys(c) && j < 64; j++)
			if ((c->hide[i] >> j) & 1u) {
				fprintf(f, first ? "[%d, %d]" : ", [%d, %d]", i, j);
				first = 0;
			}
	fputc(']', f);
}

/* "mask": (n, nk) 1 where query (row) sees key (column) before top-k:
 * causal, window, padding and custom together (mha_mask_row). */
static void put_mask(FILE *f, const struct mha_config *c)
{
	unsigned char keep[MHA_MAX_TOKENS];
	fputs(",\n\"mask\": [", f);
	for (int i = 0; i < c->n; i++) {
		mha_mask_row(c, i, NULL, keep);
		fputs(i ? ",\n  [" : "[", f);
		for (int j = 0; j < mha_keys(c); j++)
			fprintf(f, j ? ",%d" : "%d", keep[j]);
		fputc(']', f);
	}
	fputc(']', f);
}

static void put_config(FILE *f, const struct mha_config *c)
{
	fprintf(f, "\"config\": {\"tokens\": %d, \"d_model\": %d, \"heads\": %d, \"kv_heads\": %d, "
	        "\"d_k\": %d, \"d_v\": %d, \"causal\": %s, \"top_k\": %d, \"scale\": %s, "
	        "\"seed\": %" PRIu64 ", \"heads_off\": [",
	        c->n, c->d, c->h, c->g, c->dk, c->dk, c->causal ? "true" : "false",
	        c->top_k, c->scale ? "true" : "false", c->seed);
	int first = 1;
	for (int i = 0; i < c->h; i++) {
		if (!c->head_off[i])
			continue;
		fprintf(f, first ? "%d" : ", %d", i);
		first = 0;
	}
	fputs("]", f);
	put_mask_config(f, c);
	fprintf(f, ", \"pos\": \"%s\", \"pos_offset\": %d, \"kv_tokens\": %d, \"layers\": %d}",
	        mha_pos_name(c->pos), c->pos_offset, c->m, c->layers);
}

/* What a sparse kernel could skip, and the cache of one layer in bytes. */
static void put_counts_beyond(FILE *f, const struct mha_config *c, const struct mha_counts *k)
{
	fprintf(f, ",\n  \"sparse\": {\"pairs_visible\": %" PRId64 ", \"pairs_kept\": %" PRId64
	        ", \"scores_masked\": %" PRId64 ", \"weighted_skippable\": %" PRId64
	        ", \"sparse_saving\": %" PRId64 ", \"selector_break_even\": %.9g}",
	        k->pairs_visible, k->pairs_kept, k->flops_scores_masked, k->flops_weighted_skippable,
	        k->flops_sparse_saving, k->selector_break_even);
	fputs(",\n  \"kv_cache_bytes_per_token\": {", f);
	for (int t = 0; t < MHA_DTYPE_COUNT; t++)
		fprintf(f, "%s\"%s\": %" PRId64, t ? ", " : "", mha_dtype_name((enum mha_dtype)t),
		        mha_kv_cache(c->g, c->dk, 1, (enum mha_dtype)t, 1).bytes_token_layer);
	fputc('}', f);
}

static void put_counts(FILE *f, const struct mha_config *c)
{
	struct mha_counts k = mha_counts(c);
	fprintf(f, "\"counts\": {\"params\": {\"W_Q\": %" PRId64 ", \"W_K\": %" PRId64
	        ", \"W_V\": %" PRId64 ", \"W_O\": %" PRId64 ", \"total\": %" PRId64 "},\n"
	        "  \"flops\": {\"projection\": %" PRId64 ", \"scores\": %" PRId64
	        ", \"softmax\": %" PRId64 ", \"weighted_sum\": %" PRId64 ", \"output\": %" PRId64
	        ", \"position\": %" PRId64 ", \"total\": %" PRId64 "},\n  \"kv_cache_per_token\": %" PRId64,
	        k.params_wq, k.params_wk, k.params_wv, k.params_wo, k.params_total,
	        k.flops_projection, k.flops_scores, k.flops_softmax, k.flops_weighted_sum,
	        k.flops_output, k.flops_position, k.flops_total, k.kv_cache_per_token);
	put_counts_beyond(f, c, &k);
	fprintf(f, ",\n  \"stack\": {\"layers\": %d, \"params\": %" PRId64 ", \"flops\": %" PRId64 "}}",
	        c->layers, k.params_stack, k.flops_stack);
}

/* One whole-matrix tensor of layer l from the table: "KEY": [[...]] */
static void put_tensor(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                       const struct mha_acts *a, int l, enum mha_tensor t)
{
	struct mha_shape s = mha_tensor_shape(c, t);
	fprintf(f, ",\n\"%s\": ", mha_tensor_info(t)->key);
	dump_put_matrix(f, mha_tensor_data_layer(w, a, l, t), s.rows, s.cols, s.cols);
}

/* Those of the tensors in list that c uses, in the list's order. */
static void put_tensors(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                        const struct mha_acts *a, int l, const enum mha_tensor *list, size_t count)
{
	for (size_t t = 0; t < count; t++)
		if (mha_tensor_used(c, list[t]))
			put_tensor(f, c, w, a, l, list[t]);
}

static void put_heads(FILE *f, const struct mha_config *c, const struct mha_acts *a)
{
	const int n = c->n, nk = mha_keys(c);
	size_t nn = (size_t)n * nk, ndk = (size_t)n * c->dk;
	fputs(",\n\"heads\": [", f);
	for (int i = 0; i < c->h; i++) {
		fprintf(f, "%s{\"head\": %d, \"kv_head\": %d, \"on\": %s, \"scores\": ", i ? ",\n " : "",
		        i, mha_kv_head(c, i), c->head_off[i] ? "false" : "true");
		dump_put_matrix(f, a->scores + i * nn, n, nk, nk);
		fputs(",\n  \"weights\": ", f);
		dump_put_matrix(f, a->weights + i * nn, n, nk, nk);
		fputs(",\n  \"output\": ", f);
		dump_put_matrix(f, a->heads + i * ndk, n, c->dk, c->dk);
		fputs(",\n  \"dead_rows\": [", f);
		int first = 1;
		for (int r = 0; r < n; r++) {
			if (!a->dead_row[i * n + r])
				continue;
			fprintf(f, first ? "%d" : ", %d", r);
			first = 0;
		}
		fputs("]}", f);
	}
	fputc(']', f);
}

/* With cfg.bias: layer l's "b_Q": [[h*dk values]], "b_K", "b_V": [[g*dk]],
 * "b_O": [[d]] (one-row matrices, as the session writes them). */
static void put_biases(FILE *f, const struct mha_config *c, const struct mha_weights *w, int l)
{
	for (int k = 0; c->bias && k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias_layer(w, c, l, k);
		fprintf(f, ",\n\"%s\": ", b.key);
		dump_put_matrix(f, b.p, 1, b.len, b.len);
	}
}

static const enum mha_tensor weights_of_layer[] = { MHA_T_WQ, MHA_T_WK, MHA_T_WV, MHA_T_WO };
static const enum mha_tensor projections[] = { MHA_T_Q, MHA_T_K, MHA_T_V, MHA_T_QROT, MHA_T_KROT };

/* "layers": [{"layer": l, W's, biases, x_in, Q .. K_rot, heads, concat,
 * output, x_out}, ...]: every layer of the stack, layer 0 included. */
static void put_layers(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                       const struct mha_stack *s)
{
	static const enum mha_tensor tail[] = { MHA_T_CONCAT, MHA_T_Y, MHA_T_STREAM };
	fputs(",\n\"layers\": [", f);
	for (int l = 0; l < s->layers; l++) {
		const struct mha_acts *a = &s->layer[l];
		fprintf(f, "%s{\"layer\": %d", l ? ",\n" : "", l);
		put_tensors(f, c, w, a, l, weights_of_layer, 4);
		put_biases(f, c, w, l);
		put_tensor(f, c, w, a, l, MHA_T_XIN);
		put_tensors(f, c, w, a, l, projections, 5);
		put_heads(f, c, a);
		put_tensors(f, c, w, a, l, tail, 3);
		fputc('}', f);
	}
	fputc(']', f);
}

static void put_labels(FILE *f, const char *key, const char (*labels)[MHA_LABEL_MAX], int count)
{
	fprintf(f, ",\n\"%s\": [", key);
	for (int i = 0; i < count; i++) {
		if (i)
			fputs(", ", f);
		dump_put_string(f, labels[i]);
	}
	fputc(']', f);
}

static void put_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                     const struct mha_stack_grads *g);

int dump_json(FILE *f, const struct mha_config *c, const struct mha_weights *w,
              const struct mha_stack *s)
{
	return dump_json_grad(f, c, w, s, NULL);
}

int dump_json_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                   const struct mha_stack *s, const struct mha_stack_grads *g)
{
	const struct mha_acts *a = &s->layer[0];
	static const enum mha_tensor inputs[] = { MHA_T_X, MHA_T_XKV, MHA_T_POS, MHA_T_PE };
	fputc('{', f);
	put_config(f, c);
	put_labels(f, "tokens", (const char (*)[MHA_LABEL_MAX])w->labels, c->n);
	if (c->m > 0)
		put_labels(f, "kv_tokens", (const char (*)[MHA_LABEL_MAX])w->kv_labels, c->m);
	fputs(",\n", f);
	put_counts(f, c);
	/* layer 0 at the top, as one-layer consumers always read it */
	put_tensors(f, c, w, a, 0, inputs, 4);
	put_tensors(f, c, w, a, 0, weights_of_layer, 4);
	put_tensors(f, c, w, a, 0, projections, 5);
	put_biases(f, c, w, 0);
	put_mask(f, c);
	put_heads(f, c, a);
	put_tensor(f, c, w, a, 0, MHA_T_CONCAT);
	put_tensor(f, c, w, a, 0, MHA_T_Y);
	put_layers(f, c, w, s);
	if (g)
		put_grad(f, c, w, g);
	fputs("}\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

/* The gradients of one layer's W's (and biases): "W_Q": .., "b_Q": .. */
static void put_layer_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                           const struct mha_grads *g, int l, const char *sep)
{
	const float *data[] = { g->wq, g->wk, g->wv, g->wo };
	for (size_t t = 0; t < 4; t++) {
		struct mha_shape s = mha_tensor_shape(c, weights_of_layer[t]);
		fprintf(f, "%s\"%s\": ", t ? sep : "", mha_tensor_info(weights_of_layer[t])->key);
		dump_put_matrix(f, data[t], s.rows, s.cols, s.cols);
	}
	const float *bias[MHA_BIASES] = { g->bq, g->bk, g->bv, g->bo };
	for (int k = 0; c->bias && k < MHA_BIASES; k++) {
		/* one-row matrices, as the forward's b_Q ... */
		struct mha_bias b = mha_bias_layer(w, c, l, k); /* its key and length */
		fprintf(f, "%s\"%s\": ", sep, b.key);
		dump_put_matrix(f, bias[k], 1, b.len, b.len);
	}
}

/* "grad": dL/dX, dL/dW^Q, dL/dW^K, dL/dW^V, dL/dW^O (layer 0's) for
 * L = 1/2 sum(Y^2), Y the last layer's output, under the forward's keys
 * and in its shapes (mha_tensor_info, shape); with cfg.bias also dL/db_Q,
 * b_K, b_V, b_O as one-row matrices; dL/dX_kv (cross-attention), dL/dP_pos
 * (learned positions); "layers": every layer's W's and biases. */
static void put_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                     const struct mha_stack_grads *g)
{
	struct mha_shape s = mha_tensor_shape(c, MHA_T_X);
	fputs(",\n\"grad\": {\"X\": ", f);
	dump_put_matrix(f, g->x, s.rows, s.cols, s.cols);
	fputs(",\n  ", f);
	put_layer_grad(f, c, w, &g->layer[0], 0, ",\n  ");
	if (c->m > 0) {
		s = mha_tensor_shape(c, MHA_T_XKV);
		fputs(",\n  \"X_kv\": ", f);
		dump_put_matrix(f, g->x_kv, s.rows, s.cols, s.cols);
	}
	if (c->pos == MHA_POS_LEARNED) {
		s = mha_tensor_shape(c, MHA_T_POS);
		fputs(",\n  \"P_pos\": ", f);
		dump_put_matrix(f, g->pos, s.rows, s.cols, s.cols);
	}
	fputs(",\n  \"layers\": [", f);
	for (int l = 0; l < g->layers; l++) {
		fprintf(f, "%s{", l ? ",\n   " : "");
		put_layer_grad(f, c, w, &g->layer[l], l, ", ");
		fputc('}', f);
	}
	fputs("]}", f);
}
