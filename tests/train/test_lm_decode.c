/*
 * test_lm_decode.c - the language model decoding token by token with a
 * K/V cache a layer (lm_decode.c) against the full forward of the whole
 * sequence (lm_forward, the trainer's pass): at every step the logits,
 * the probabilities and each layer's residual-stream row equal row t of
 * the full pass to float precision, for one and two layers, with a head
 * switched off, and on the shipped model through its whole context of 64
 * tokens, where a 65th is refused with the reason. Greedy is the argmax;
 * sampling is seeded (the same seed, the same token), follows the
 * distribution (frequencies over many seeds), and a tiny temperature is
 * greedy. The costs: the cache's bytes, one read-out row either way.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "lm.h"

enum { V = 17, N = 9 };

static struct train_model small_model(int layers, uint64_t seed)
{
	struct train_shape s = { .layers = layers, .d = 8, .h = 2, .dk = 4, .vocab = V, .classes = V, .n = N };
	struct train_model m;
	assert_int_equal(train_model_alloc(&m, &s), MHA_OK);
	train_model_init(&m, seed);
	return m;
}

/* Step by step (prompt of `prompt` tokens, then one at a time) against the
 * full forward of all n tokens: logits, probabilities, streams. Returns
 * the worst probability difference. */
static double decode_matches_forward(const struct train_model *m, const int *ids, int n, int prompt)
{
	const int d = m->s.d, Vc = m->s.classes, L = m->s.layers;
	struct lm_batch bt;
	assert_int_equal(lm_batch_alloc(&bt, m, 1, 1), MHA_OK);
	int none[MHA_MAX_TOKENS];
	for (int i = 0; i < n; i++)
		none[i] = -1;
	struct lm_result r;
	lm_forward(m, &bt, ids, none, 1, n, 1, &r);
	struct lm_decoder dec;
	char msg[256];
	assert_int_equal(lm_decoder_alloc(&dec, m), 0);
	assert_int_equal(lm_decoder_prefill(&dec, ids, prompt, msg, sizeof msg), 0);
	double worst = 0;
	double *want = malloc((size_t)Vc * sizeof *want);
	for (int t = prompt - 1; t < n; t++) {
		if (t >= prompt)
			assert_int_equal(lm_decoder_push(&dec, ids[t], msg, sizeof msg), 0);
		assert_int_equal(dec.len, t + 1);
		/* the streams' row t, layer by layer */
		for (int l = 0; l <= L; l++) {
			char what[64];
			snprintf(what, sizeof what, "x_%d row %d", l, t);
			const float *full = lm_stream_at(m, &bt, l, 0) + (size_t)t * d;
			float big = 0;
			for (int e = 0; e < d; e++)
				big = fmaxf(big, fabsf(full[e]));
			check_close(dec.xs + (size_t)l * m->s.n * d + (size_t)t * d, full, (size_t)d, 1e-5 * (big + 1), what);
		}
		// logits (float64) = x_L[t] @ U from the full pass's stream
		const float *xl = lm_stream_at(m, &bt, L, 0) + (size_t)t * d;
		double big = 0;
		for (int k = 0; k < Vc; k++) {
			want[k] = 0;
			for (int e = 0; e < d; e++)
				want[k] += (double)xl[e] * m->unemb[(size_t)e * Vc + k];
			big = fmax(big, fabs(want[k]));
		}
		check_close_d(dec.logits, want, (size_t)Vc, 1e-5 * (big + 1), "logits of step t against row t");
		check_close(dec.probs, bt.logits + (size_t)t * Vc, (size_t)Vc, 1e-6, "probabilities of step t");
		for (int k = 0; k < Vc; k++)
			worst = fmax(worst, fabs((double)dec.probs[k] - bt.logits[(size_t)t * Vc + k]));
	}
	free(want);
	lm_decoder_free(&dec);
	lm_batch_free(&bt);
	return worst;
}

static void test_decode_equals_the_forward_one_and_two_layers(void **state)
{
	(void)state;
	int ids[N] = { 3, 7, 1, 16, 3, 7, 0, 5, 9 };
	for (int layers = 1; layers <= 2; layers++) {
		struct train_model m = small_model(layers, 21 + (uint64_t)layers);
		decode_matches_forward(&m, ids, N, 1);
		decode_matches_forward(&m, ids, N, 4);
		decode_matches_forward(&m, ids, 5, 5); /* all prompt: prefill only */
		m.head_off[layers - 1][1] = true;      /* a head off reaches the steps too */
		decode_matches_forward(&m, ids, N, 3);
		train_model_free(&m);
	}
}

/* The shipped model, through its whole context: greedy from a prompt. */
static void test_shipped_model_decodes_its_whole_context(void **state)
{
	(void)state;
	const char *root = getenv("MHA_SOURCE_ROOT");
	assert_non_null(root);
	char path[4200], msg[4400];
	snprintf(path, sizeof path, "%s/assets/lm.model", root);
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	if (lm_model_load(&m, &v, &meta, path, msg, sizeof msg) != 0)
		fail_msg("%s", msg);
	assert_int_equal(m.s.n, 64);
	int ids[64];
	int k = lm_encode(&v, "the dog saw the cat and", ids, NULL, 64);
	assert_int_equal(k, 6);
	struct lm_decoder dec;
	assert_int_equal(lm_decoder_alloc(&dec, &m), 0);
	assert_int_equal(lm_decoder_prefill(&dec, ids, k, msg, sizeof msg), 0);
	while (dec.len < 64) {
		int next = lm_decoder_pick(&dec, 0.0, 1, NULL);
		ids[dec.len] = next;
		assert_int_equal(lm_decoder_push(&dec, next, msg, sizeof msg), 0);
	}
	/* a 65th token: refused, with the context the model was trained with */
	assert_int_equal(lm_decoder_push(&dec, ids[0], msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "trained on 64 tokens of context"));
	assert_int_equal(dec.len, 64);
	lm_decoder_free(&dec);
	/* the text it made, token by token, against the full pass on it */
	double worst = decode_matches_forward(&m, ids, 64, k);
	printf("# shipped model, 64 tokens: worst probability difference %.3g\n", worst);
	train_model_free(&m);
	lm_vocab_free(&v);
}

static void test_greedy_and_sampled_picks(void **state)
{
	(void)state;
	struct train_model m = small_model(2, 4);
	/* a sharper model: U scaled so that one token stands out */
	for (size_t e = 0; e < (size_t)m.s.d * V; e++)
		m.unemb[e] *= 3.0f;
	int ids[3] = { 2, 5, 11 };
	struct lm_decoder dec;
	char msg[256];
	assert_int_equal(lm_decoder_alloc(&dec, &m), 0);
	assert_int_equal(lm_decoder_prefill(&dec, ids, 3, msg, sizeof msg), 0);
	int best = 0;
	for (int j = 1; j < V; j++)
		if (dec.probs[j] > dec.probs[best])
			best = j;
	double p;
	assert_int_equal(lm_decoder_pick(&dec, 0.0, 99, &p), best);
	assert_true(fabs(p - dec.probs[best]) < 1e-7);
	assert_int_equal(lm_decoder_pick(&dec, 1e-3, 99, NULL), best); /* a tiny temperature: greedy */
	/* the same seed, the same token */
	assert_int_equal(lm_decoder_pick(&dec, 1.0, 7, NULL), lm_decoder_pick(&dec, 1.0, 7, NULL));
	/* over many seeds each token comes as often as its probability (T = 1),
	 * within 4 standard deviations; at T = 2 the top token less often */
	enum { DRAWS = 20000 };
	int count[V] = { 0 }, top_hot = 0;
	for (uint64_t s = 1; s <= DRAWS; s++) {
		count[lm_decoder_pick(&dec, 1.0, s, NULL)]++;
		top_hot += lm_decoder_pick(&dec, 2.0, s, NULL) == best;
	}
	for (int j = 0; j < V; j++) {
		double q = dec.probs[j], sd = sqrt(q * (1 - q) / DRAWS);
		if (fabs((double)count[j] / DRAWS - q) > 4 * sd + 1e-4)
			fail_msg("token %d drawn %.4f of the time, probability %.4f", j, (double)count[j] / DRAWS, q);
	}
	assert_true(top_hot < count[best]);
	lm_decoder_free(&dec);
	train_model_free(&m);
}

static void test_costs_and_cache_bytes(void **state)
{
	(void)state;
	struct train_model m = small_model(2, 1);
	for (int t = 0; t < N; t++) {
		struct lm_decode_cost k = lm_decode_cost(&m, t);
		/* K and V of every layer: 2 layers x 2 x (h dk = 8) x (t+1) float32 */
		assert_int_equal(k.cache_values, 2 * 2 * 8 * (t + 1));
		assert_int_equal(k.cache_bytes, 4 * k.cache_values);
		assert_int_equal(k.readout_flops, 2 * 8 * V + 5 * V);
		if (t > 0)
			assert_true(k.recompute_flops > k.step_flops);
	}
	/* a step's cost grows as t, a recompute's faster */
	struct lm_decode_cost a = lm_decode_cost(&m, 2), b = lm_decode_cost(&m, 8);
	assert_true((double)b.recompute_flops / b.step_flops > (double)a.recompute_flops / a.step_flops);
	train_model_free(&m);
}

static void test_refusals(void **state)
{
	(void)state;
	struct train_model m = small_model(1, 2);
	struct lm_decoder dec;
	char msg[256];
	int ids[N + 1] = { 0 };
	assert_int_equal(lm_decoder_alloc(&dec, &m), 0);
	assert_int_equal(lm_decoder_prefill(&dec, ids, N + 1, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "1 to 9"));
	assert_int_equal(lm_decoder_prefill(&dec, ids, 1, msg, sizeof msg), 0);
	assert_int_equal(lm_decoder_push(&dec, V, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "not in the vocabulary"));
	assert_int_equal(dec.len, 1);
	lm_decoder_free(&dec);
	train_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_equals_the_forward_one_and_two_layers),
		cmocka_unit_test(test_shipped_model_decodes_its_whole_context),
		cmocka_unit_test(test_greedy_and_sampled_picks),
		cmocka_unit_test(test_costs_and_cache_bytes),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
