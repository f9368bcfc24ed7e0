/*
 * test_train.c - the training library on small cases, fast enough for
 * valgrind: the whole model's gradient (embeddings, one and two layers of
 * the core's attention, read-out, cross-entropy) against central finite
 * differences; bit-identical weights from the same seed (and from 1 or 2
 * threads); a short run of 'previous' that learns; head importance and the
 * prune curve; model files written and read back, and refused when broken.
 * The per-task budgets are in test_tasks.c (suite perf).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "model.h"
#include "ref64.h"
#include "train.h"

static const struct train_task *task(const char *name)
{
	const struct train_task *t = train_task_find(name);
	assert_non_null(t);
	return t;
}

/* Summed loss * scale of one sequence, in double, for the finite differences. */
static double seq_loss(const struct train_model *m, struct seq_work *w, const int *tok, const int *tgt)
{
	struct seq_result r;
	seq_forward(m, w, tok, tgt, &r);
	return r.loss;
}

static void gradient_check(int layers)
{
	struct train_shape s = { .layers = layers, .d = 8, .h = 2, .dk = 4, .vocab = 5, .classes = 5, .n = 6 };
	struct train_model m, g;
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	assert_int_equal(train_model_alloc(&g, &s), MHA_OK);
	train_model_init(&m, 7);
	struct seq_work w;
	assert_int_equal(seq_work_alloc(&w, &m), MHA_OK);
	int tok[6] = { 0, 3, 1, 4, 3, 2 }, tgt[6] = { -1, 2, 0, 4, 1, 3 };
	struct seq_result r;
	seq_forward(&m, &w, tok, tgt, &r);
	seq_backward(&m, &w, tok, tgt, 1.0f, &g);
	/* every tensor: E, P, each layer's W's, U; a spread of elements of each */
	const float *an = g.params;
	double worst = 0;
	const float eps = 1e-2f; /* float32 loss: smaller steps drown in rounding */
	for (size_t e = 0; e < m.nparams; e += 3) {
		float keep = m.params[e];
		m.params[e] = keep + eps;
		double lp = seq_loss(&m, &w, tok, tgt);
		m.params[e] = keep - eps;
		double lm = seq_loss(&m, &w, tok, tgt);
		m.params[e] = keep;
		double fd = (lp - lm) / (2.0 * ((double)(keep + eps) - (double)keep));
		double diff = fabs(fd - an[e]);
		if (diff > 1e-2 + 2e-2 * fabs(fd))
			fail_msg("%d layer(s): parameter %zu: analytic %.6g, finite difference %.6g", layers, e,
			         an[e], fd);
		worst = fmax(worst, diff);
	}
	/* and a gradient that is not trivially zero in every layer */
	for (int l = 0; l < layers; l++)
		assert_true(fabsf(g.wq[l][0]) + fabsf(g.wq[l][1]) + fabsf(g.wk[l][2]) > 0);
	seq_work_free(&w);
	train_model_free(&g);
	train_model_free(&m);
}

/* The whole model in float64: embeddings, each layer through ref64.c,
 * the read-out and cross-entropy; params in the layout of struct
 * train_model (p), gradient into g when not NULL. Returns the summed loss. */
static double model64(const struct train_model *shape, const double *p, const int *tok,
                      const int *tgt, double *g)
{
	const struct train_shape *s = &shape->s;
	const int n = s->n, d = s->d, C = s->classes, L = s->layers;
	size_t off_e = 0, off_p = (size_t)s->vocab * d, off_l = off_p + (size_t)n * d;
	size_t per = 4 * (size_t)d * s->h * s->dk, off_u = off_l + L * per;
	struct mha_config c = train_layer_config(shape, 0);
	struct ref64 r[TRAIN_MAX_LAYERS];
	double x[TRAIN_MAX_LAYERS + 1][MHA_MAX_TOKENS * 16], dx[MHA_MAX_TOKENS * 16], cw[MHA_MAX_TOKENS * 16];
	for (int i = 0; i < n; i++)
		for (int e = 0; e < d; e++)
			x[0][i * d + e] = p[off_e + (size_t)tok[i] * d + e] + p[off_p + (size_t)i * d + e];
	for (int l = 0; l < L; l++) {
		ref64_alloc(&r[l], &c);
		size_t q = (size_t)d * s->h * s->dk;
		memcpy(r[l].x, x[l], sizeof(double) * n * d);
		memcpy(r[l].wq, p + off_l + l * per, sizeof(double) * q);
		memcpy(r[l].wk, p + off_l + l * per + q, sizeof(double) * q);
		memcpy(r[l].wv, p + off_l + l * per + 2 * q, sizeof(double) * q);
		memcpy(r[l].wo, p + off_l + l * per + 3 * q, sizeof(double) * q);
		ref64_forward(&c, &r[l], NULL);
		for (int e = 0; e < n * d; e++)
			x[l + 1][e] = x[l][e] + r[l].y[e];
	}
	double loss = 0, dlog[MHA_MAX_TOKENS][16];
	for (int i = 0; i < n; i++) {
		double lg[16], mx = -1e300, sum = 0;
		for (int k = 0; k < C; k++) {
			lg[k] = 0;
			for (int e = 0; e < d; e++)
				lg[k] += x[L][i * d + e] * p[off_u + (size_t)e * C + k];
			mx = fmax(mx, lg[k]);
		}
		for (int k = 0; k < C; k++)
			sum += exp(lg[k] - mx);
		for (int k = 0; k < C; k++)
			dlog[i][k] = tgt[i] < 0 ? 0.0 : exp(lg[k] - mx) / sum - (k == tgt[i]);
		if (tgt[i] >= 0)
			loss += mx + log(sum) - lg[tgt[i]];
	}
	if (g) {
		memset(g, 0, sizeof(double) * shape->nparams);
		for (int e = 0; e < d; e++)
			for (int k = 0; k < C; k++)
				for (int i = 0; i < n; i++)
					g[off_u + (size_t)e * C + k] += x[L][i * d + e] * dlog[i][k];
		for (int i = 0; i < n; i++)
			for (int e = 0; e < d; e++) {
				dx[i * d + e] = 0;
				for (int k = 0; k < C; k++)
					dx[i * d + e] += dlog[i][k] * p[off_u + (size_t)e * C + k];
			}
		for (int l = L - 1; l >= 0; l--) {
			/* ref64's loss has dL/dY = Y + C: choose C so that dL/dY = dx */
			for (int e = 0; e < n * d; e++)
				cw[e] = dx[e] - r[l].y[e];
			ref64_backward(&c, &r[l], cw);
			size_t q = (size_t)d * s->h * s->dk;
			const double *gw[4] = { r[l].dwq, r[l].dwk, r[l].dwv, r[l].dwo };
			for (int m = 0; m < 4; m++)
				memcpy(g + off_l + l * per + m * q, gw[m], sizeof(double) * q);
			for (int e = 0; e < n * d; e++)
				dx[e] += r[l].dx[e];
		}
		for (int i = 0; i < n; i++)
			for (int e = 0; e < d; e++) {
				g[off_p + (size_t)i * d + e] = dx[i * d + e];
				g[off_e + (size_t)tok[i] * d + e] += dx[i * d + e];
			}
	}
	for (int l = 0; l < L; l++)
		ref64_free(&r[l]);
	return loss;
}

/* Float64 central finite differences of the float64 model, every
 * parameter; then the float32 model's backward against that gradient. */
static void gradient_check64(int layers)
{
	struct train_shape s = { .layers = layers, .d = 8, .h = 2, .dk = 4, .vocab = 5, .classes = 5, .n = 6 };
	struct train_model m, g;
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	assert_int_equal(train_model_alloc(&g, &s), MHA_OK);
	train_model_init(&m, 11);
	int tok[6] = { 0, 3, 1, 4, 3, 2 }, tgt[6] = { -1, 2, 0, 4, 1, 3 };
	size_t np = m.nparams;
	double *p = calloc(np, sizeof *p), *an = calloc(np, sizeof *an);
	for (size_t e = 0; e < np; e++)
		p[e] = m.params[e];
	model64(&m, p, tok, tgt, an);
	double scale = 0;
	for (size_t e = 0; e < np; e++)
		scale = fmax(scale, fabs(an[e]));
	const double eps = 1e-6;
	for (size_t e = 0; e < np; e++) {
		double keep = p[e];
		p[e] = keep + eps;
		double lp = model64(&m, p, tok, tgt, NULL);
		p[e] = keep - eps;
		double lm = model64(&m, p, tok, tgt, NULL);
		p[e] = keep;
		double fd = (lp - lm) / (2 * eps);
		if (fabs(fd - an[e]) > 1e-6 * fmax(1.0, scale))
			fail_msg("%d layer(s), float64: parameter %zu: analytic %.12g, finite difference %.12g",
			         layers, e, an[e], fd);
	}
	struct seq_work w;
	struct seq_result r;
	assert_int_equal(seq_work_alloc(&w, &m), MHA_OK);
	seq_forward(&m, &w, tok, tgt, &r);
	seq_backward(&m, &w, tok, tgt, 1.0f, &g);
	char label[64];
	snprintf(label, sizeof label, "%d layer(s): float32 model gradient", layers);
	check_close_d(g.params, an, np, 1e-4 * fmax(1.0, scale), label);
	seq_work_free(&w);
	free(p);
	free(an);
	train_model_free(&g);
	train_model_free(&m);
}

static void test_model_gradient_float64_every_parameter(void **state)
{
	(void)state;
	gradient_check64(1);
	gradient_check64(2);
}

static void test_model_gradient_matches_finite_differences(void **state)
{
	(void)state;
	gradient_check(1);
	gradient_check(2);
}

static void train_steps(struct train_model *m, const struct train_task *t, int layers, int steps,
                        int threads, uint64_t seed, int batch)
{
	struct train_shape s = train_task_shape(t, layers, 16, 2);
	char msg[MHA_MSG_MAX];
	assert_int_equal(train_model_alloc(m, &s), MHA_OK);
	train_model_init(m, seed);
	struct trainer *tr;
	struct train_options o = { .threads = threads, .batch = batch };
	assert_int_equal(trainer_create(&tr, m, t, &o, seed, msg, sizeof msg), MHA_OK);
	for (int k = 0; k < steps; k++)
		trainer_step(tr, NULL);
	assert_int_equal(trainer_steps(tr), steps);
	trainer_destroy(tr);
}

static void test_same_seed_gives_bit_identical_weights(void **state)
{
	(void)state;
	struct train_model a, b, c, d;
	train_steps(&a, task("induction"), 2, 5, 1, 42, 4);
	train_steps(&b, task("induction"), 2, 5, 1, 42, 4);
	train_steps(&c, task("induction"), 2, 5, 2, 42, 4);
	train_steps(&d, task("induction"), 2, 5, 1, 43, 4);
	assert_memory_equal(a.params, b.params, a.nparams * sizeof(float));
	/* each sequence's gradient has its own slot: the thread count changes no bit */
	assert_memory_equal(a.params, c.params, a.nparams * sizeof(float));
	assert_memory_not_equal(a.params, d.params, a.nparams * sizeof(float));
	train_model_free(&a); train_model_free(&b); train_model_free(&c); train_model_free(&d);
}

/* A short run learns 'previous' (d_model 16, 80 steps), and on that model
 * the analysis says which head matters: one training for both (valgrind). */
static void test_short_training_learns_and_its_heads_rank(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t = task("previous");
	struct train_stats before, after;
	struct train_shape s = train_task_shape(t, 1, 16, 2);
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	train_model_init(&m, 3);
	train_evaluate(&m, t, 16, &before);
	train_model_free(&m);
	train_steps(&m, t, 1, 80, 1, 3, 16);
	train_evaluate(&m, t, 16, &after);
	print_message("previous: accuracy %.3f -> %.3f, loss %.3f -> %.3f\n", before.accuracy,
	              after.accuracy, before.loss, after.loss);
	assert_true(before.accuracy < 0.3);
	assert_true(after.accuracy > 0.9);
	assert_true(after.loss < before.loss / 4);
	double sc[TRAIN_MAX_LAYERS * MHA_MAX_HEADS * TRAIN_PAT_COUNT];
	train_pattern_scores(&m, sc);
	double best = fmax(sc[0 * TRAIN_PAT_COUNT + TRAIN_PAT_PREVIOUS], sc[1 * TRAIN_PAT_COUNT + TRAIN_PAT_PREVIOUS]);
	assert_true(best > 0.5);

	double imp[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	train_head_importance(&m, t, imp);
	/* some head matters: without it the loss rises */
	assert_true(fmax(imp[0], imp[1]) > 0.1);
	struct train_prune_point pts[8];
	int np = train_prune_curve(&m, t, pts, 8);
	assert_int_equal(np, 3);
	assert_int_equal(pts[0].kept, 2);
	assert_int_equal(pts[2].kept, 0);
	/* no heads: the model cannot see the previous token */
	assert_true(pts[2].accuracy < 0.3 && pts[0].accuracy > 0.9);
	assert_false(m.head_off[0][0] || m.head_off[0][1]); /* put back */
	train_model_free(&m);
}

static void test_model_file_round_trip_and_refusals(void **state)
{
	(void)state;
	struct train_model m, back;
	const struct train_task *t = task("induction"), *got = NULL;
	train_steps(&m, t, 2, 2, 1, 9, 4);
	m.head_off[1][1] = true;
	char path[] = "/tmp/mha-train-XXXXXX", msg[512];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(train_model_save(&m, t, path, msg, sizeof msg), 0);
	assert_int_equal(train_model_load(&back, &got, path, msg, sizeof msg), 0);
	assert_ptr_equal(got, t);
	assert_int_equal(back.nparams, m.nparams);
	assert_memory_equal(back.params, m.params, m.nparams * sizeof(float));
	assert_true(back.head_off[1][1] && !back.head_off[0][0]);
	train_model_free(&back);
	/* broken files: refused with file:line */
	FILE *f = fopen(path, "w");
	fputs("mha-tui model 2\n", f);
	fclose(f);
	assert_int_equal(train_model_load(&back, &got, path, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, ":1: model file version"));
	f = fopen(path, "w");
	fputs("mha-tui model 1\ntask induction\nshape layers 3 d_model 32 heads 2 d_k 16 vocab 32 "
	      "classes 32 tokens 32\n", f);
	fclose(f);
	assert_int_equal(train_model_load(&back, &got, path, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, ":3: layers 3"));
	unlink(path);
	train_model_free(&m);
}

/* Each head gets its own gradient; a head switched off gets none. */
static void test_head_gradient_norms_are_per_head(void **state)
{
	(void)state;
	const struct train_task *t = task("previous");
	struct train_shape s = train_task_shape(t, 1, 16, 4);
	struct train_model m;
	struct trainer *tr;
	char msg[MHA_MSG_MAX];
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	train_model_init(&m, 4);
	m.head_off[0][2] = true;
	struct train_options o = { .batch = 4 };
	assert_int_equal(trainer_create(&tr, &m, t, &o, 4, msg, sizeof msg), MHA_OK);
	trainer_step(tr, NULL);
	double norms[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	trainer_head_grad_norms(tr, norms);
	assert_true(norms[0] > 0 && norms[1] > 0 && norms[3] > 0);
	assert_true(norms[2] == 0.0);
	assert_true(norms[0] != norms[1]);
	trainer_destroy(tr);
	train_model_free(&m);
}

/* Damaged model files (seeded: bytes changed, lines cut, the file cut
 * short) are read or refused with "file:line: message", never a crash
 * (ASan and valgrind run this too). */
static void test_damaged_model_files_are_refused_cleanly(void **state)
{
	(void)state;
	struct train_model m, back;
	const struct train_task *t = task("first"), *got;
	struct train_shape s = { .layers = 2, .d = 4, .h = 2, .dk = 2, .vocab = 3, .classes = 3, .n = 4 };
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	train_model_init(&m, 1);
	char path[] = "/tmp/mha-train-XXXXXX", msg[512];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(train_model_save(&m, t, path, msg, sizeof msg), 0);
	FILE *f = fopen(path, "rb");
	char good[8192];
	size_t size = fread(good, 1, sizeof good, f);
	fclose(f);
	assert_true(size > 100 && size < sizeof good);
	static const char junk[] = "x -.e9\n\t 0 nan 1e99 #";
	uint64_t rng = 77;
	int refused = 0;
	for (int k = 0; k < 150; k++) {
		char bad[8192];
		size_t n = size;
		memcpy(bad, good, size);
		int edits = 1 + (int)(train_rand(&rng) % 3);
		for (int e = 0; e < edits; e++) {
			size_t at = (size_t)(train_rand(&rng) % n);
			switch (train_rand(&rng) % 3) {
			case 0: bad[at] = junk[train_rand(&rng) % (sizeof junk - 1)]; break;
			case 1: n = at; break;                                   /* cut short */
			default: memmove(bad + at, bad + at + 1, n - at - 1); n--; /* a byte gone */
			}
		}
		f = fopen(path, "wb");
		fwrite(bad, 1, n, f);
		fclose(f);
		msg[0] = '\0';
		if (train_model_load(&back, &got, path, msg, sizeof msg) == 0) {
			train_model_free(&back);
			continue;
		}
		refused++;
		if (strncmp(msg, path, strlen(path)) != 0 || msg[strlen(path)] != ':')
			fail_msg("damaged file %d: message '%s' does not start with the file name", k, msg);
	}
	assert_true(refused > 100);
	unlink(path);
	train_model_free(&m);
}

/* A layer opened in the workbench computes what it computed in the model. */
static void test_layer_opens_in_the_workbench_as_it_ran(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t = task("induction");
	train_steps(&m, t, 2, 3, 1, 5, 4);
	m.head_off[1][0] = true;
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a;
	char msg[MHA_MSG_MAX];
	assert_int_equal(train_layer_workbench(&m, 1, &c, &w, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
	assert_true(c.causal && c.head_off[0] && !c.head_off[1]);
	assert_string_equal(w.labels[0], w.labels[m.s.n / 2]); /* the probe repeats */
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	mha_forward(&c, &w, &a);
	/* the same probe through the model: layer 1's weights, bit for bit */
	struct seq_work sw;
	struct seq_result r;
	int tok[MHA_MAX_TOKENS], tgt[MHA_MAX_TOKENS];
	uint64_t rng = TRAIN_PROBE_SEED;
	train_probe_sample(m.s.n, m.s.vocab, &rng, tok, tgt);
	assert_int_equal(seq_work_alloc(&sw, &m), MHA_OK);
	seq_forward(&m, &sw, tok, tgt, &r);
	size_t hnn = (size_t)c.h * c.n * c.n;
	assert_memory_equal(a.weights, sw.acts[1].weights, hnn * sizeof(float));
	assert_memory_equal(a.y, sw.acts[1].y, (size_t)c.n * c.d * sizeof(float));
	seq_work_free(&sw);
	mha_acts_free(&a);
	mha_weights_free(&w);
	train_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_gradient_float64_every_parameter),
		cmocka_unit_test(test_model_gradient_matches_finite_differences),
		cmocka_unit_test(test_same_seed_gives_bit_identical_weights),
		cmocka_unit_test(test_short_training_learns_and_its_heads_rank),
		cmocka_unit_test(test_model_file_round_trip_and_refusals),
		cmocka_unit_test(test_layer_opens_in_the_workbench_as_it_ran),
		cmocka_unit_test(test_damaged_model_files_are_refused_cleanly),
		cmocka_unit_test(test_head_gradient_norms_are_per_head),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
