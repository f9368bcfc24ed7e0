/*
 * test_core.c - the compute core on cases small enough to work out by hand
 * (the arithmetic is in the comments, the numbers in the tests), and the
 * parameter, FLOP and KV-cache counts of the paper's base and big models
 * against doc/FACTS.md. Random configurations, fixtures and properties live in
 * test_properties.c and test_fixtures.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "mha.h"

/* The hand cases share their inputs (n = 2, d = 2):
 *   X = [[1, 0],      W^Q = I,   W^K = [[0, 1],   W^V = I,   W^O = [[1, 1],
 *        [0, 2]]                        [1, 0]]                     [0, 1]]
 * so Q = X = [[1,0],[0,2]], K = X W^K = [[0,1],[2,0]], V = X = [[1,0],[0,2]]. */
static const float hand_x[4] = { 1, 0, 0, 2 };
static const float hand_eye[4] = { 1, 0, 0, 1 };
static const float hand_swap[4] = { 0, 1, 1, 0 };
static const float hand_wo[4] = { 1, 1, 0, 1 };

struct hand {
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a, b; /* BLAS and naive */
};

/* Set up the shared inputs for a config with d = 2, h*dk = 2 and g = h. */
static void hand_run(struct hand *t, int h, bool causal, int head_off)
{
	t->c = mha_config_default();
	t->c.n = 2; t->c.d = 2; t->c.h = h; t->c.g = h; t->c.dk = 2 / h;
	t->c.causal = causal;
	if (head_off >= 0)
		t->c.head_off[head_off] = true;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_config_check(&t->c, msg, sizeof msg), MHA_OK);
	assert_int_equal(mha_weights_alloc(&t->w, &t->c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&t->a, &t->c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&t->b, &t->c), MHA_OK);
	memcpy(t->w.x, hand_x, sizeof hand_x);
	memcpy(t->w.wq, hand_eye, sizeof hand_eye);
	memcpy(t->w.wk, hand_swap, sizeof hand_swap);
	memcpy(t->w.wv, hand_eye, sizeof hand_eye);
	memcpy(t->w.wo, hand_wo, sizeof hand_wo);
	mha_forward(&t->c, &t->w, &t->a);
	mha_forward_naive(&t->c, &t->w, &t->b);
}

static void hand_free(struct hand *t)
{
	mha_acts_free(&t->a);
	mha_acts_free(&t->b);
	mha_weights_free(&t->w);
}

/* Check one tensor of both passes against the hand numbers. */
static void hand_check(const struct hand *t, enum mha_tensor k, const double *want)
{
	struct mha_shape s = mha_tensor_shape(&t->c, k);
	size_t len = (size_t)s.count * s.rows * s.cols;
	char label[64];
	snprintf(label, sizeof label, "%s (BLAS)", mha_tensor_info(k)->name);
	check_close_d(mha_tensor_data(&t->w, &t->a, k), want, len, 1e-6, label);
	snprintf(label, sizeof label, "%s (naive)", mha_tensor_info(k)->name);
	check_close_d(mha_tensor_data(&t->w, &t->b, k), want, len, 1e-6, label);
}

/* The hand numbers of one case, in pipeline order; NULL: not checked. */
struct hand_want {
	const double *q, *k, *v, *s, *p, *o, *cat, *y;
};

static void hand_check_all(const struct hand *t, const struct hand_want *w)
{
	const double *want[] = { w->q, w->k, w->v, w->s, w->p, w->o, w->cat, w->y };
	for (enum mha_tensor k = MHA_T_Q; k <= MHA_T_Y; k++)
		if (want[k - MHA_T_Q])
			hand_check(t, k, want[k - MHA_T_Q]);
}

/* h = 1, dk = 2, s = 1/sqrt(2):
 *   Q K^T = [[1*0+0*1, 1*2+0*0], [0*0+2*1, 0*2+2*0]] = [[0, 2], [2, 0]]
 *   S = [[0, sqrt2], [sqrt2, 0]]            (sqrt2 = 1.414213562)
 *   P row 0 = [1, e^sqrt2] / (1 + e^sqrt2), e^sqrt2 = 4.113250379
 *         = [a, 1-a], a = 1/5.113250379 = 0.195570317; row 1 = [1-a, a]
 *   O = P V = [[a*1, (1-a)*2], [(1-a)*1, a*2]] = [[0.195570317, 1.608859366],
 *                                                 [0.804429683, 0.391140634]]
 *   Y = O W^O = [[o00, o00 + o01], [o10, o10 + o11]]
 *             = [[0.195570317, 1.804429683], [0.804429683, 1.195570317]] */
static void test_one_head_by_hand(void **state)
{
	(void)state;
	struct hand t;
	hand_run(&t, 1, false, -1);
	const double q[4] = { 1, 0, 0, 2 }, k[4] = { 0, 1, 2, 0 };
	const double s[4] = { 0, 1.414213562, 1.414213562, 0 };
	const double p[4] = { 0.195570317, 0.804429683, 0.804429683, 0.195570317 };
	const double o[4] = { 0.195570317, 1.608859366, 0.804429683, 0.391140634 };
	const double y[4] = { 0.195570317, 1.804429683, 0.804429683, 1.195570317 };
	hand_check_all(&t, &(struct hand_want){ q, k, q, s, p, o, o, y });
	hand_free(&t);
}

/* The same with the causal mask: S is kept as computed (before the mask),
 * row 0 sees key 0 only: P = [[1, 0], [1-a, a]];
 *   O = [[1, 0], [0.804429683, 0.391140634]]; Y = [[1, 1], [0.804429683, 1.195570317]] */
static void test_one_causal_head_by_hand(void **state)
{
	(void)state;
	struct hand t;
	hand_run(&t, 1, true, -1);
	const double s[4] = { 0, 1.414213562, 1.414213562, 0 };
	const double p[4] = { 1, 0, 0.804429683, 0.195570317 };
	const double o[4] = { 1, 0, 0.804429683, 0.391140634 };
	const double y[4] = { 1, 1, 0.804429683, 1.195570317 };
	hand_check_all(&t, &(struct hand_want){ .s = s, .p = p, .o = o, .cat = o, .y = y });
	assert_true(t.a.weights[1] == 0.0f); /* masked: exactly 0, not tiny */
	assert_true(t.b.weights[1] == 0.0f);
	hand_free(&t);
}

/* h = 2, dk = 1, s = 1/sqrt(1) = 1. Head i is column i of Q, K, V:
 *   head 0: q = [1, 0], k = [0, 2], v = [1, 0]
 *   head 1: q = [0, 2], k = [1, 0], v = [0, 2]
 *   S_0 = q k^T = [[0, 2], [0, 0]],  S_1 = [[0, 0], [2, 0]]
 *   softmax(0, 2) = [b, 1-b], b = 1/(1 + e^2) = 0.119202922
 *   P_0 = [[b, 1-b], [0.5, 0.5]],    P_1 = [[0.5, 0.5], [1-b, b]]
 *   O_0 = P_0 v = [b, 0.5],          O_1 = P_1 v = [0.5*2, b*2] = [1, 2b]
 *   Concat = [[b, 1], [0.5, 2b]] = [[0.119202922, 1], [0.5, 0.238405844]]
 *   Y = Concat W^O = [[b, b + 1], [0.5, 0.5 + 2b]]
 *     = [[0.119202922, 1.119202922], [0.5, 0.738405844]] */
static void test_two_heads_by_hand(void **state)
{
	(void)state;
	struct hand t;
	hand_run(&t, 2, false, -1);
	const double s[8] = { 0, 2, 0, 0, /* head 1 */ 0, 0, 2, 0 };
	const double p[8] = { 0.119202922, 0.880797078, 0.5, 0.5,
	                      0.5, 0.5, 0.880797078, 0.119202922 };
	const double o[4] = { 0.119202922, 0.5, /* head 1 */ 1, 0.238405844 };
	const double cat[4] = { 0.119202922, 1, 0.5, 0.238405844 };
	const double y[4] = { 0.119202922, 1.119202922, 0.5, 0.738405844 };
	hand_check_all(&t, &(struct hand_want){ .s = s, .p = p, .o = o, .cat = cat, .y = y });
	hand_free(&t);
}

/* Head 1 switched off: its O_1 is still computed (the screen shows it), but
 * its Concat block is 0: Concat = [[b, 0], [0.5, 0]], Y = [[b, b], [0.5, 0.5]]. */
static void test_two_heads_one_off_by_hand(void **state)
{
	(void)state;
	struct hand t;
	hand_run(&t, 2, false, 1);
	const double o[4] = { 0.119202922, 0.5, 1, 0.238405844 };
	const double cat[4] = { 0.119202922, 0, 0.5, 0 };
	const double y[4] = { 0.119202922, 0.119202922, 0.5, 0.5 };
	hand_check_all(&t, &(struct hand_want){ .o = o, .cat = cat, .y = y });
	hand_free(&t);
}

/* ---- counts (doc/FACTS.md, "The base model", and the formulas in mha.h's comments) ---- */

static struct mha_config model(int n, int d, int h, int g, int dk)
{
	struct mha_config c = mha_config_default();
	c.n = n; c.d = d; c.h = h; c.g = g; c.dk = dk;
	return c;
}

/* Base model: W^Q, W^K, W^V, W^O each 512 x 512 = 262,144; total 1,048,576. */
static void test_base_model_has_1048576_parameters(void **state)
{
	(void)state;
	struct mha_config c = model(10, 512, 8, 8, 64);
	struct mha_counts k = mha_counts(&c);
	assert_int_equal(k.params_wq, 262144);
	assert_int_equal(k.params_wk, 262144);
	assert_int_equal(k.params_wv, 262144);
	assert_int_equal(k.params_wo, 262144);
	assert_int_equal(k.params_total, 1048576);
	assert_int_equal(k.kv_cache_per_token, 2 * 8 * 64);
}

/* Big model: d 1024, h 16, dk 64: 4 x 1024^2 = 4,194,304; KV 2 * 16 * 64. */
static void test_big_model_has_4194304_parameters(void **state)
{
	(void)state;
	struct mha_config c = model(10, 1024, 16, 16, 64);
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
	struct mha_counts k = mha_counts(&c);
	assert_int_equal(k.params_total, 4194304);
	assert_int_equal(k.kv_cache_per_token, 2048);
}

/* FLOPs for n = 10 on the base model, each from its formula:
 *   projection 2 n d (h + 2g) dk = 3 * 2 n d^2 = 3 * 5,242,880 = 15,728,640
 *   scores 2 n^2 h dk = 2 n^2 d = 102,400; weighted sum the same
 *   softmax 5 n^2 h = 4,000; output 2 n (h dk) d = 5,242,880 */
static void test_base_model_flops_follow_the_formulas(void **state)
{
	(void)state;
	struct mha_config c = model(10, 512, 8, 8, 64);
	struct mha_counts k = mha_counts(&c);
	assert_int_equal(k.flops_projection, 15728640);
	assert_int_equal(k.flops_scores, 102400);
	assert_int_equal(k.flops_weighted_sum, 102400);
	assert_int_equal(k.flops_softmax, 4000);
	assert_int_equal(k.flops_output, 5242880);
	assert_int_equal(k.flops_total, 15728640 + 102400 + 102400 + 4000 + 5242880);
}

/* Table 3 row (A): h in {1, 4, 8, 16, 32} with h * dk = 512. Parameters,
 * projections, scores, weighted sum and output do not depend on h; only
 * the softmax (5 n^2 per head) grows with it. */
static void test_counts_do_not_depend_on_heads_when_h_dk_is_d_model(void **state)
{
	(void)state;
	static const int heads[] = { 1, 4, 8, 16, 32 };
	struct mha_counts one = mha_counts(&(struct mha_config){ .n = 7, .d = 512, .h = 1, .g = 1, .dk = 512 });
	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
		struct mha_config c = model(7, 512, heads[i], heads[i], 512 / heads[i]);
		struct mha_counts k = mha_counts(&c);
		assert_int_equal(k.params_total, 1048576);
		assert_int_equal(k.flops_projection, one.flops_projection);
		assert_int_equal(k.flops_scores, one.flops_scores);
		assert_int_equal(k.flops_weighted_sum, one.flops_weighted_sum);
		assert_int_equal(k.flops_output, one.flops_output);
		assert_int_equal(k.flops_softmax, 5 * 49 * heads[i]);
		/* the "one head of full dimension" reference is the h = 1 total */
		assert_int_equal(k.flops_one_full_head, one.flops_total);
	}
}

/* KV cache = 2 g dk per token: GQA shrinks it by h / g, MQA by h.
 * LLaMA 2 70B: 64 query heads, 8 KV heads, dk 128 -> 2048 instead of 16384. */
static void test_kv_cache_shrinks_by_h_over_g(void **state)
{
	(void)state;
	assert_int_equal(mha_counts(&(struct mha_config){ .n = 1, .d = 512, .h = 8, .g = 2, .dk = 64 }).kv_cache_per_token, 256);
	assert_int_equal(mha_counts(&(struct mha_config){ .n = 1, .d = 512, .h = 8, .g = 1, .dk = 64 }).kv_cache_per_token, 128);
	struct mha_config llama = model(1, 8192, 64, 8, 128), full = model(1, 8192, 64, 64, 128);
	assert_int_equal(mha_counts(&llama).kv_cache_per_token, 2048);
	assert_int_equal(mha_counts(&full).kv_cache_per_token, 16384);
	/* and W^K, W^V shrink the same way: d x g dk */
	assert_int_equal(mha_counts(&llama).params_wk, 8192 * 8 * 128);
}

/* The total is the sum of its parts, on an odd GQA shape with dk set alone. */
static void test_flop_total_is_the_sum_of_the_stages(void **state)
{
	(void)state;
	struct mha_config c = model(13, 10, 6, 3, 5);
	struct mha_counts k = mha_counts(&c);
	int64_t n = 13, d = 10, h = 6, g = 3, dk = 5;
	assert_int_equal(k.flops_projection, 2 * n * d * (h + 2 * g) * dk);
	assert_int_equal(k.flops_scores, 2 * n * n * dk * h);
	assert_int_equal(k.flops_output, 2 * n * h * dk * d);
	assert_int_equal(k.flops_total, k.flops_projection + k.flops_scores + k.flops_softmax
	                                + k.flops_weighted_sum + k.flops_output);
	assert_int_equal(k.params_total, d * h * dk * 2 + d * g * dk * 2);
}

/* The largest configuration the core allows must not overflow any count. */
static void test_counts_of_the_largest_configuration_are_exact(void **state)
{
	(void)state;
	struct mha_config c = model(MHA_MAX_TOKENS, MHA_MAX_D_MODEL, 4, 4, MHA_MAX_DK);
	struct mha_counts k = mha_counts(&c);
	assert_int_equal(k.params_total, (int64_t)4 * 1024 * 4096);
	assert_int_equal(k.flops_projection, (int64_t)2 * 64 * 1024 * 12 * 1024);
	assert_true(k.flops_total > 0);
}

/* The default workbench's heads say what they are wired for, until an
 * edit to their W^Q or W^K undoes it (that head only); random seeds and
 * shapes the wiring does not fit have no role. */
static void test_wired_heads_name_their_role_until_edited(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, MHA_SEED_WIRED);
	for (int h = 0; h < 4; h++)
		assert_int_equal(mha_wired_role(&w, &c, h), h);
	assert_string_equal(mha_wired_role_name(0, false), "previous token");
	assert_string_equal(mha_wired_role_name(2, true), "1st");
	w.wq[3 * 16 + 4] += 0.5f; /* W^Q[3][4]: head 1's block */
	assert_int_equal(mha_wired_role(&w, &c, 1), -1);
	assert_int_equal(mha_wired_role(&w, &c, 0), 0);
	assert_int_equal(mha_wired_role(&w, &c, 2), 2);
	w.wk[15 * 16 + 12] = 2.0f; /* W^K[15][12]: kv head 3's block */
	assert_int_equal(mha_wired_role(&w, &c, 3), -1);
	mha_weights_init(&w, &c, 1);
	for (int h = 0; h < 4; h++)
		assert_int_equal(mha_wired_role(&w, &c, h), -1);
	mha_weights_free(&w);
	/* GQA: query heads 0, 1 read kv head 0 and share its role */
	c.g = 2;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, MHA_SEED_WIRED);
	assert_int_equal(mha_wired_role(&w, &c, 0), 0);
	assert_int_equal(mha_wired_role(&w, &c, 1), 0);
	assert_int_equal(mha_wired_role(&w, &c, 2), 1);
	mha_weights_free(&w);
	c = mha_config_default();
	c.d = 4;
	c.dk = 1; /* too small to wire */
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, MHA_SEED_WIRED);
	assert_int_equal(mha_wired_role(&w, &c, 0), -1);
	mha_weights_free(&w);
}

/* The wired workbench stays within MHA_VALUE_MAX at every shape, so any
 * start can be saved and read back: d = 1024 once put 1,040,400 in W^K.
 * The largest d_model with GQA; the largest d_k (c = 3 sqrt(d_k) is
 * largest there) with all 64 word rows of the same-word head; n = 64;
 * and the heads still do what they are wired for. */
static void test_the_wired_workbench_stays_in_range_at_the_largest_shapes(void **state)
{
	(void)state;
	static const int shapes[][5] = { /* n d h g dk */
		{ 64, MHA_MAX_D_MODEL, 8, 4, 64 }, { 64, 69, 2, 2, MHA_MAX_DK },
		{ 3, MHA_MAX_D_MODEL, 4, 4, 2 }, { 64, 69, 64, 64, 64 }, { 1, 6, 1, 1, 2 },
	};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		struct mha_config c = model(shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3], shapes[k][4]);
		struct mha_weights w;
		char msg[MHA_MSG_MAX];
		assert_int_equal(mha_config_check(&c, msg, sizeof msg), MHA_OK);
		assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
		mha_weights_init(&w, &c, MHA_SEED_WIRED);
		if (mha_weights_check(&w, &c, msg, sizeof msg) != MHA_OK)
			fail_msg("n %d d %d h %d g %d dk %d: %s", c.n, c.d, c.h, c.g, c.dk, msg);
		for (int h = 0; h < c.h; h++)
			assert_int_equal(mha_wired_role(&w, &c, h), mha_kv_head(&c, h) % 4);
		mha_weights_free(&w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_head_by_hand),
		cmocka_unit_test(test_one_causal_head_by_hand),
		cmocka_unit_test(test_two_heads_by_hand),
		cmocka_unit_test(test_two_heads_one_off_by_hand),
		cmocka_unit_test(test_base_model_has_1048576_parameters),
		cmocka_unit_test(test_big_model_has_4194304_parameters),
		cmocka_unit_test(test_base_model_flops_follow_the_formulas),
		cmocka_unit_test(test_counts_do_not_depend_on_heads_when_h_dk_is_d_model),
		cmocka_unit_test(test_kv_cache_shrinks_by_h_over_g),
		cmocka_unit_test(test_flop_total_is_the_sum_of_the_stages),
		cmocka_unit_test(test_counts_of_the_largest_configuration_are_exact),
		cmocka_unit_test(test_wired_heads_name_their_role_until_edited),
		cmocka_unit_test(test_the_wired_workbench_stays_in_range_at_the_largest_shapes),
	};
	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
