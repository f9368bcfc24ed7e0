/*
 * test_lm_model.c - the language model's batched passes, small enough
 * for valgrind: the batch's loss and gradient (read-out as one GEMM, the
 * embedding and position gradients gathered over the batch) equal the
 * sums of the per-sequence passes of model.c, which test_train.c checks
 * against float64 finite differences; positions that are not counted
 * give nothing; a shorter sequence uses the first rows of P only; the
 * same seed gives the same bits for 1 and 3 threads; the schedule; the
 * next-token top-k; a short run on a made-up text learns.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "lm.h"
#include "model.h"

enum { V = 13, N = 7, B = 5 };

static struct train_model small_model(int layers, uint64_t seed)
{
	struct train_shape s = { .layers = layers, .d = 8, .h = 2, .dk = 4, .vocab = V, .classes = V, .n = N };
	struct train_model m;
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	train_model_init(&m, seed);
	return m;
}

static void draw(int *tok, int *tgt, int count, uint64_t seed, bool some_uncounted)
{
	uint64_t rng = seed;
	for (int i = 0; i < count; i++) {
		tok[i] = (int)(train_rand(&rng) % V);
		tgt[i] = (int)(train_rand(&rng) % V);
		if (some_uncounted && i % 4 == 1)
			tgt[i] = -1;
	}
}

/* The batch against model.c's seq_forward / seq_backward, sequence by sequence. */
static void batch_matches_sequences(int layers, int n)
{
	struct train_model m = small_model(layers, 3), g, gs, one;
	assert_int_equal(train_model_alloc(&g, &m.s), MHA_OK);
	assert_int_equal(train_model_alloc(&gs, &m.s), MHA_OK);
	assert_int_equal(train_model_alloc(&one, &m.s), MHA_OK);
	int tok[B * N], tgt[B * N];
	draw(tok, tgt, B * n, 11, true);
	struct lm_batch bt;
	assert_int_equal(lm_batch_alloc(&bt, &m, B, 1), MHA_OK);
	struct lm_result r;
	lm_forward(&m, &bt, tok, tgt, B, n, 1, &r);
	float *slots = malloc((size_t)B * lm_slot_floats(&m) * sizeof *slots);
	const float scale = 0.25f;
	lm_backward(&m, &bt, tok, tgt, scale, 1, slots, &g);

	/* model.c's passes want n tokens of the model's context: a shorter
	 * sequence is padded with uncounted positions, which (causal) change
	 * nothing before them; their P rows and E rows get gradient, though,
	 * so the padding must add nothing: its targets are -1 and nothing
	 * after a real position reads it back */
	struct seq_work w;
	assert_int_equal(seq_work_alloc(&w, &m), MHA_OK);
	double loss = 0;
	long counted = 0;
	memset(gs.params, 0, gs.nparams * sizeof(float));
	for (int b = 0; b < B; b++) {
		int t[N], y[N];
		for (int i = 0; i < N; i++) {
			t[i] = i < n ? tok[b * n + i] : 0;
			y[i] = i < n ? tgt[b * n + i] : -1;
		}
		struct seq_result sr;
		seq_forward(&m, &w, t, y, &sr);
		seq_backward(&m, &w, t, y, scale, &one);
		loss += sr.loss;
		counted += sr.counted;
		for (size_t e = 0; e < gs.nparams; e++)
			gs.params[e] += one.params[e];
	}
	/* the padding's E[0] rows: their gradient is zero (nothing downstream counted) */
	assert_int_equal(r.counted, counted);
	assert_true(fabs(r.loss - loss) < 1e-4 * fabs(loss));
	float big = 0;
	for (size_t e = 0; e < gs.nparams; e++)
		big = fmaxf(big, fabsf(gs.params[e]));
	assert_true(big > 1e-3f);
	check_close(g.params, gs.params, g.nparams, 2e-5 * big, "batched gradient against per sequence");
	/* rows of P past n get nothing */
	for (size_t e = (size_t)n * m.s.d; e < (size_t)N * m.s.d; e++)
		assert_true(g.pos[e] == 0.0f);
	free(slots);
	seq_work_free(&w);
	lm_batch_free(&bt);
	train_model_free(&one);
	train_model_free(&gs);
	train_model_free(&g);
	train_model_free(&m);
}

static void test_batch_gradient_equals_the_sequences_sum(void **state)
{
	(void)state;
	batch_matches_sequences(1, N);
	batch_matches_sequences(2, N);
}

static void test_a_shorter_sequence_uses_the_first_positions(void **state)
{
	(void)state;
	batch_matches_sequences(2, 4);
}

/* A stream of made-up text: a cycle of 5 tokens, so the next is always known */
static struct lm_stream cycle_stream(long len)
{
	struct lm_stream s = { malloc((size_t)len * sizeof(int)), len, 0, 1 };
	for (long i = 0; i < len; i++)
		s.ids[i] = 2 + (int)(i % 5);
	return s;
}

static void train_some(int threads, int steps, struct train_model *m, struct train_stats *last)
{
	struct lm_stream s = cycle_stream(500);
	*m = small_model(2, 5);
	struct lm_train_options o = { .batch = 6, .threads = threads, .steps = steps, .warmup = 5, .lr = 1e-2f };
	struct lm_trainer *t;
	char msg[256];
	assert_int_equal(lm_trainer_create(&t, m, &s, &o, 9, msg, sizeof msg), MHA_OK);
	for (int k = 0; k < steps; k++)
		lm_trainer_step(t, last);
	lm_trainer_destroy(t);
	lm_stream_free(&s);
}

static void test_same_seed_same_bits_for_any_thread_count(void **state)
{
	(void)state;
	struct train_model a, b;
	struct train_stats sa, sb;
	train_some(1, 6, &a, &sa);
	train_some(3, 6, &b, &sb);
	assert_memory_equal(a.params, b.params, a.nparams * sizeof(float));
	assert_true(sa.loss == sb.loss);
	train_model_free(&b);
	/* and another seed's weights differ */
	struct train_model c = small_model(2, 6);
	assert_true(memcmp(a.params, c.params, a.nparams * sizeof(float)) != 0);
	train_model_free(&c);
	train_model_free(&a);
}

static void test_a_short_run_learns_a_cycle(void **state)
{
	(void)state;
	struct train_model m;
	struct train_stats st;
	train_some(1, 150, &m, &st);
	print_message("loss %g accuracy %g\n", st.loss, st.accuracy);
	assert_true(st.loss < 0.3); /* ln 13 = 2.56 at the start */
	assert_true(st.accuracy > 0.95);
	/* and its held-out loss on the same cycle, and the next token */
	struct lm_stream s = cycle_stream(200);
	struct train_stats ev;
	lm_evaluate(&m, &s, 0, 1, &ev);
	assert_int_equal(ev.counted, (199 / N) * N);
	assert_true(ev.loss < 0.3);
	int ids[2 * 3];
	float p[2 * 3];
	assert_int_equal(lm_next(&m, s.ids, 2, 3, ids, p), 0);
	assert_int_equal(ids[0], s.ids[1]); /* after token 2 comes 3 */
	assert_int_equal(ids[3], s.ids[2]);
	assert_true(p[0] >= p[1] && p[1] >= p[2] && p[0] > 0.7f);
	lm_stream_free(&s);
	train_model_free(&m);
}

static void test_schedule_warms_up_then_decays(void **state)
{
	(void)state;
	struct lm_train_options o = { .steps = 100, .warmup = 10, .lr = 1.0f, .lr_end = 0.1f };
	o = lm_train_defaults(&o);
	assert_true(fabsf(lm_lr_at(&o, 1) - 0.1f) < 1e-6f);
	assert_true(fabsf(lm_lr_at(&o, 10) - 1.0f) < 1e-6f);
	assert_true(fabsf(lm_lr_at(&o, 55) - 0.55f) < 1e-6f); /* halfway down the cosine: (1 + 0.1) / 2 */
	assert_true(fabsf(lm_lr_at(&o, 100) - 0.1f) < 1e-6f);
	assert_true(fabsf(lm_lr_at(&o, 150) - 0.1f) < 1e-6f);
	struct lm_train_options d = lm_train_defaults(NULL);
	assert_int_equal(d.batch, 32);
	assert_true(d.lr == 3e-3f);
}

static void test_top_k_is_sorted_with_ties_to_the_lower_id(void **state)
{
	(void)state;
	const float p[8] = { 0.1f, 0.3f, 0.05f, 0.3f, 0.0f, 0.2f, 0.05f, 0.0f };
	int ids[4];
	float pr[4];
	lm_top_k(p, 8, 4, ids, pr);
	int want[4] = { 1, 3, 5, 0 };
	assert_memory_equal(ids, want, sizeof want);
	assert_true(pr[0] == 0.3f && pr[3] == 0.1f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_gradient_equals_the_sequences_sum),
		cmocka_unit_test(test_a_shorter_sequence_uses_the_first_positions),
		cmocka_unit_test(test_same_seed_same_bits_for_any_thread_count),
		cmocka_unit_test(test_a_short_run_learns_a_cycle),
		cmocka_unit_test(test_schedule_warms_up_then_decays),
		cmocka_unit_test(test_top_k_is_sorted_with_ties_to_the_lower_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
