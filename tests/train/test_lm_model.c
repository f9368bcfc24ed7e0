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

static struct train_model model_of(int layers, uint64_t seed, int vocab)
{
	struct train_shape s = { .layers = layers, .d = 8, .h = 2, .dk = 4, .vocab = vocab, .classes = vocab, .n = N };
	struct train_model m;
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	train_model_init(&m, seed);
	return m;
}

static struct train_model small_model(int layers, uint64_t seed)
{
	return model_of(layers, seed, V);
}

static void draw(int *tok, int *tgt, int count, int vocab, uint64_t seed, bool some_uncounted)
{
	uint64_t rng = seed;
	for (int i = 0; i < count; i++) {
		tok[i] = (int)(train_rand(&rng) % (uint64_t)vocab);
		tgt[i] = (int)(train_rand(&rng) % (uint64_t)vocab);
		if (some_uncounted && i % 4 == 1)
			tgt[i] = -1;
	}
}

/* The batch of `batch` sequences of n tokens over a vocabulary of `vocab`,
 * on `threads`, against model.c's seq_forward / seq_backward, sequence by
 * sequence. */
static void batch_matches_sequences(int layers, int n, int vocab, int batch, int threads)
{
	struct train_model m = model_of(layers, 3, vocab), g, gs, one;
	assert_int_equal(train_model_alloc(&g, &m.s), MHA_OK);
	assert_int_equal(train_model_alloc(&gs, &m.s), MHA_OK);
	assert_int_equal(train_model_alloc(&one, &m.s), MHA_OK);
	int *tok = malloc((size_t)batch * N * sizeof *tok), *tgt = malloc((size_t)batch * N * sizeof *tgt);
	assert_non_null(tok);
	assert_non_null(tgt);
	draw(tok, tgt, batch * n, vocab, 11, true);
	struct lm_batch bt;
	assert_int_equal(lm_batch_alloc(&bt, &m, batch, threads), MHA_OK);
	struct lm_result r;
	lm_forward(&m, &bt, tok, tgt, batch, n, threads, &r);
	float *slots = malloc((size_t)batch * lm_slot_floats(&m) * sizeof *slots);
	const float scale = 0.25f;
	lm_backward(&m, &bt, tok, tgt, scale, threads, slots, &g);

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
	for (int b = 0; b < batch; b++) {
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
	free(tok);
	free(tgt);
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
	batch_matches_sequences(1, N, V, B, 1);
	batch_matches_sequences(2, N, V, B, 1);
}

/* The read-out runs in blocks of 128 rows and 512 columns (lm_model.c):
 * 20 x 7 = 140 rows and 1,100 words cut both, with ragged last blocks. */
static void test_the_read_out_in_blocks_equals_the_sequences_sum(void **state)
{
	(void)state;
	batch_matches_sequences(2, N, 1100, 20, 1);
	batch_matches_sequences(2, N, 1100, 20, 2);
}

static void test_a_shorter_sequence_uses_the_first_positions(void **state)
{
	(void)state;
	batch_matches_sequences(2, 4, V, B, 1);
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

/* A head wired to the previous token (as assets/sentence-wq.mat wires
 * one): positions carry (i, i^2, 1), q = c (2i - 2, -1), k = (j, j^2), so
 * q.k = -c (j - (i-1))^2 + a constant per row; every other head has zero
 * weights and spreads evenly, scoring exactly the even baseline. */
static void test_head_analysis_finds_a_wired_previous_token_head(void **state)
{
	(void)state;
	struct train_shape s = { .layers = 2, .d = 8, .h = 2, .dk = 4, .vocab = V, .classes = V, .n = 8 };
	struct train_model m;
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK); /* all zero */
	for (int i = 0; i < s.n; i++) {
		m.pos[i * 8 + 0] = (float)i;
		m.pos[i * 8 + 1] = (float)(i * i);
		m.pos[i * 8 + 2] = 1.0f;
	}
	const float c = 20.0f * 2.0f; /* times sqrt(d_k) = 2, which the scale divides out */
	const int hw = s.h * s.dk;    /* W^Q (d, h dk): row = input dim, column = head 0's dims 0, 1 */
	m.wq[0][0 * hw + 0] = 2 * c;  /* q0 = c (2 x0 - 2 x2) = c (2i - 2) */
	m.wq[0][2 * hw + 0] = -2 * c;
	m.wq[0][2 * hw + 1] = -c;     /* q1 = -c x2 = -c */
	m.wk[0][0 * hw + 0] = 1.0f;   /* k0 = x0 = j */
	m.wk[0][1 * hw + 1] = 1.0f;   /* k1 = x1 = j^2 */
	struct lm_stream st = cycle_stream(8 * 40 + 1);
	struct lm_head_report r;
	assert_int_equal(lm_head_analysis(&m, &st, 16, &r), 0);
	assert_int_equal(r.windows, 16);
	assert_true(r.score[0][0][LM_HEAD_PREVIOUS] > 0.99);
	assert_int_equal(r.kind[0][0], LM_HEAD_PREVIOUS);
	/* the even baselines, by hand: mean over q = 1..7 of 1 / (q + 1) = (H_8 - 1) / 7 */
	double h8 = 1 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5 + 1.0 / 6 + 1.0 / 7 + 1.0 / 8;
	assert_true(fabs(r.uniform[LM_HEAD_FIRST] - (h8 - 1) / 7) < 1e-7); /* float weights */
	assert_true(fabs(r.uniform[LM_HEAD_PREVIOUS] - (h8 - 1) / 7) < 1e-7);
	/* induction on 4 tokens twice: queries 4..7 of 1 / (q + 1) */
	assert_true(fabs(r.uniform[LM_HEAD_INDUCTION] - (1.0 / 5 + 1.0 / 6 + 1.0 / 7 + 1.0 / 8) / 4) < 1e-12);
	for (int l = 0; l < 2; l++)
		for (int i = 0; i < 2; i++) {
			if (!l && !i)
				continue;
			for (int k = 0; k < LM_HEAD_KINDS; k++)
				assert_true(fabs(r.score[l][i][k] - r.uniform[k]) < 1e-6);
			assert_int_equal(r.kind[l][i], -1);
			assert_true(r.importance[l][i] == 0.0); /* zero W^O: off changes nothing */
		}
	assert_string_equal(lm_head_kind_name(-1), "mixed");
	assert_string_equal(lm_head_kind_name(LM_HEAD_SELF), "current-token");
	lm_stream_free(&st);
	train_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_gradient_equals_the_sequences_sum),
		cmocka_unit_test(test_the_read_out_in_blocks_equals_the_sequences_sum),
		cmocka_unit_test(test_a_shorter_sequence_uses_the_first_positions),
		cmocka_unit_test(test_same_seed_same_bits_for_any_thread_count),
		cmocka_unit_test(test_a_short_run_learns_a_cycle),
		cmocka_unit_test(test_schedule_warms_up_then_decays),
		cmocka_unit_test(test_top_k_is_sorted_with_ties_to_the_lower_id),
		cmocka_unit_test(test_head_analysis_finds_a_wired_previous_token_head),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
