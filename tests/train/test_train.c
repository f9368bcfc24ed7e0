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

#include "model.h"
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

/* A short run learns: 'previous' at d_model 16, batch 4, 80 steps. */
static void test_short_training_learns_the_previous_token(void **state)
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
	train_model_free(&m);
}

static void test_importance_and_prune_curve(void **state)
{
	(void)state;
	struct train_model m;
	const struct train_task *t = task("previous");
	train_steps(&m, t, 1, 80, 1, 3, 16);
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
		cmocka_unit_test(test_model_gradient_matches_finite_differences),
		cmocka_unit_test(test_same_seed_gives_bit_identical_weights),
		cmocka_unit_test(test_short_training_learns_the_previous_token),
		cmocka_unit_test(test_importance_and_prune_curve),
		cmocka_unit_test(test_model_file_round_trip_and_refusals),
		cmocka_unit_test(test_layer_opens_in_the_workbench_as_it_ran),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
