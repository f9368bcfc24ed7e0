/*
 * test_circuits_fixtures.c - every circuit figure against the independent
 * float64 numpy of tools/gen_circuit_fixtures.py (tests/fixtures/circuits):
 * eigenvalues and singular values (linalg.c); for three models (a small
 * random one with a head switched off, one layer with V != C, and the
 * trained induction model) each head's singular values, ranks, copying,
 * own-top share, eigenvalues and views; composition scores and the random
 * baseline (within the two Monte Carlos' error); pattern scores per
 * period and pooled; zero / mean / resample ablation of heads and paths;
 * activation and path patching; the logit lens. The library is fed the
 * fixture's own sequences, so only the arithmetic is compared. Tolerance:
 * 1e-10 relative (both sides are float64 on the same float32 weights; seen:
 * 2e-13), 1e-7 for pattern scores (through float32 P).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "circuits.h"
#include "linalg.h"

/* ---- the fixture file: KEY COUNT values ---- */

struct entry {
	char key[64];
	int count;
	double *v;
};

struct fixture {
	struct entry *e;
	int n;
};

static FILE *open_fixture(const char *name, char *path, size_t len)
{
	const char *root = getenv("MHA_SOURCE_ROOT");
	if (!root)
		fail_msg("MHA_SOURCE_ROOT is not set: run under meson test");
	snprintf(path, len, "%s/tests/fixtures/circuits/%s", root, name);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	return f;
}

static void fx_load(struct fixture *fx, const char *name)
{
	char path[4096], word[64];
	FILE *f = open_fixture(name, path, sizeof path);
	memset(fx, 0, sizeof *fx);
	int cap = 0, ch;
	for (;;) {
		while ((ch = getc(f)) == '#') /* comment lines */
			while ((ch = getc(f)) != '\n' && ch != EOF)
				;
		ungetc(ch, f);
		int count;
		if (fscanf(f, " %63s %d", word, &count) != 2)
			fail_msg("%s: expected 'KEY COUNT' after %d entries", path, fx->n);
		if (!strcmp(word, "end"))
			break;
		if (fx->n == cap) {
			cap = cap ? 2 * cap : 64;
			fx->e = realloc(fx->e, sizeof *fx->e * (size_t)cap);
			assert_non_null(fx->e);
		}
		struct entry *e = &fx->e[fx->n++];
		snprintf(e->key, sizeof e->key, "%s", word);
		e->count = count;
		e->v = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
		assert_non_null(e->v);
		for (int k = 0; k < count; k++) {
			if (fscanf(f, " %63s", word) != 1)
				fail_msg("%s: %s ends early", path, e->key);
			e->v[k] = !strcmp(word, "nan") ? NAN : strtod(word, NULL);
		}
	}
	fclose(f);
}

static void fx_free(struct fixture *fx)
{
	for (int k = 0; k < fx->n; k++)
		free(fx->e[k].v);
	free(fx->e);
}

/* The values of key (count of them, when count >= 0), or NULL when absent. */
static const double *fx_find(const struct fixture *fx, const char *key, int count)
{
	for (int k = 0; k < fx->n; k++)
		if (!strcmp(fx->e[k].key, key)) {
			if (count >= 0 && fx->e[k].count != count)
				fail_msg("fixture %s: %d values, want %d", key, fx->e[k].count, count);
			return fx->e[k].v;
		}
	return NULL;
}

static const double *fx_get(const struct fixture *fx, const char *key, int count)
{
	const double *v = fx_find(fx, key, count);
	if (!v)
		fail_msg("fixture has no %s", key);
	return v;
}

static int *fx_ints(const struct fixture *fx, const char *key, int count)
{
	const double *v = fx_get(fx, key, count);
	int *out = malloc(sizeof(int) * (size_t)count);
	assert_non_null(out);
	for (int k = 0; k < count; k++)
		out[k] = (int)v[k];
	return out;
}

/* |got - want| <= tol * max(1, |want|) everywhere (NaN only where want is
 * NaN); the message names the worst element. */
static void close_rel(const double *got, const double *want, int n, double tol, const char *label)
{
	int worst = -1;
	double wd = 0;
	for (int k = 0; k < n; k++) {
		if (isnan(want[k]) || isnan(got[k])) {
			if (isnan(want[k]) != isnan(got[k]))
				fail_msg("%s[%d]: got %.17g, want %.17g", label, k, got[k], want[k]);
			continue;
		}
		double d = fabs(got[k] - want[k]) / fmax(1.0, fabs(want[k]));
		if (d > wd) {
			wd = d;
			worst = k;
		}
	}
	if (wd > tol)
		fail_msg("%s: worst element %d of %d: got %.17g, want %.17g, relative %.3g > %.3g", label, worst, n,
		         got[worst], want[worst], wd, tol);
}

/* Eigenvalues as a set: each wanted one matched to the nearest unused got. */
static void eig_match(const double *re, const double *im, const double *want, int n, double tol,
                      const char *label)
{
	bool used[256] = { false };
	double scale = 1;
	for (int k = 0; k < n; k++)
		scale = fmax(scale, hypot(want[2 * k], want[2 * k + 1]));
	for (int k = 0; k < n; k++) {
		int best = -1;
		double bd = INFINITY;
		for (int j = 0; j < n; j++)
			if (!used[j] && hypot(re[j] - want[2 * k], im[j] - want[2 * k + 1]) < bd) {
				bd = hypot(re[j] - want[2 * k], im[j] - want[2 * k + 1]);
				best = j;
			}
		used[best] = true;
		if (bd > tol * scale)
			fail_msg("%s: eigenvalue %.17g%+.17gi: nearest %.17g%+.17gi, off by %.3g", label, want[2 * k],
			         want[2 * k + 1], re[best], im[best], bd);
	}
}

static const double TOL = 1e-10;
/* pattern scores go through float32 P (train_pattern_accumulate takes the
 * core's float weights): 6e-8 rounding of each weight */
static const double TOL_PATTERN = 1e-7;

/* ---- linalg ---- */

static void test_eigenvalues_match_numpy(void **state)
{
	(void)state;
	struct fixture fx;
	fx_load(&fx, "eig.txt");
	int count = (int)fx_get(&fx, "eig.count", 1)[0];
	char key[64];
	for (int k = 0; k < count; k++) {
		snprintf(key, sizeof key, "eig.n.%d", k);
		int n = (int)fx_get(&fx, key, 1)[0];
		snprintf(key, sizeof key, "eig.a.%d", k);
		const double *a0 = fx_get(&fx, key, n * n);
		double *a = malloc(sizeof(double) * (size_t)n * n), re[64], im[64], trace = 0;
		assert_non_null(a);
		memcpy(a, a0, sizeof(double) * (size_t)n * n);
		for (int i = 0; i < n; i++)
			trace += a[i * n + i];
		assert_int_equal(linalg_eigenvalues(n, a, re, im), 0);
		snprintf(key, sizeof key, "eig.w.%d", k);
		eig_match(re, im, fx_get(&fx, key, 2 * n), n, 1e-9, key);
		// the sum of the eigenvalues is the trace, and complex ones come in conjugate pairs
		double sum = 0, isum = 0;
		for (int i = 0; i < n; i++) {
			sum += re[i];
			isum += im[i];
		}
		assert_true(fabs(sum - trace) <= 1e-10 * fmax(1, fabs(trace)) * n);
		assert_true(fabs(isum) <= 1e-10 * n);
		free(a);
	}
	fx_free(&fx);
}

static void test_singular_values_of_a_product_match_numpy(void **state)
{
	(void)state;
	struct fixture fx;
	fx_load(&fx, "eig.txt");
	int count = (int)fx_get(&fx, "sv.count", 1)[0];
	char key[64];
	for (int k = 0; k < count; k++) {
		snprintf(key, sizeof key, "sv.shape.%d", k);
		const double *sh = fx_get(&fx, key, 2);
		int m = (int)sh[0], kk = (int)sh[1];
		double s[64];
		snprintf(key, sizeof key, "sv.a.%d", k);
		const double *a = fx_get(&fx, key, m * kk);
		snprintf(key, sizeof key, "sv.b.%d", k);
		const double *b = fx_get(&fx, key, m * kk);
		assert_int_equal(linalg_product_singular_values(m, kk, a, kk, b, kk, s), 0);
		snprintf(key, sizeof key, "sv.s.%d", k);
		const double *want = fx_get(&fx, key, kk);
		// absolute to the largest: a zero singular value comes out at rounding size
		for (int i = 0; i < kk; i++)
			if (fabs(s[i] - want[i]) > 1e-10 * want[0])
				fail_msg("%s[%d]: got %.17g, want %.17g", key, i, s[i], want[i]);
	}
	fx_free(&fx);
}

/* ---- a model's figures ---- */

struct loaded {
	struct train_model m;
	const struct train_task *task;
	struct circ_model *cm;
	struct fixture fx;
	int L, h, n, heads;
};

static void load(struct loaded *ld, const char *name)
{
	char path[4096], file[64], msg[512];
	snprintf(file, sizeof file, "%s.model", name);
	fclose(open_fixture(file, path, sizeof path));
	if (train_model_load(&ld->m, &ld->task, path, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_int_equal(circ_model_make(&ld->cm, &ld->m), MHA_OK);
	snprintf(file, sizeof file, "%s.txt", name);
	fx_load(&ld->fx, file);
	ld->L = ld->m.s.layers;
	ld->h = ld->m.s.h;
	ld->n = ld->m.s.n;
	ld->heads = ld->L * ld->h;
}

static void unload(struct loaded *ld)
{
	fx_free(&ld->fx);
	circ_model_free(ld->cm);
	train_model_free(&ld->m);
}

static void check_weights(const struct loaded *ld)
{
	const struct train_shape *s = &ld->m.s;
	struct circ_head *hd = calloc((size_t)ld->heads, sizeof *hd);
	char msg[256], key[64];
	assert_int_equal(circ_heads_make(ld->cm, hd, msg, sizeof msg), MHA_OK);
	for (int k = 0; k < ld->heads; k++) {
		int l = k / ld->h, i = k % ld->h;
		const struct circ_rank *rk[2] = { &hd[k].qk, &hd[k].ov };
		for (int c = 0; c < 2; c++) {
			snprintf(key, sizeof key, "%s_sv.%d.%d", c ? "ov" : "qk", l, i);
			close_rel(rk[c]->sv, fx_get(&ld->fx, key, s->dk), s->dk, TOL, key);
			snprintf(key, sizeof key, "%s_rank.%d.%d", c ? "ov" : "qk", l, i);
			assert_int_equal(rk[c]->rank, (int)fx_get(&ld->fx, key, 1)[0]);
		}
		snprintf(key, sizeof key, "copying.%d.%d", l, i);
		close_rel(&hd[k].copying, fx_get(&ld->fx, key, 1), 1, TOL, key);
		snprintf(key, sizeof key, "own.%d.%d", l, i);
		close_rel(&hd[k].own_top, fx_get(&ld->fx, key, 1), 1, 0, key);
		snprintf(key, sizeof key, "eig.%d.%d", l, i);
		const double *eig = fx_find(&ld->fx, key, 2 * s->dk);
		assert_true(hd[k].token_space == (eig != NULL));
		if (eig)
			eig_match(hd[k].eig_re, hd[k].eig_im, eig, s->dk, 1e-8, key);
		for (int v = 0; v < CIRC_VIEWS; v++) {
			struct circ_view_info vi = circ_view_info(ld->cm, (enum circ_view)v);
			snprintf(key, sizeof key, "view.%s.%d.%d", vi.key, l, i);
			const double *want = fx_find(&ld->fx, key, vi.rows * vi.cols);
			if (!want)
				continue;
			double *got = malloc(sizeof(double) * (size_t)vi.rows * vi.cols);
			assert_int_equal(circ_view_rows(ld->cm, l, i, (enum circ_view)v, 0, vi.rows, got), MHA_OK);
			close_rel(got, want, vi.rows * vi.cols, TOL, key);
			// any block of rows is those rows of the whole
			int r0 = vi.rows / 3, nr = vi.rows - r0 > 2 ? 2 : vi.rows - r0;
			assert_int_equal(circ_view_rows(ld->cm, l, i, (enum circ_view)v, r0, nr, got), MHA_OK);
			close_rel(got, want + (size_t)r0 * vi.cols, nr * vi.cols, TOL, key);
			free(got);
		}
	}
	circ_heads_free(hd, ld->heads);
	free(hd);
}

static void check_composition(const struct loaded *ld)
{
	char key[64];
	for (int l = 0; l + 1 < ld->L; l++) {
		struct circ_composition cp;
		assert_int_equal(circ_composition_make(ld->cm, l, 256, &cp), MHA_OK);
		for (int in = 0; in < CIRC_INPUTS; in++) {
			snprintf(key, sizeof key, "comp.%s.%d", circ_input_name((enum circ_input)in), l);
			close_rel(cp.score[in], fx_get(&ld->fx, key, ld->h * ld->h), ld->h * ld->h, TOL, key);
		}
		// two Monte Carlos of the same mean: within 4 standard errors of their difference
		const double *mean = fx_get(&ld->fx, "baseline.mean", 3), *se = fx_get(&ld->fx, "baseline.se", 3);
		const double *sd = fx_get(&ld->fx, "baseline.sd", 3);
		for (int in = 0; in < CIRC_INPUTS; in++) {
			double err = sqrt(se[in] * se[in] + sd[in] * sd[in] / cp.baseline.draws);
			if (fabs(cp.baseline.mean[in] - mean[in]) > 4 * err)
				fail_msg("baseline %s: %.5f, numpy %.5f (+- %.5f)", circ_input_name((enum circ_input)in),
				         cp.baseline.mean[in], mean[in], err);
			assert_true(fabs(cp.baseline.sd[in] - sd[in]) < 0.25 * sd[in]);
		}
		circ_composition_free(&cp);
	}
	struct circ_composition none;
	assert_int_equal(circ_composition_make(ld->cm, ld->L - 1, 16, &none), MHA_EINVAL);
}

static void check_patterns(const struct loaded *ld)
{
	size_t per = (size_t)ld->heads * TRAIN_PAT_COUNT;
	double *sc = malloc(sizeof(double) * 3 * per), *sum = sc + per, *cnt = sum + per;
	memset(sum, 0, sizeof(double) * 2 * per);
	char key[64];
	int periods = 0;
	for (int p = 0; p < CIRC_PERIODS; p++) {
		snprintf(key, sizeof key, "probe.%d", circ_periods[p]);
		const double *seq = fx_find(&ld->fx, key, -1);
		if (!seq)
			continue;
		int count = 0;
		for (int k = 0; k < ld->fx.n; k++)
			if (!strcmp(ld->fx.e[k].key, key))
				count = ld->fx.e[k].count / ld->n;
		int *tok = fx_ints(&ld->fx, key, count * ld->n);
		assert_int_equal(circ_patterns(ld->cm, tok, count, sc, sum, cnt), MHA_OK);
		snprintf(key, sizeof key, "patterns.%d", circ_periods[p]);
		close_rel(sc, fx_get(&ld->fx, key, (int)per), (int)per, TOL_PATTERN, key);
		free(tok);
		periods++;
	}
	assert_true(periods >= 2);
	for (size_t e = 0; e < per; e++)
		sc[e] = cnt[e] > 0 ? sum[e] / cnt[e] : NAN;
	close_rel(sc, fx_get(&ld->fx, "patterns.pooled", (int)per), (int)per, TOL_PATTERN, "patterns.pooled");
	free(sc);
}

static void stats_flat(const struct train_stats *st, int count, double *out)
{
	for (int k = 0; k < count; k++) {
		out[2 * k] = st[k].loss;
		out[2 * k + 1] = st[k].accuracy;
	}
}

static int entry_count(const struct fixture *fx, const char *key)
{
	for (int k = 0; k < fx->n; k++)
		if (!strcmp(fx->e[k].key, key))
			return fx->e[k].count;
	fail_msg("fixture has no %s", key);
	return 0;
}

static void check_ablation(const struct loaded *ld)
{
	int count = entry_count(&ld->fx, "abl.tokens") / ld->n;
	int *tok = fx_ints(&ld->fx, "abl.tokens", count * ld->n);
	int *tgt = fx_ints(&ld->fx, "abl.targets", count * ld->n);
	struct circ_ablation_result ab;
	assert_int_equal(circ_ablate(ld->cm, tok, tgt, count, &ab), MHA_OK);
	double got[2 * MHA_MAX_HEADS * TRAIN_MAX_LAYERS * CIRC_INPUTS * CIRC_ABLATIONS];
	stats_flat(&ab.clean, 1, got);
	close_rel(got, fx_get(&ld->fx, "abl.clean", 2), 2, TOL, "abl.clean");
	int nh = ld->heads * CIRC_ABLATIONS;
	stats_flat(ab.head, nh, got);
	close_rel(got, fx_get(&ld->fx, "abl.head", 2 * nh), 2 * nh, TOL, "abl.head");
	if (ld->L > 1) {
		int np = (ld->L - 1) * ld->h * CIRC_INPUTS * CIRC_ABLATIONS;
		stats_flat(ab.path, np, got);
		close_rel(got, fx_get(&ld->fx, "abl.path", 2 * np), 2 * np, TOL, "abl.path");
	}
	circ_ablation_free(&ab);
	free(tok);
	free(tgt);
}

static void outcomes_flat(const struct circ_outcome *o, int count, double *out)
{
	for (int k = 0; k < count; k++) {
		out[3 * k] = o[k].log_prob;
		out[3 * k + 1] = o[k].accuracy;
		out[3 * k + 2] = o[k].restored;
	}
}

static void check_patching(const struct loaded *ld)
{
	int count = entry_count(&ld->fx, "pat.clean") / ld->n, h = ld->h;
	int *cl = fx_ints(&ld->fx, "pat.clean", count * ld->n), *co = fx_ints(&ld->fx, "pat.corrupt", count * ld->n);
	int *tg = fx_ints(&ld->fx, "pat.targets", count * ld->n);
	struct circ_patching pt;
	assert_int_equal(circ_patch(ld->cm, cl, co, tg, count, &pt), MHA_OK);
	double got[3 * TRAIN_MAX_LAYERS * MHA_MAX_HEADS * (MHA_MAX_HEADS + 1) * CIRC_INPUTS];
	outcomes_flat(&pt.clean, 1, got);
	outcomes_flat(&pt.corrupt, 1, got + 3);
	close_rel(got, fx_get(&ld->fx, "pat.outcomes", 6), 6, TOL, "pat.outcomes");
	outcomes_flat(pt.head, ld->heads, got);
	close_rel(got, fx_get(&ld->fx, "pat.head", 3 * ld->heads), 3 * ld->heads, TOL, "pat.head");
	if (ld->L > 1) {
		int np = (ld->L - 1) * h * (h + 1) * CIRC_INPUTS;
		outcomes_flat(pt.path, np, got);
		close_rel(got, fx_get(&ld->fx, "pat.path", 3 * np), 3 * np, TOL, "pat.path");
		const double *named = fx_get(&ld->fx, "pat.named", 4);
		assert_int_equal(pt.named_layer, (int)named[0]);
		assert_int_equal(pt.named_head, (int)named[1]);
		if (named[0] >= 0) {
			assert_int_equal((int)pt.named_input, (int)named[2]);
			close_rel(&pt.named_restored, named + 3, 1, TOL, "pat.named");
		}
	}
	circ_patching_free(&pt);
	free(cl);
	free(co);
	free(tg);
}

static void check_lens(const struct loaded *ld)
{
	const int C = ld->m.s.classes;
	int *tok = fx_ints(&ld->fx, "lens.tokens", ld->n);
	const double *at = fx_get(&ld->fx, "lens.at", 2);
	struct circ_lens ln;
	assert_int_equal(circ_lens(ld->cm, tok, (int)at[0], (int)at[1], &ln), MHA_OK);
	double *got = malloc(sizeof(double) * (size_t)C * (ld->heads + TRAIN_MAX_LAYERS + 1));
	for (int l = 0; l <= ld->L; l++)
		memcpy(got + (size_t)l * C, ln.resid[l].logits, sizeof(double) * C);
	close_rel(got, fx_get(&ld->fx, "lens.resid", (ld->L + 1) * C), (ld->L + 1) * C, TOL, "lens.resid");
	close_rel(ln.embed.logits, fx_get(&ld->fx, "lens.embed", C), C, TOL, "lens.embed");
	close_rel(ln.pos.logits, fx_get(&ld->fx, "lens.pos", C), C, TOL, "lens.pos");
	for (int k = 0; k < ld->heads; k++)
		memcpy(got + (size_t)k * C, ln.head[k].logits, sizeof(double) * C);
	close_rel(got, fx_get(&ld->fx, "lens.head", ld->heads * C), ld->heads * C, TOL, "lens.head");
	// the target's rank counts the logits above it; the top list is sorted
	const struct circ_lens_entry *last = &ln.resid[ld->L];
	int above = 0;
	for (int c = 0; c < C; c++)
		above += last->logits[c] > last->logits[ln.target];
	assert_int_equal(last->target_rank, above + 1);
	for (int k = 1; k < CIRC_TOP && k < C; k++)
		assert_true(last->logits[last->top[k]] <= last->logits[last->top[k - 1]]);
	circ_lens_free(&ln);
	free(got);
	free(tok);
}

static void check_model(const char *name)
{
	struct loaded ld;
	load(&ld, name);
	check_weights(&ld);
	if (ld.L > 1)
		check_composition(&ld);
	check_patterns(&ld);
	check_ablation(&ld);
	check_patching(&ld);
	check_lens(&ld);
	unload(&ld);
}

static void test_small_model_with_a_head_off_matches_numpy(void **state)
{
	(void)state;
	check_model("small");
}

static void test_one_layer_model_with_more_classes_than_tokens_matches_numpy(void **state)
{
	(void)state;
	check_model("onelayer");
}

static void test_trained_induction_model_matches_numpy(void **state)
{
	(void)state;
	check_model("induction");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eigenvalues_match_numpy),
		cmocka_unit_test(test_singular_values_of_a_product_match_numpy),
		cmocka_unit_test(test_small_model_with_a_head_off_matches_numpy),
		cmocka_unit_test(test_one_layer_model_with_more_classes_than_tokens_matches_numpy),
		cmocka_unit_test(test_trained_induction_model_matches_numpy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
