/*
 * dump.c - print configuration, counts, inputs and every intermediate as
 * JSON. Floats use %.9g so a float32 reads back exactly; a non-finite value
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
	for (int t = 0, first = 1; t < c->n; t++)
		if (mha_is_pad(c, t)) {
			fprintf(f, first ? "%d" : ", %d", t);
			first = 0;
		}
	fprintf(f, "], \"bias\": %s, \"window\": %d, \"hidden\": [", c->bias ? "true" : "false", c->window);
	for (int i = 0, first = 1; i < c->n && i < MHA_MAX_TOKENS; i++)
		for (int j = 0; j < c->n && j < 64; j++)
			if ((c->hide[i] >> j) & 1u) {
				fprintf(f, first ? "[%d, %d]" : ", [%d, %d]", i, j);
				first = 0;
			}
	fputc(']', f);
}

/* With cfg.bias: "b_Q": [[h*dk values]], "b_K", "b_V": [[g*dk]], "b_O": [[d]]
 * (one-row matrices, as the session writes them). */
static void put_biases(FILE *f, const struct mha_config *c, const struct mha_weights *w)
{
	if (!c->bias)
		return;
	for (int k = 0; k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias(w, c, k);
		fprintf(f, ",\n\"%s\": ", b.key);
		dump_put_matrix(f, b.p, 1, b.len, b.len);
	}
}

/* "mask": (n, n) 1 where query (row) sees key (column) before top-k:
 * causal, window, padding and custom together (mha_mask_row). */
static void put_mask(FILE *f, const struct mha_config *c)
{
	unsigned char keep[MHA_MAX_TOKENS];
	fputs(",\n\"mask\": [", f);
	for (int i = 0; i < c->n; i++) {
		mha_mask_row(c, i, NULL, keep);
		fputs(i ? ",\n  [" : "[", f);
		for (int j = 0; j < c->n; j++)
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
	fputs("}", f);
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
	        ", \"total\": %" PRId64 "},\n  \"kv_cache_per_token\": %" PRId64,
	        k.params_wq, k.params_wk, k.params_wv, k.params_wo, k.params_total,
	        k.flops_projection, k.flops_scores, k.flops_softmax, k.flops_weighted_sum,
	        k.flops_output, k.flops_total, k.kv_cache_per_token);
	put_counts_beyond(f, c, &k);
	fputc('}', f);
}

/* One whole-matrix tensor from the table: "KEY": [[...]] */
static void put_tensor(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                       const struct mha_acts *a, enum mha_tensor t)
{
	struct mha_shape s = mha_tensor_shape(c, t);
	fprintf(f, ",\n\"%s\": ", mha_tensor_info(t)->key);
	dump_put_matrix(f, mha_tensor_data(w, a, t), s.rows, s.cols, s.cols);
}

static void put_heads(FILE *f, const struct mha_config *c, const struct mha_acts *a)
{
	size_t nn = (size_t)c->n * c->n, ndk = (size_t)c->n * c->dk;
	fputs(",\n\"heads\": [", f);
	for (int i = 0; i < c->h; i++) {
		fprintf(f, "%s{\"head\": %d, \"kv_head\": %d, \"on\": %s, \"scores\": ", i ? ",\n " : "",
		        i, mha_kv_head(c, i), c->head_off[i] ? "false" : "true");
		dump_put_matrix(f, a->scores + i * nn, c->n, c->n, c->n);
		fputs(",\n  \"weights\": ", f);
		dump_put_matrix(f, a->weights + i * nn, c->n, c->n, c->n);
		fputs(",\n  \"output\": ", f);
		dump_put_matrix(f, a->heads + i * ndk, c->n, c->dk, c->dk);
		fputs(",\n  \"dead_rows\": [", f);
		int first = 1;
		for (int r = 0; r < c->n; r++) {
			if (!a->dead_row[i * c->n + r])
				continue;
			fprintf(f, first ? "%d" : ", %d", r);
			first = 0;
		}
		fputs("]}", f);
	}
	fputc(']', f);
}

static void put_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                     const struct mha_grads *g);

int dump_json(FILE *f, const struct mha_config *c, const struct mha_weights *w,
              const struct mha_acts *a)
{
	return dump_json_grad(f, c, w, a, NULL);
}

int dump_json_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                   const struct mha_acts *a, const struct mha_grads *g)
{
	fputc('{', f);
	put_config(f, c);
	fputs(",\n\"tokens\": [", f);
	for (int i = 0; i < c->n; i++) {
		if (i)
			fputs(", ", f);
		dump_put_string(f, w->labels[i]);
	}
	fputs("],\n", f);
	put_counts(f, c);
	static const enum mha_tensor whole[] = {
		MHA_T_X, MHA_T_WQ, MHA_T_WK, MHA_T_WV, MHA_T_WO, MHA_T_Q, MHA_T_K, MHA_T_V,
	};
	for (size_t t = 0; t < sizeof whole / sizeof whole[0]; t++)
		put_tensor(f, c, w, a, whole[t]);
	put_biases(f, c, w);
	put_mask(f, c);
	put_heads(f, c, a);
	put_tensor(f, c, w, a, MHA_T_CONCAT);
	put_tensor(f, c, w, a, MHA_T_Y);
	if (g)
		put_grad(f, c, w, g);
	fputs("}\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

/* "grad": dL/dX, dL/dW^Q, dL/dW^K, dL/dW^V, dL/dW^O for L = 1/2 sum(Y^2),
 * under the forward's keys and in its shapes (mha_tensor_info, shape);
 * with cfg.bias also dL/db_Q, b_K, b_V, b_O as one-row matrices. */
static void put_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                     const struct mha_grads *g)
{
	static const enum mha_tensor inputs[] = { MHA_T_X, MHA_T_WQ, MHA_T_WK, MHA_T_WV, MHA_T_WO };
	const float *data[] = { g->x, g->wq, g->wk, g->wv, g->wo };
	fputs(",\n\"grad\": {", f);
	for (size_t t = 0; t < sizeof inputs / sizeof inputs[0]; t++) {
		struct mha_shape s = mha_tensor_shape(c, inputs[t]);
		fprintf(f, "%s\"%s\": ", t ? ",\n  " : "", mha_tensor_info(inputs[t])->key);
		dump_put_matrix(f, data[t], s.rows, s.cols, s.cols);
	}
	const float *bias[MHA_BIASES] = { g->bq, g->bk, g->bv, g->bo };
	for (int k = 0; c->bias && k < MHA_BIASES; k++) {
		/* one-row matrices, as the forward's b_Q ... */
		struct mha_bias b = mha_bias(w, c, k); /* its key and length */
		fprintf(f, ",\n  \"%s\": ", b.key);
		dump_put_matrix(f, bias[k], 1, b.len, b.len);
	}
	fputc('}', f);
}
