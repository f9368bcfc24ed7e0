/*
 * circ_weights.c - what a head is, from its weights alone: its QK and OV
 * circuits (singular values, numeric rank, norm), the token-space and
 * positional views, the copying score and the share of tokens that
 * predict themselves, and the composition scores between the heads of
 * consecutive layers with their random baseline (circuits.h). Every
 * figure is computed from the dk-wide factors of a head, never from a
 * d x d (or V x V) product that would only be summed: the eigenvalues of
 * E W_OV U come from a dk x dk matrix, the norms of products from dk x dk
 * Gram matrices. It runs no forward pass (circ_scores.c does).
 */
#include "circ_int.h"
#include "gemm.h"
#include "linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const int circ_periods[CIRC_PERIODS] = { 4, 8, 12, 16, 24, 32, 48 };

const char *circ_input_name(enum circ_input in)
{
	static const char *names[CIRC_INPUTS] = { "q", "k", "v" };
	return (unsigned)in < CIRC_INPUTS ? names[in] : "?";
}

/* One head's factors, each contiguous: Q, K, V (d, dk), O (dk, d), and
 * O^T (d, dk) for the OV circuit as a product A B^T. */
struct factors {
	double *q, *k, *v, *o, *ot;
	double *mem;
};

static bool factors_alloc(struct factors *f, const struct train_shape *s)
{
	size_t dd = (size_t)s->d * s->dk;
	f->mem = malloc(sizeof(double) * 5 * dd);
	if (!f->mem)
		return false;
	f->q = f->mem; f->k = f->q + dd; f->v = f->k + dd; f->o = f->v + dd; f->ot = f->o + dd;
	return true;
}

static void factors_fill(const struct circ_model *cm, int l, int i, struct factors *f)
{
	const int d = cm->s.d, dk = cm->s.dk;
	circ_head_factors(cm, l, i, f->q, f->k, f->v, f->o);
	for (int r = 0; r < dk; r++)
		for (int c = 0; c < d; c++)
			f->ot[(size_t)c * dk + r] = f->o[(size_t)r * d + c];
}

int circ_rank_of(int d, int dk, const double *a, const double *b, struct circ_rank *out)
{
	if (linalg_product_singular_values(d, dk, a, dk, b, dk, out->sv) != 0)
		return -1;
	double sq = 0, tol = out->sv[0] * d * CIRC_RANK_TOL;
	out->rank = 0;
	for (int k = 0; k < dk; k++) {
		sq += out->sv[k] * out->sv[k];
		out->rank += out->sv[k] > tol && out->sv[k] > 0;
	}
	out->norm = sqrt(sq);
	return 0;
}

static int by_magnitude(const void *x, const void *y)
{
	const double *a = x, *b = y; /* (re, im) pairs */
	double ma = hypot(a[0], a[1]), mb = hypot(b[0], b[1]);
	if (ma != mb)
		return (ma < mb) - (ma > mb);
	return (a[1] < b[1]) - (a[1] > b[1]); /* conjugates: + first */
}

/* The copying score and own_top of head f when V = C. ue (d, d) = U E. */
static int token_map(const struct circ_model *cm, const struct factors *f, const double *ue,
                     struct circ_head *hd, double *work)
{
	const int d = cm->s.d, dk = cm->s.dk, V = cm->s.vocab, C = cm->s.classes;
	const size_t dd = (size_t)d * dk;
	// core (dk, dk) = O_i (dk, d) [U E] (d, d) V_i (d, dk): eig(core) = the nonzero eig of E W_OV U
	double *oue = work, *core = oue + dd, *pair = core + (size_t)dk * dk, *re = pair + 2 * (size_t)dk,
	       *im = re + dk;
	gemm_rm_f64(false, false, dk, d, d, 1.0, f->o, d, dd, ue, d, (size_t)d * d, oue, d, dd);
	gemm_rm_f64(false, false, dk, dk, d, 1.0, oue, d, dd, f->v, dk, dd, core, dk, (size_t)dk * dk);
	if (linalg_eigenvalues(dk, core, re, im) != 0)
		return -1;
	double sum = 0, abs_sum = 0;
	for (int k = 0; k < dk; k++) {
		sum += re[k];             /* the imaginary parts cancel in conjugate pairs */
		abs_sum += hypot(re[k], im[k]);
		pair[2 * k] = re[k];
		pair[2 * k + 1] = im[k];
	}
	qsort(pair, (size_t)dk, 2 * sizeof *pair, by_magnitude);
	for (int k = 0; k < dk; k++) {
		hd->eig_re[k] = pair[2 * k];
		hd->eig_im[k] = pair[2 * k + 1];
	}
	hd->copying = abs_sum > 0 ? sum / abs_sum : NAN;

	// own_top: row t of E W_OV U = (E[t] V_i) (O_i U), a block of rows at a time
	enum { BLOCK = 64 };
	double *ev = malloc(sizeof(double) * ((size_t)V * dk + (size_t)dk * C + (size_t)BLOCK * C));
	if (!ev)
		return -1;
	double *ou = ev + (size_t)V * dk, *rows = ou + (size_t)dk * C;
	gemm_rm_f64(false, false, V, dk, d, 1.0, cm->emb, d, (size_t)V * d, f->v, dk, dd, ev, dk,
	            (size_t)V * dk);
	gemm_rm_f64(false, false, dk, C, d, 1.0, f->o, d, dd, cm->unemb, C, (size_t)d * C, ou, C,
	            (size_t)dk * C);
	int own = 0;
	for (int t0 = 0; t0 < V; t0 += BLOCK) {
		int nr = V - t0 < BLOCK ? V - t0 : BLOCK;
		gemm_rm_f64(false, false, nr, C, dk, 1.0, ev + (size_t)t0 * dk, dk, (size_t)nr * dk, ou, C,
		            (size_t)dk * C, rows, C, (size_t)nr * C);
		for (int r = 0; r < nr; r++) {
			const double *row = rows + (size_t)r * C;
			int t = t0 + r, strict = 1;
			for (int c = 0; c < C && strict; c++)
				strict = c == t || row[c] < row[t];
			own += strict;
		}
	}
	hd->own_top = (double)own / V;
	free(ev);
	return 0;
}

enum mha_status circ_heads_make(const struct circ_model *cm, struct circ_head *heads, char *msg,
                                size_t len)
{
	const struct train_shape *s = &cm->s;
	const int d = s->d, dk = s->dk, L = s->layers, h = s->h;
	const bool tokens = s->vocab == s->classes;
	memset(heads, 0, sizeof *heads * (size_t)L * h);
	struct factors f;
	size_t dd = (size_t)d * dk;
	double *ue = malloc(sizeof(double) * ((size_t)d * d + 2 * dd + 4 * (size_t)dk * dk));
	if (!ue || !factors_alloc(&f, s)) {
		free(ue);
		return MHA_ENOMEM;
	}
	double *work = ue + (size_t)d * d;
	// U E (d, d) = U (d, C) E (V, d), defined when C = V
	if (tokens)
		gemm_rm_f64(false, false, d, d, s->vocab, 1.0, cm->unemb, s->classes, (size_t)d * s->classes,
		            cm->emb, d, (size_t)s->vocab * d, ue, d, (size_t)d * d);
	enum mha_status st = MHA_OK;
	for (int l = 0; l < L && st == MHA_OK; l++)
		for (int i = 0; i < h && st == MHA_OK; i++) {
			struct circ_head *hd = &heads[l * h + i];
			hd->layer = l;
			hd->head = i;
			hd->off = cm->off[l][i];
			hd->qk.sv = malloc(sizeof(double) * 4 * (size_t)dk);
			if (!hd->qk.sv) {
				st = MHA_ENOMEM;
				break;
			}
			hd->ov.sv = hd->qk.sv + dk;
			hd->eig_re = hd->ov.sv + dk;
			hd->eig_im = hd->eig_re + dk;
			factors_fill(cm, l, i, &f);
			hd->token_space = tokens;
			hd->copying = hd->own_top = NAN;
			for (int p = 0; p < CIRC_PERIODS; p++)
				hd->prefix[p] = NAN;
			hd->prefix_min = NAN;
			// W_QK = Q_i K_i^T; W_OV = V_i O_i = V_i (O_i^T)^T
			if (circ_rank_of(d, dk, f.q, f.k, &hd->qk) != 0 || circ_rank_of(d, dk, f.v, f.ot, &hd->ov) != 0 ||
			    (tokens && token_map(cm, &f, ue, hd, work) != 0)) {
				snprintf(msg, len, "layer %d head %d: an eigenvalue or singular value did not "
				         "converge (or out of memory)", l, i);
				st = MHA_ERANGE;
			}
		}
	free(f.mem);
	free(ue);
	if (st != MHA_OK)
		circ_heads_free(heads, L * h);
	return st;
}

void circ_heads_free(struct circ_head *heads, int count)
{
	for (int k = 0; k < count; k++) {
		free(heads[k].qk.sv);
		heads[k].qk.sv = heads[k].ov.sv = heads[k].eig_re = heads[k].eig_im = NULL;
	}
}

/* ---- views ---- */

struct circ_view_info circ_view_info(const struct circ_model *cm, enum circ_view v)
{
	const struct train_shape *s = &cm->s;
	switch (v) {
	case CIRC_VIEW_QK: return (struct circ_view_info){ "W_QK", "W^Q_i (W^K_i)^T", s->d, s->d };
	case CIRC_VIEW_OV: return (struct circ_view_info){ "W_OV", "W^V_i W^O_i", s->d, s->d };
	case CIRC_VIEW_QK_TOKENS: return (struct circ_view_info){ "E_W_QK_E", "E W_QK E^T", s->vocab, s->vocab };
	case CIRC_VIEW_QK_POS: return (struct circ_view_info){ "P_W_QK_P", "P W_QK P^T", s->n, s->n };
	case CIRC_VIEW_OV_TOKENS: return (struct circ_view_info){ "E_W_OV_U", "E W_OV U", s->vocab, s->classes };
	case CIRC_VIEWS: break;
	}
	return (struct circ_view_info){ "?", "?", 0, 0 };
}

enum mha_status circ_view_rows(const struct circ_model *cm, int l, int i, enum circ_view v,
                               int row0, int rows, double *out)
{
	const struct train_shape *s = &cm->s;
	struct circ_view_info vi = circ_view_info(cm, v);
	if (l < 0 || l >= s->layers || i < 0 || i >= s->h || (unsigned)v >= CIRC_VIEWS || row0 < 0 ||
	    rows < 0 || row0 + rows > vi.rows)
		return MHA_EINVAL;
	const int d = s->d, dk = s->dk, cols = vi.cols;
	const size_t dd = (size_t)d * dk;
	struct factors f;
	// the view = Left (rows, dk) Right^T with Right (cols, dk), or Left Right' (dk, cols)
	double *left = malloc(sizeof(double) * ((size_t)rows * dk + (size_t)cols * dk));
	if (!left || !factors_alloc(&f, s)) {
		free(left);
		return MHA_ENOMEM;
	}
	double *right = left + (size_t)rows * dk;
	factors_fill(cm, l, i, &f);
	const double *lsrc = NULL, *lfac = NULL, *rsrc = NULL, *rfac = NULL;
	bool right_t = true; /* right is (cols, dk): the product is left right^T */
	switch (v) {
	case CIRC_VIEW_QK:        lsrc = NULL;    lfac = f.q; rsrc = NULL;    rfac = f.k; break;
	case CIRC_VIEW_OV:        lsrc = NULL;    lfac = f.v; rsrc = NULL;    rfac = f.ot; break;
	case CIRC_VIEW_QK_TOKENS: lsrc = cm->emb; lfac = f.q; rsrc = cm->emb; rfac = f.k; break;
	case CIRC_VIEW_QK_POS:    lsrc = cm->pos; lfac = f.q; rsrc = cm->pos; rfac = f.k; break;
	case CIRC_VIEW_OV_TOKENS: lsrc = cm->emb; lfac = f.v; right_t = false; break;
	case CIRC_VIEWS: break;
	}
	// left rows: (src[row0..] W_factor) or the factor's own rows
	if (lsrc)
		gemm_rm_f64(false, false, rows, dk, d, 1.0, lsrc + (size_t)row0 * d, d, (size_t)rows * d,
		            lfac, dk, dd, left, dk, (size_t)rows * dk);
	else
		memcpy(left, lfac + (size_t)row0 * dk, sizeof(double) * (size_t)rows * dk);
	if (right_t) {
		if (rsrc)
			gemm_rm_f64(false, false, cols, dk, d, 1.0, rsrc, d, (size_t)cols * d, rfac, dk, dd,
			            right, dk, (size_t)cols * dk);
		else
			memcpy(right, rfac, sizeof(double) * (size_t)cols * dk);
		gemm_rm_f64(false, true, rows, cols, dk, 1.0, left, dk, (size_t)rows * dk, right, dk,
		            (size_t)cols * dk, out, cols, (size_t)rows * cols);
	} else {
		// E W_OV U = (E V_i) (O_i U): right (dk, C) = O_i U
		gemm_rm_f64(false, false, dk, cols, d, 1.0, f.o, d, dd, cm->unemb, cols, (size_t)d * cols,
		            right, cols, (size_t)dk * cols);
		gemm_rm_f64(false, false, rows, cols, dk, 1.0, left, dk, (size_t)rows * dk, right, cols,
		            (size_t)dk * cols, out, cols, (size_t)rows * cols);
	}
	free(f.mem);
	free(left);
	return MHA_OK;
}

/* ---- composition ---- */

/* g (k, k) = a^T a for a (m, k) */
static void gram(int m, int k, const double *a, double *g)
{
	gemm_rm_f64(true, false, k, k, m, 1.0, a, k, (size_t)m * k, a, k, (size_t)m * k, g, k,
	            (size_t)k * k);
}

/* ||X M Y||_F for X (m, k) with G = X^T X, Y (k, m) with H = Y Y^T, M (k, k):
 * ||X M Y||^2 = tr(Y^T M^T X^T X M Y) = tr(M^T G M H) = sum_ij (G M)_ij (M H)_ij */
static double chain_norm(int k, const double *g, const double *m, const double *h, double *work)
{
	double *gm = work, *mh = work + (size_t)k * k, sum = 0;
	size_t kk = (size_t)k * k;
	gemm_rm_f64(false, false, k, k, k, 1.0, g, k, kk, m, k, kk, gm, k, kk);
	gemm_rm_f64(false, false, k, k, k, 1.0, m, k, kk, h, k, kk, mh, k, kk);
	for (size_t e = 0; e < kk; e++)
		sum += gm[e] * mh[e];
	return sqrt(sum > 0 ? sum : 0);
}

/* What composition needs of a head: the Gram matrices of its factors
 * (dk, dk) and the norms of its two circuits. */
struct head_grams {
	double *gq, *gk, *gv, *ho; /* Q^T Q, K^T K, V^T V, O O^T */
	double qk_norm, ov_norm;
};

static void grams_fill(int d, int dk, const struct factors *f, struct head_grams *g)
{
	size_t kk = (size_t)dk * dk;
	gram(d, dk, f->q, g->gq);
	gram(d, dk, f->k, g->gk);
	gram(d, dk, f->v, g->gv);
	gram(d, dk, f->ot, g->ho);
	// ||A B^T||^2 = tr(A^T A B^T B): ||W_QK||^2 = <Q^T Q, K^T K>, ||W_OV||^2 = <V^T V, O O^T>
	double qk = 0, ov = 0;
	for (size_t e = 0; e < kk; e++) {
		qk += g->gq[e] * g->gk[e];
		ov += g->gv[e] * g->ho[e];
	}
	g->qk_norm = sqrt(qk > 0 ? qk : 0);
	g->ov_norm = sqrt(ov > 0 ? ov : 0);
}

/* The three scores of sender a (layer l) into receiver b (layer l + 1). */
static void compose(int d, int dk, const struct factors *fa, const struct head_grams *ga,
                    const struct factors *fb, const struct head_grams *gb, double *work,
                    double score[CIRC_INPUTS])
{
	size_t kk = (size_t)dk * dk, dd = (size_t)d * dk;
	double *m = work, *rest = work + kk;
	// Q: W_OV^a W_QK^b = V_a (O_a Q_b) K_b^T
	gemm_rm_f64(false, false, dk, dk, d, 1.0, fa->o, d, dd, fb->q, dk, dd, m, dk, kk);
	double q = chain_norm(dk, ga->gv, m, gb->gk, rest);
	// K: W_QK^b (W_OV^a)^T = Q_b (K_b^T O_a^T) V_a^T, K_b^T O_a^T = (O_a K_b)^T
	double *ok = rest + 2 * kk;
	gemm_rm_f64(false, false, dk, dk, d, 1.0, fa->o, d, dd, fb->k, dk, dd, ok, dk, kk);
	for (int r = 0; r < dk; r++)
		for (int c = 0; c < dk; c++)
			m[(size_t)r * dk + c] = ok[(size_t)c * dk + r];
	double k = chain_norm(dk, gb->gq, m, ga->gv, rest);
	// V: W_OV^a W_OV^b = V_a (O_a V_b) O_b
	gemm_rm_f64(false, false, dk, dk, d, 1.0, fa->o, d, dd, fb->v, dk, dd, m, dk, kk);
	double v = chain_norm(dk, ga->gv, m, gb->ho, rest);
	double qa = ga->ov_norm * gb->qk_norm, va = ga->ov_norm * gb->ov_norm;
	score[CIRC_Q] = qa > 0 ? q / qa : 0;
	score[CIRC_K] = qa > 0 ? k / qa : 0;
	score[CIRC_V] = va > 0 ? v / va : 0;
}

/* Room for a head's grams and the composition work. */
static double *grams_alloc(int dk, int heads, struct head_grams *g)
{
	size_t kk = (size_t)dk * dk;
	double *mem = malloc(sizeof(double) * kk * (4 * (size_t)heads + 4));
	if (!mem)
		return NULL;
	for (int i = 0; i < heads; i++) {
		g[i].gq = mem + kk * 4 * i;
		g[i].gk = g[i].gq + kk;
		g[i].gv = g[i].gk + kk;
		g[i].ho = g[i].gv + kk;
	}
	return mem;
}

enum mha_status circ_composition_make(const struct circ_model *cm, int l, int draws,
                                      struct circ_composition *comp)
{
	const struct train_shape *s = &cm->s;
	const int d = s->d, dk = s->dk, h = s->h;
	const size_t kk = (size_t)dk * dk, hh = (size_t)h * h;
	memset(comp, 0, sizeof *comp);
	comp->layer = l;
	if (l < 0 || l + 1 >= s->layers)
		return MHA_EINVAL;
	struct head_grams g[2 * MHA_MAX_HEADS];
	struct factors *f = calloc(2 * (size_t)h, sizeof *f);
	double *mem = grams_alloc(dk, 2 * h, g);
	double *work = mem ? mem + kk * 8 * (size_t)h : NULL;
	comp->score[0] = malloc(sizeof(double) * 3 * hh);
	bool ok = f && mem && comp->score[0];
	for (int k = 0; k < 2 * h && ok; k++)
		ok = factors_alloc(&f[k], s);
	if (ok) {
		comp->score[1] = comp->score[0] + hh;
		comp->score[2] = comp->score[1] + hh;
		for (int k = 0; k < 2 * h; k++) {
			factors_fill(cm, l + k / h, k % h, &f[k]);
			grams_fill(d, dk, &f[k], &g[k]);
		}
		for (int a = 0; a < h; a++)
			for (int b = 0; b < h; b++) {
				double sc[CIRC_INPUTS];
				compose(d, dk, &f[a], &g[a], &f[h + b], &g[h + b], work, sc);
				for (int in = 0; in < CIRC_INPUTS; in++)
					comp->score[in][(size_t)a * h + b] = sc[in];
			}
		circ_baseline_draw(d, dk, draws, CIRC_BASELINE_SEED, &comp->baseline);
	}
	for (int k = 0; f && k < 2 * h; k++)
		free(f[k].mem);
	free(f);
	free(mem);
	if (!ok) {
		circ_composition_free(comp);
		return MHA_ENOMEM;
	}
	return MHA_OK;
}

void circ_composition_free(struct circ_composition *comp)
{
	free(comp->score[0]);
	comp->score[0] = comp->score[1] = comp->score[2] = NULL;
}

void circ_baseline_draw(int d, int dk, int draws, uint64_t seed, struct circ_baseline *out)
{
	memset(out, 0, sizeof *out);
	struct factors f[2] = { { 0 }, { 0 } };
	struct head_grams g[2];
	size_t dd = (size_t)d * dk, kk = (size_t)dk * dk;
	struct train_shape s = { .d = d, .dk = dk };
	double *mem = grams_alloc(dk, 2, g);
	bool ok = mem && factors_alloc(&f[0], &s) && factors_alloc(&f[1], &s);
	if (!ok || draws < 1) {
		free(f[0].mem);
		free(f[1].mem);
		free(mem);
		for (int in = 0; in < CIRC_INPUTS; in++)
			out->mean[in] = out->sd[in] = NAN;
		return;
	}
	double *work = mem + kk * 8;
	double sum[CIRC_INPUTS] = { 0 }, sq[CIRC_INPUTS] = { 0 };
	uint64_t rng = seed;
	for (int t = 0; t < draws; t++) {
		// every factor i.i.d. N(0, 1), in its own shape: rank-dk products, as a head's
		for (int k = 0; k < 2; k++) {
			double *m[4] = { f[k].q, f[k].k, f[k].v, f[k].o };
			for (int j = 0; j < 4; j++)
				for (size_t e = 0; e < dd; e++)
					m[j][e] = circ_gauss(&rng);
			for (int r = 0; r < dk; r++)
				for (int c = 0; c < d; c++)
					f[k].ot[(size_t)c * dk + r] = f[k].o[(size_t)r * d + c];
			grams_fill(d, dk, &f[k], &g[k]);
		}
		double sc[CIRC_INPUTS];
		compose(d, dk, &f[0], &g[0], &f[1], &g[1], work, sc);
		for (int in = 0; in < CIRC_INPUTS; in++) {
			sum[in] += sc[in];
			sq[in] += sc[in] * sc[in];
		}
	}
	out->draws = draws;
	for (int in = 0; in < CIRC_INPUTS; in++) {
		out->mean[in] = sum[in] / draws;
		double var = draws > 1 ? (sq[in] - draws * out->mean[in] * out->mean[in]) / (draws - 1) : 0;
		out->sd[in] = sqrt(var > 0 ? var : 0);
	}
	free(f[0].mem);
	free(f[1].mem);
	free(mem);
}
