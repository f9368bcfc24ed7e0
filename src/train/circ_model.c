/*
 * circ_model.c - the trained model in float64 with hooks (circ_int.h):
 * its tensors copied to doubles, and a forward pass that keeps every
 * head's pattern, output and write, and lets an analysis replace a head's
 * output or add to what one head reads through its Q, K or V alone. The
 * trainer's forward (model.c, float32 through the core) stays the one
 * that trains; this one is for measuring, where sums of many small head
 * contributions and ratios of differences want float64. It knows no
 * analysis: ablation, patching and the lens are in circ_patch.c and
 * circ_lens.c.
 */
#include "circ_int.h"
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void to_double(double *dst, const float *src, size_t len)
{
	for (size_t k = 0; k < len; k++)
		dst[k] = src[k];
}

enum mha_status circ_model_make(struct circ_model **out, const struct train_model *m)
{
	const struct train_shape *s = &m->s;
	struct circ_model *cm = calloc(1, sizeof *cm);
	if (!cm)
		return MHA_ENOMEM;
	size_t d = (size_t)s->d, hw = (size_t)s->h * s->dk;
	size_t total = (size_t)s->vocab * d + (size_t)s->n * d + (size_t)s->layers * 4 * d * hw +
	               d * (size_t)s->classes;
	cm->mem = malloc(sizeof(double) * total);
	if (!cm->mem) {
		free(cm);
		return MHA_ENOMEM;
	}
	cm->s = *s;
	memcpy(cm->off, m->head_off, sizeof cm->off);
	double *p = cm->mem;
	cm->emb = p;  to_double(p, m->emb, (size_t)s->vocab * d);  p += (size_t)s->vocab * d;
	cm->pos = p;  to_double(p, m->pos, (size_t)s->n * d);      p += (size_t)s->n * d;
	for (int l = 0; l < s->layers; l++) {
		cm->wq[l] = p; to_double(p, m->wq[l], d * hw); p += d * hw;
		cm->wk[l] = p; to_double(p, m->wk[l], d * hw); p += d * hw;
		cm->wv[l] = p; to_double(p, m->wv[l], d * hw); p += d * hw;
		cm->wo[l] = p; to_double(p, m->wo[l], hw * d); p += hw * d;
	}
	cm->unemb = p;
	to_double(p, m->unemb, d * (size_t)s->classes);
	*out = cm;
	return MHA_OK;
}

void circ_model_free(struct circ_model *cm)
{
	if (!cm)
		return;
	free(cm->mem);
	free(cm);
}

const struct train_shape *circ_model_shape(const struct circ_model *cm)
{
	return &cm->s;
}

enum mha_status circ_run_alloc(struct circ_run *r, const struct circ_model *cm)
{
	const struct train_shape *s = &cm->s;
	size_t n = (size_t)s->n, d = (size_t)s->d, lh = (size_t)s->layers * s->h, dk = (size_t)s->dk;
	size_t sizes[] = { (s->layers + 1) * n * d, lh * n * n, lh * n * dk, lh * n * d, 3 * lh * n * dk,
	                   n * (size_t)s->classes, n * dk };
	size_t total = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		total += sizes[k];
	memset(r, 0, sizeof *r);
	r->mem = calloc(total, sizeof(double));
	if (!r->mem)
		return MHA_ENOMEM;
	double **fields[] = { &r->x, &r->pattern, &r->z, &r->write, &r->qkv, &r->logits, &r->tmp };
	double *p = r->mem;
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		*fields[k] = p;
		p += sizes[k];
	}
	return MHA_OK;
}

void circ_run_free(struct circ_run *r)
{
	free(r->mem);
	memset(r, 0, sizeof *r);
}

bool circ_data_fits(const struct circ_model *cm, const int *tokens, const int *targets, int count)
{
	const size_t len = (size_t)count * cm->s.n;
	for (size_t k = 0; k < len; k++)
		if (tokens[k] < 0 || tokens[k] >= cm->s.vocab || (targets && (targets[k] < -1 || targets[k] >= cm->s.classes)))
			return false;
	return true;
}

double *circ_run_z(const struct circ_model *cm, const struct circ_run *r, int l, int i)
{
	return r->z + ((size_t)l * cm->s.h + (size_t)i) * cm->s.n * cm->s.dk;
}

double *circ_run_write(const struct circ_model *cm, const struct circ_run *r, int l, int i)
{
	return r->write + ((size_t)l * cm->s.h + (size_t)i) * cm->s.n * cm->s.d;
}

double *circ_run_qkv(const struct circ_model *cm, const struct circ_run *r, int l, int i, int c)
{
	return r->qkv + (((size_t)l * cm->s.h + (size_t)i) * CIRC_INPUTS + (size_t)c) * cm->s.n * cm->s.dk;
}

double *circ_run_pattern(const struct circ_model *cm, const struct circ_run *r, int l, int i)
{
	return r->pattern + ((size_t)l * cm->s.h + (size_t)i) * cm->s.n * cm->s.n;
}

/* out (n, dk) = x (n, d) @ the column block of head i of w (d, h dk) */
static void project(const struct circ_model *cm, const double *x, const double *w, int i, double *out)
{
	const struct train_shape *s = &cm->s;
	size_t hw = (size_t)s->h * s->dk, n = (size_t)s->n, d = (size_t)s->d;
	gemm_rm_f64(false, false, s->n, s->dk, s->d, 1.0, x, s->d, n * d, w + (size_t)i * s->dk,
	            (int)hw, d * hw - (size_t)i * s->dk, out, s->dk, n * s->dk);
}

/* P = causal softmax(q k^T / sqrt(dk)) row by row, then z = P v. */
static void attend(const struct train_shape *s, const double *q, const double *k, const double *v,
                   double *p, double *z)
{
	const int n = s->n, dk = s->dk;
	const double scale = 1.0 / sqrt((double)dk);
	for (int a = 0; a < n; a++) {
		double *row = p + (size_t)a * n, mx = -INFINITY, sum = 0;
		// s_ab = q_a . k_b / sqrt(dk), keys b <= a only (the model is causal)
		for (int b = 0; b <= a; b++) {
			double acc = 0;
			for (int e = 0; e < dk; e++)
				acc += q[(size_t)a * dk + e] * k[(size_t)b * dk + e];
			row[b] = acc * scale;
			mx = fmax(mx, row[b]);
		}
		// subtract the row max: softmax is shift-invariant, and exp would overflow
		for (int b = 0; b <= a; b++) {
			row[b] = exp(row[b] - mx);
			sum += row[b];
		}
		for (int b = 0; b <= a; b++)
			row[b] /= sum;
		for (int b = a + 1; b < n; b++)
			row[b] = 0;
	}
	// z (n, dk) = P (n, n) v (n, dk)
	gemm_rm_f64(false, false, n, dk, n, 1.0, p, n, (size_t)n * n, v, dk, (size_t)n * dk, z, dk,
	            (size_t)n * dk);
}

/* Does hk touch head i of layer l (its output, or one of its inputs)? */
static bool hooked(const struct circ_hooks *hk, int l, int i)
{
	return hk && (hk->z[l][i] || hk->delta[l][i][CIRC_Q] || hk->delta[l][i][CIRC_K] ||
	              hk->delta[l][i][CIRC_V]);
}

/* Head (l, i) computed into r: q, k, v (or base's, when given: the layer's
 * input is base's), each plus the projection of its delta where hooked
 * (x W + delta W = (x + delta) W), then the pattern and the output unless
 * base's still hold (only O_i replaced), then the write. */
static void head_forward(const struct circ_model *cm, const double *xl, const struct circ_hooks *hk,
                         const struct circ_run *base, int l, int i, struct circ_run *r)
{
	const struct train_shape *s = &cm->s;
	const size_t n = (size_t)s->n, nd = n * s->d, ndk = n * s->dk;
	const double *w[CIRC_INPUTS] = { cm->wq[l], cm->wk[l], cm->wv[l] };
	double *qkv[CIRC_INPUTS];
	bool moved = false; /* an input differs from base's */
	for (int c = 0; c < CIRC_INPUTS; c++) {
		qkv[c] = circ_run_qkv(cm, r, l, i, c);
		const double *delta = hk ? hk->delta[l][i][c] : NULL;
		// q = x_l W^Q_i (+ delta W^Q_i), likewise k and v
		if (base)
			memcpy(qkv[c], circ_run_qkv(cm, base, l, i, c), ndk * sizeof(double));
		else
			project(cm, xl, w[c], i, qkv[c]);
		if (delta) {
			project(cm, delta, w[c], i, r->tmp);
			for (size_t e = 0; e < ndk; e++)
				qkv[c][e] += r->tmp[e];
			moved = true;
		}
	}
	double *p = circ_run_pattern(cm, r, l, i), *z = circ_run_z(cm, r, l, i), *wr = circ_run_write(cm, r, l, i);
	if (base && !moved) {
		memcpy(p, circ_run_pattern(cm, base, l, i), n * n * sizeof(double));
		memcpy(z, circ_run_z(cm, base, l, i), ndk * sizeof(double));
	} else {
		attend(s, qkv[CIRC_Q], qkv[CIRC_K], qkv[CIRC_V], p, z);
	}
	if (hk && hk->z[l][i])
		memcpy(z, hk->z[l][i], ndk * sizeof *z);
	if (cm->off[l][i]) {
		memset(wr, 0, nd * sizeof *wr);
		return;
	}
	// write (n, d) = O_i (n, dk) W^O_i (dk, d)
	gemm_rm_f64(false, false, s->n, s->d, s->dk, 1.0, z, s->dk, ndk, cm->wo[l] + (size_t)i * s->dk * s->d,
	            s->d, (size_t)s->dk * s->d, wr, s->d, nd);
}

/* Head (l, i)'s projections, pattern, output and write, copied from base. */
static void head_copy(const struct circ_model *cm, const struct circ_run *base, int l, int i,
                      struct circ_run *r)
{
	const struct train_shape *s = &cm->s;
	const size_t n = (size_t)s->n;
	memcpy(circ_run_qkv(cm, r, l, i, 0), circ_run_qkv(cm, base, l, i, 0), 3 * n * s->dk * sizeof(double));
	memcpy(circ_run_pattern(cm, r, l, i), circ_run_pattern(cm, base, l, i), n * n * sizeof(double));
	memcpy(circ_run_z(cm, r, l, i), circ_run_z(cm, base, l, i), n * s->dk * sizeof(double));
	memcpy(circ_run_write(cm, r, l, i), circ_run_write(cm, base, l, i), n * s->d * sizeof(double));
}

void circ_forward(const struct circ_model *cm, const int *tokens, const struct circ_hooks *hk,
                  const struct circ_run *base, struct circ_run *r)
{
	const struct train_shape *s = &cm->s;
	const size_t n = (size_t)s->n, d = (size_t)s->d, nd = n * d;
	// x_0[t] = E[token t] + P[t]
	for (size_t t = 0; t < n; t++)
		for (size_t e = 0; e < d; e++)
			r->x[t * d + e] = cm->emb[(size_t)tokens[t] * d + e] + cm->pos[t * d + e];
	bool changed = false; /* x_l differs from base's: every head must be computed */
	for (int l = 0; l < s->layers; l++) {
		const double *xl = r->x + (size_t)l * nd;
		double *xn = r->x + (size_t)(l + 1) * nd;
		// x_{l+1} = x_l + sum of the heads' writes
		memcpy(xn, xl, nd * sizeof *xn);
		for (int i = 0; i < s->h; i++) {
			if (!base || changed)
				head_forward(cm, xl, hk, NULL, l, i, r);
			else if (hooked(hk, l, i))
				head_forward(cm, xl, hk, base, l, i, r);
			else
				head_copy(cm, base, l, i, r);
			const double *wr = circ_run_write(cm, r, l, i);
			for (size_t e = 0; e < nd; e++)
				xn[e] += wr[e];
		}
		for (int i = 0; i < s->h; i++)
			changed |= hooked(hk, l, i);
	}
	if (base && !changed) {
		memcpy(r->logits, base->logits, n * (size_t)s->classes * sizeof(double));
		return;
	}
	// logits (n, C) = x_L (n, d) U (d, C)
	gemm_rm_f64(false, false, s->n, s->classes, s->d, 1.0, r->x + (size_t)s->layers * nd, s->d, nd,
	            cm->unemb, s->classes, d * (size_t)s->classes, r->logits, s->classes,
	            n * (size_t)s->classes);
}

void circ_run_score(const struct circ_model *cm, const struct circ_run *r, const int *targets,
                    double *logp, long *correct, long *counted)
{
	const int C = cm->s.classes;
	for (int t = 0; t < cm->s.n; t++) {
		if (targets[t] < 0)
			continue;
		const double *row = r->logits + (size_t)t * C;
		int best = 0;
		for (int c = 1; c < C; c++)
			if (row[c] > row[best])
				best = c;
		// log p(target) = logit[target] - max - log sum exp(logit - max)
		double sum = 0;
		for (int c = 0; c < C; c++)
			sum += exp(row[c] - row[best]);
		*logp += row[targets[t]] - row[best] - log(sum);
		*correct += best == targets[t];
		*counted += 1;
	}
}

void circ_head_factors(const struct circ_model *cm, int l, int i, double *q, double *k, double *v,
                       double *o)
{
	const struct train_shape *s = &cm->s;
	size_t hw = (size_t)s->h * s->dk, dk = (size_t)s->dk, d = (size_t)s->d;
	for (size_t r = 0; r < d; r++)
		for (size_t e = 0; e < dk; e++) {
			size_t at = r * hw + (size_t)i * dk + e;
			if (q) q[r * dk + e] = cm->wq[l][at];
			if (k) k[r * dk + e] = cm->wk[l][at];
			if (v) v[r * dk + e] = cm->wv[l][at];
		}
	if (o)
		memcpy(o, cm->wo[l] + (size_t)i * dk * d, sizeof(double) * dk * d);
}

void circ_draw_distinct(uint64_t *rng, int vocab, int k, int *out)
{
	for (int i = 0; i < k; i++) {
		bool seen;
		do { /* a token already drawn is drawn again */
			out[i] = (int)(train_rand(rng) % (uint64_t)vocab);
			seen = false;
			for (int j = 0; j < i && !seen; j++)
				seen = out[j] == out[i];
		} while (seen);
	}
}

double circ_gauss(uint64_t *rng)
{
	// Box-Muller: u1 in (0, 1], u2 in [0, 1), 53 random bits each
	double u1 = ((double)(train_rand(rng) >> 11) + 1.0) / 9007199254740992.0;
	double u2 = (double)(train_rand(rng) >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
