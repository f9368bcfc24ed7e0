/*
 * test_heads.c - the heads apart, layer by layer (src/train/heads.c), on
 * small cases fast enough for valgrind:
 *   - each head's gradient norms are the norms of its slices of the whole
 *     gradient (the gradient test_train.c checks against finite
 *     differences), recomputed here from the gradient array by index;
 *     the per-head squares add up to each matrix's whole;
 *   - a shared start (every head a copy of head 0) gives every head the
 *     same gradient, step after step, and the heads stay copies (spread
 *     0); a random start gives different gradients and a spread > 0;
 *   - attention distance on hand-worked weights (previous token: 1,
 *     first token: the mean of q, uniform causal rows: q / 2) with its
 *     shares by distance bucket, and in range on a model;
 *   - each head alone in its layer is the model with the others off.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "train.h"

static struct trainer *start(struct train_model *m, const char *task, int layers, int d, int h,
                             uint64_t seed, bool shared)
{
	const struct train_task *t = train_task_find(task);
	assert_non_null(t);
	struct train_shape s = train_task_shape(t, layers, d, h);
	s.n = 8;
	assert_int_equal(train_model_alloc(m, &s), MHA_OK);
	train_model_init(m, seed);
	if (shared)
		train_model_share_heads(m);
	struct trainer *tr;
	char msg[MHA_MSG_MAX];
	struct train_options o = { .batch = 4 };
	assert_int_equal(trainer_create(&tr, m, t, &o, seed, msg, sizeof msg), MHA_OK);
	return tr;
}

static void test_head_gradient_norms_are_slices_of_the_gradient(void **state)
{
	(void)state;
	struct train_model m;
	struct trainer *tr = start(&m, "induction", 2, 12, 3, 5, false);
	const struct train_shape *s = &m.s;
	trainer_step(tr, NULL);
	trainer_step(tr, NULL);
	const float *grad = trainer_last_grad(tr);
	/* where the gradient of layer l's W^Q starts: after E (V, d) and P (n, d) */
	size_t hw = (size_t)s->h * s->dk, d = (size_t)s->d;
	size_t layer0 = (size_t)s->vocab * d + (size_t)s->n * d, per_layer = 4 * d * hw;
	struct train_head_norm got[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	double total[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	trainer_head_grads(tr, got);
	trainer_head_grad_norms(tr, total);
	for (int l = 0; l < s->layers; l++) {
		const float *wq = grad + layer0 + l * per_layer, *wk = wq + d * hw, *wv = wk + d * hw, *wo = wv + d * hw;
		double whole[4] = { 0 }, parts[4] = { 0 };
		for (size_t e = 0; e < d * hw; e++) {
			whole[0] += (double)wq[e] * wq[e];
			whole[1] += (double)wk[e] * wk[e];
			whole[2] += (double)wv[e] * wv[e];
			whole[3] += (double)wo[e] * wo[e];
		}
		for (int i = 0; i < s->h; i++) {
			double sq[4] = { 0 };
			for (size_t r = 0; r < d; r++)
				for (size_t c = (size_t)i * s->dk; c < (size_t)(i + 1) * s->dk; c++) {
					sq[0] += (double)wq[r * hw + c] * wq[r * hw + c];
					sq[1] += (double)wk[r * hw + c] * wk[r * hw + c];
					sq[2] += (double)wv[r * hw + c] * wv[r * hw + c];
					sq[3] += (double)wo[c * d + r] * wo[c * d + r]; /* W^O: head i's rows */
				}
			const struct train_head_norm *g = &got[l * MHA_MAX_HEADS + i];
			assert_true(fabs(g->q - sqrt(sq[0])) <= 1e-9 * (1 + g->q));
			assert_true(fabs(g->k - sqrt(sq[1])) <= 1e-9 * (1 + g->k));
			assert_true(fabs(g->v - sqrt(sq[2])) <= 1e-9 * (1 + g->v));
			assert_true(fabs(g->o - sqrt(sq[3])) <= 1e-9 * (1 + g->o));
			double all = sqrt(sq[0] + sq[1] + sq[2] + sq[3]);
			assert_true(fabs(g->all - all) <= 1e-9 * (1 + all));
			assert_true(total[l * MHA_MAX_HEADS + i] == g->all);
			assert_true(g->q > 0 && g->k > 0 && g->v > 0 && g->o > 0);
			for (int k = 0; k < 4; k++)
				parts[k] += sq[k];
		}
		for (int k = 0; k < 4; k++) /* the heads' slices tile each matrix */
			assert_true(fabs(parts[k] - whole[k]) <= 1e-9 * (1 + whole[k]));
	}
	trainer_destroy(tr);
	train_model_free(&m);
}

/* Norms of every head of every layer, and whether they all agree with head 0's. */
static bool heads_agree(const struct train_head_norm *g, const struct train_shape *s, double tol)
{
	for (int l = 0; l < s->layers; l++)
		for (int i = 1; i < s->h; i++) {
			const struct train_head_norm *a = &g[l * MHA_MAX_HEADS], *b = &g[l * MHA_MAX_HEADS + i];
			if (fabs(a->all - b->all) > tol * a->all || fabs(a->q - b->q) > tol * (a->q + 1e-12))
				return false;
		}
	return true;
}

static void test_a_shared_start_keeps_heads_copies_a_random_one_does_not(void **state)
{
	(void)state;
	struct train_model m, r;
	struct trainer *shared = start(&m, "induction", 2, 12, 3, 7, true);
	struct trainer *random = start(&r, "induction", 2, 12, 3, 7, false);
	double spread[TRAIN_MAX_LAYERS];
	train_head_spread(&m, spread);
	assert_true(spread[0] == 0.0 && spread[1] == 0.0);
	train_head_spread(&r, spread);
	assert_true(spread[0] > 0.5 && spread[1] > 0.5); /* independent draws: about sqrt(2) */
	struct train_head_norm g[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	for (int step = 0; step < 20; step++) {
		trainer_step(shared, NULL);
		trainer_head_grads(shared, g);
		assert_true(g[0].all > 0);
		assert_true(heads_agree(g, &m.s, 1e-4)); /* the same gradient for every copy (to rounding) */
		trainer_step(random, NULL);
		trainer_head_grads(random, g);
		assert_false(heads_agree(g, &r.s, 1e-3));
	}
	train_head_spread(&m, spread);
	assert_true(spread[0] < 1e-3 && spread[1] < 1e-3); /* still copies after 20 steps, to rounding */
	train_head_spread(&r, spread);
	assert_true(spread[0] > 0.5 && spread[1] > 0.5);
	trainer_destroy(shared);
	trainer_destroy(random);
	train_model_free(&m);
	train_model_free(&r);
}

static void test_attention_distance_by_hand(void **state)
{
	(void)state;
	enum { N = 5 };
	float prev[N * N] = { 0 }, first[N * N] = { 0 }, uniform[N * N] = { 0 };
	for (int q = 0; q < N; q++) {
		prev[q * N + (q ? q - 1 : 0)] = 1;
		first[q * N] = 1;
		for (int j = 0; j <= q; j++)
			uniform[q * N + j] = 1.0f / (float)(q + 1);
	}
	struct train_head_distance sum = { 0 };
	double cnt = 0;
	train_distance_accumulate(prev, N, &sum, &cnt);
	assert_true(cnt == N - 1 && fabs(sum.mean / cnt - 1.0) < 1e-12);
	assert_true(sum.share[1] == cnt && sum.share[0] == 0 && sum.share[2] == 0);
	memset(&sum, 0, sizeof sum);
	cnt = 0;
	train_distance_accumulate(first, N, &sum, &cnt);
	assert_true(fabs(sum.mean / cnt - 2.5) < 1e-12); /* (1 + 2 + 3 + 4) / 4 */
	/* distances 1; 2, 3; 4: buckets 1, 2, 2, 3 */
	assert_true(sum.share[1] == 1 && sum.share[2] == 2 && sum.share[3] == 1 && sum.share[0] == 0);
	memset(&sum, 0, sizeof sum);
	cnt = 0;
	train_distance_accumulate(uniform, N, &sum, &cnt);
	assert_true(fabs(sum.mean / cnt - 1.25) < 1e-6); /* q / 2 for q = 1..4: (0.5 + 1 + 1.5 + 2) / 4 */
	/* q = 4: 1/5 on each of distances 0..4 -> buckets 0, 1, 2, 2, 3 */
	assert_true(fabs(sum.share[3] - 0.2) < 1e-6);
	assert_int_equal(train_distance_bucket(0), 0);
	assert_int_equal(train_distance_bucket(15), 4);
	assert_int_equal(train_distance_bucket(16), 5);
	assert_int_equal(train_distance_bucket(1000), TRAIN_DIST_BUCKETS - 1);

	struct train_model m;
	struct trainer *tr = start(&m, "induction", 2, 12, 3, 3, false);
	struct train_head_distance dist[TRAIN_MAX_LAYERS * MHA_MAX_HEADS];
	train_attention_distance(&m, dist);
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < 3; i++) {
			const struct train_head_distance *d = &dist[l * MHA_MAX_HEADS + i];
			double all = 0;
			for (int b = 0; b < TRAIN_DIST_BUCKETS; b++)
				all += d->share[b];
			assert_true(d->mean > 0 && d->mean < m.s.n - 1);
			assert_true(fabs(all - 1) < 1e-5); /* causal rows: all weight is at distance >= 0 */
		}
	assert_true(dist[3].mean == 0.0); /* no such head */
	trainer_destroy(tr);
	train_model_free(&m);
}

/* Each head alone is the model with the layer's other heads off; all is
 * the model as it is; head_off comes back as it was. */
static void test_each_head_alone_against_all(void **state)
{
	(void)state;
	struct train_model m;
	struct trainer *tr = start(&m, "induction", 2, 12, 3, 9, false);
	const struct train_task *t = train_task_find("induction");
	for (int k = 0; k < 5; k++)
		trainer_step(tr, NULL);
	m.head_off[0][2] = true; /* already off: stays off after */
	struct train_stats alone[MHA_MAX_HEADS], all, want;
	train_heads_alone(&m, t, 1, 8, alone, &all);
	assert_true(m.head_off[0][2] && !m.head_off[1][0] && !m.head_off[1][1] && !m.head_off[1][2]);
	train_evaluate(&m, t, 8, &want);
	assert_true(all.loss == want.loss && all.accuracy == want.accuracy);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			m.head_off[1][j] = j != i;
		train_evaluate(&m, t, 8, &want);
		assert_true(alone[i].loss == want.loss && alone[i].accuracy == want.accuracy);
	}
	trainer_destroy(tr);
	train_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_gradient_norms_are_slices_of_the_gradient),
		cmocka_unit_test(test_a_shared_start_keeps_heads_copies_a_random_one_does_not),
		cmocka_unit_test(test_attention_distance_by_hand),
		cmocka_unit_test(test_each_head_alone_against_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
