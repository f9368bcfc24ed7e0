/*
 * circ_bench.c - the circuits of the workbench's one layer (circuits.h):
 * each head's write into Y and the proof that the writes add up to Y,
 * and each head's W_QK and W_OV (with GQA, the kv head it reads), their
 * ranks and any rows of them. For a view that shows heads adding into Y
 * and a head as a rank-d_k read and a rank-d_k write; it reads the
 * forward's activations and never runs one. A trained model's heads,
 * with embeddings and read-out, are circ_weights.c's.
 */
#include "circ_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Head i's factors as contiguous (d, dk) doubles: a = W^Q_i or W^V_j, b =
 * W^K_j or (W^O_i)^T, so that the circuit is a b^T. */
static void bench_factors(const struct mha_config *c, const struct mha_weights *w, int i,
                          enum circ_view v, double *a, double *b)
{
	const int d = c->d, dk = c->dk, j = mha_kv_head(c, i);
	const size_t hw = (size_t)c->h * dk, gw = (size_t)c->g * dk;
	for (int r = 0; r < d; r++)
		for (int e = 0; e < dk; e++) {
			size_t at = (size_t)r * dk + e;
			if (v == CIRC_VIEW_QK) {
				a[at] = w->wq[r * hw + (size_t)i * dk + e];
				b[at] = w->wk[r * gw + (size_t)j * dk + e];
			} else {
				a[at] = w->wv[r * gw + (size_t)j * dk + e];
				b[at] = w->wo[((size_t)i * dk + e) * d + r];
			}
		}
}

enum mha_status circ_bench_view_rows(const struct mha_config *c, const struct mha_weights *w, int i,
                                     enum circ_view v, int row0, int rows, double *out)
{
	const int d = c->d, dk = c->dk;
	if (i < 0 || i >= c->h || (v != CIRC_VIEW_QK && v != CIRC_VIEW_OV) || row0 < 0 || rows < 0 ||
	    row0 + rows > d)
		return MHA_EINVAL;
	double *a = malloc(sizeof(double) * 2 * (size_t)d * dk);
	if (!a)
		return MHA_ENOMEM;
	double *b = a + (size_t)d * dk;
	bench_factors(c, w, i, v, a, b);
	// out[r][col] = a[row0 + r] . b[col]
	for (int r = 0; r < rows; r++)
		for (int col = 0; col < d; col++) {
			double acc = 0;
			for (int e = 0; e < dk; e++)
				acc += a[(size_t)(row0 + r) * dk + e] * b[(size_t)col * dk + e];
			out[(size_t)r * d + col] = acc;
		}
	free(a);
	return MHA_OK;
}

enum mha_status circ_bench_make(const struct mha_config *c, const struct mha_weights *w,
                                const struct mha_acts *a, struct circ_bench *out)
{
	const int n = c->n, d = c->d, h = c->h, dk = c->dk;
	const size_t nd = (size_t)n * d, dd = (size_t)d * dk;
	memset(out, 0, sizeof *out);
	out->h = h;
	out->n = n;
	out->d = d;
	out->dk = dk;
	size_t doubles = (size_t)h * nd + 2 * (size_t)h * dk + 2 * dd;
	out->mem = malloc(sizeof(double) * doubles + sizeof(struct circ_rank) * 2 * (size_t)h);
	if (!out->mem)
		return MHA_ENOMEM;
	out->write = out->mem;
	double *sv = out->write + (size_t)h * nd, *fa = sv + 2 * (size_t)h * dk, *fb = fa + dd;
	out->qk = (struct circ_rank *)(fb + dd);
	out->ov = out->qk + h;
	// C_i (n, d) = O_i (n, dk) W^O_i (dk, d), for the heads that are on
	memset(out->write, 0, sizeof(double) * (size_t)h * nd);
	for (int i = 0; i < h; i++) {
		if (c->head_off[i])
			continue;
		double *ci = out->write + (size_t)i * nd;
		for (int t = 0; t < n; t++)
			for (int k = 0; k < dk; k++) {
				double o = a->heads[((size_t)i * n + t) * dk + k];
				const float *wo = w->wo + ((size_t)i * dk + k) * d;
				for (int e = 0; e < d; e++)
					ci[(size_t)t * d + e] += o * wo[e];
			}
	}
	// the proof: sum_i C_i (+ b^O) = Y, cell by cell
	for (size_t k = 0; k < nd; k++) {
		double sum = c->bias ? w->bo[k % d] : 0;
		for (int i = 0; i < h; i++)
			sum += out->write[(size_t)i * nd + k];
		out->sum_error = fmax(out->sum_error, fabs(sum - a->y[k]));
		out->y_max = fmax(out->y_max, fabs(a->y[k]));
	}
	// each head's circuits: singular values of a b^T from the (d, dk) factors
	for (int i = 0; i < h; i++) {
		struct circ_rank *rk[2] = { &out->qk[i], &out->ov[i] };
		enum circ_view v[2] = { CIRC_VIEW_QK, CIRC_VIEW_OV };
		for (int k = 0; k < 2; k++) {
			rk[k]->sv = sv + (2 * (size_t)i + k) * dk;
			bench_factors(c, w, i, v[k], fa, fb);
			if (circ_rank_of(d, dk, fa, fb, rk[k]) != 0) {
				circ_bench_free(out);
				return MHA_ENOMEM;
			}
		}
	}
	return MHA_OK;
}

void circ_bench_free(struct circ_bench *b)
{
	free(b->mem);
	memset(b, 0, sizeof *b);
}
