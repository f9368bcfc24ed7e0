/*
 * test_decode.c - prefill and decode (decode.c): every decoded row equals
 * the same row of the causal full pass, bit for bit against
 * mha_forward_naive (the same loops in the same order) and within 1e-6 of
 * the largest magnitude against mha_forward (BLAS sums in another order),
 * on seeded configurations with GQA, top-k, masks, biases and heads off; the cache
 * rows are the full pass's K and V; what is refused; the step's cost.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mha.h"
#include "pick.h"

/* xorshift64*: this test's own stream (pick.h). */
static uint64_t pick_state = 0xD1B54A32D192ED03ull;

static struct mha_config random_causal_config(int k)
{
	struct mha_config c = mha_config_default();
	c.n = pick_int(&pick_state, 1, 24);
	c.h = pick_int(&pick_state, 1, 6);
	c.g = c.h % 2 == 0 && pick_int(&pick_state, 0, 1) ? c.h / 2 : pick_int(&pick_state, 0, 1) ? 1 : c.h;
	c.dk = pick_int(&pick_state, 1, 8);
	c.d = pick_int(&pick_state, 1, 24);
	c.causal = true;
	c.scale = pick_int(&pick_state, 0, 3) != 0;
	c.top_k = pick_int(&pick_state, 0, 2) ? 0 : pick_int(&pick_state, 1, c.n);
	if (k % 3 == 1) {
		c.window = pick_int(&pick_state, 1, c.n);
		if (pick_int(&pick_state, 0, 1))
			c.pad = (uint64_t)1 << pick_int(&pick_state, 0, c.n - 1);
		mha_mask_set(&c, pick_int(&pick_state, 0, c.n - 1), pick_int(&pick_state, 0, c.n - 1), true);
	}
	for (int i = 0; i < c.h; i++)
		c.head_off[i] = pick_int(&pick_state, 0, 6) == 0;
	c.bias = k % 4 == 2;
	return c;
}

static double max_abs(const float *p, size_t n)
{
	double m = 1.0;
	for (size_t i = 0; i < n; i++)
		m = fmax(m, fabs(p[i]));
	return m;
}

static void test_decoded_rows_equal_the_causal_full_pass(void **state)
{
	(void)state;
	for (int k = 0; k < 40; k++) {
		struct mha_config c = random_causal_config(k);
		char msg[MHA_MSG_MAX];
		assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
		struct mha_weights w;
		struct mha_acts naive, blas;
		struct mha_decoder dec;
		assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
		mha_weights_init(&w, &c, 500 + (uint64_t)k);
		mha_biases_init(&w, &c, 500 + (uint64_t)k);
		assert_int_equal(mha_acts_alloc(&naive, &c), MHA_OK);
		assert_int_equal(mha_acts_alloc(&blas, &c), MHA_OK);
		mha_forward_naive(&c, &w, &naive);
		mha_forward(&c, &w, &blas);
		assert_int_equal(mha_decoder_alloc(&dec, &c), MHA_OK);
		const int n = c.n, d = c.d, gw = c.g * c.dk;
		const double tol = 1e-6 * max_abs(blas.y, (size_t)n * d);
		int prompt = pick_int(&pick_state, 1, n);
		assert_int_equal(mha_decoder_prefill(&dec, &c, &w, prompt, msg, sizeof msg), MHA_OK);
		for (;;) {
			int t = dec.len - 1;
			if (memcmp(dec.y, naive.y + (size_t)t * d, (size_t)d * sizeof(float)) != 0)
				fail_msg("config %d (n %d h %d g %d top-k %d window %d): row %d of Y differs "
				         "from the naive full pass", k, n, c.h, c.g, c.top_k, c.window, t);
			for (int i = 0; i < c.h; i++) {
				const float *want = naive.weights + ((size_t)i * n + t) * n;
				assert_memory_equal(dec.weights + (size_t)i * dec.cap, want, (size_t)n * sizeof(float));
				assert_int_equal(dec.dead[i], naive.dead_row[i * n + t]);
			}
			for (int e = 0; e < d; e++)
				if (fabs(dec.y[e] - blas.y[(size_t)t * d + e]) > tol)
					fail_msg("config %d: Y[%d][%d] decoded %.9g, BLAS full pass %.9g", k, t, e,
					         (double)dec.y[e], (double)blas.y[(size_t)t * d + e]);
			if (dec.len == n)
				break;
			assert_int_equal(mha_decoder_step(&dec, &c, &w), MHA_OK);
		}
		/* the cache is the full pass's K and V */
		assert_memory_equal(dec.k, naive.k, (size_t)n * gw * sizeof(float));
		assert_memory_equal(dec.v, naive.v, (size_t)n * gw * sizeof(float));
		assert_int_equal(mha_decoder_step(&dec, &c, &w), MHA_EINVAL); /* full */
		mha_decoder_free(&dec);
		mha_acts_free(&naive);
		mha_acts_free(&blas);
		mha_weights_free(&w);
	}
}

static void test_decoding_needs_causal_and_room(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	struct mha_decoder dec;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, 3);
	assert_int_equal(mha_decoder_alloc(&dec, &c), MHA_OK);
	assert_int_equal(mha_decoder_prefill(&dec, &c, &w, 2, msg, sizeof msg), MHA_EINVAL);
	assert_non_null(strstr(msg, "causal"));
	c.causal = true;
	assert_int_equal(mha_decoder_prefill(&dec, &c, &w, 7, msg, sizeof msg), MHA_EINVAL);
	assert_int_equal(dec.len, 0);
	assert_int_equal(mha_decoder_prefill(&dec, &c, &w, 6, msg, sizeof msg), MHA_OK);
	assert_int_equal(dec.len, 6);
	mha_decoder_reset(&dec);
	assert_int_equal(dec.len, 0);
	assert_int_equal(mha_decoder_step(&dec, &c, &w), MHA_OK);
	assert_int_equal(dec.len, 1);
	mha_decoder_free(&dec);
	mha_weights_free(&w);
}

static void test_a_step_costs_a_row_not_the_whole_pass(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(); /* d 16, h 4, g 4, dk 4 */
	c.causal = true;
	/* step t = 5 (6 keys): 2*16*12*4 + 4*4*4*6 + 5*4*6 + 2*4*4*16 = 1536 + 384 + 120 + 512 */
	struct mha_decode_cost k = mha_decode_cost(&c, 5);
	assert_int_equal(k.step_flops, 2552);
	assert_int_equal(k.recompute_flops, mha_counts(&c).flops_total); /* n = 6 */
	assert_int_equal(k.cache_values, 2 * 4 * 4 * 6);
	/* the n steps together cost what one full pass does */
	int64_t sum = 0;
	for (int t = 0; t < c.n; t++)
		sum += mha_decode_cost(&c, t).step_flops;
	struct mha_counts full = mha_counts(&c);
	/* full pass: n^2 score cells, the steps 1+2+..+n = n(n+1)/2 of them */
	assert_int_equal(sum, full.flops_projection + full.flops_output
	                     + (full.flops_scores + full.flops_weighted_sum + full.flops_softmax) / 36 * 21);
	assert_true(k.step_flops * 4 < k.recompute_flops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decoded_rows_equal_the_causal_full_pass),
		cmocka_unit_test(test_decoding_needs_causal_and_room),
		cmocka_unit_test(test_a_step_costs_a_row_not_the_whole_pass),
	};
	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
