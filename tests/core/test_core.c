/*
 * test_core.c - the compute core on a case small enough to do by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "mha.h"

/* n = 2, d = 2, h = 1, dk = 2, identity weights, X = [[1,0],[0,1]]:
 * Q = K = V = X; S = X X^T / sqrt(2) = [[a,0],[0,a]], a = 1/sqrt(2);
 * P row 0 = [e^a, 1] / (e^a + 1); Y = P (W^O = I). */
static void test_identity_weights_by_hand(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.n = 2; c.d = 2; c.h = 1; c.g = 1; c.dk = 2;
	struct mha_weights w;
	struct mha_acts a;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	assert_int_equal(mha_acts_alloc(&a, &c), MHA_OK);
	const float eye[4] = { 1, 0, 0, 1 };
	memcpy(w.x, eye, sizeof eye);
	memcpy(w.wq, eye, sizeof eye);
	memcpy(w.wk, eye, sizeof eye);
	memcpy(w.wv, eye, sizeof eye);
	memcpy(w.wo, eye, sizeof eye);
	mha_forward(&c, &w, &a);
	double s = 1.0 / sqrt(2.0), p = exp(s) / (exp(s) + 1.0);
	const double scores[4] = { s, 0, 0, s };
	const double weights[4] = { p, 1 - p, 1 - p, p };
	check_close_d(a.scores, scores, 4, 1e-6, "scores");
	check_close_d(a.weights, weights, 4, 1e-6, "weights");
	check_close_d(a.y, weights, 4, 1e-6, "Y");
	mha_acts_free(&a);
	mha_weights_free(&w);
}

static void test_base_model_has_1048576_parameters(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default();
	c.d = 512; c.h = 8; c.g = 8; c.dk = 64;
	assert_int_equal(mha_counts(&c).params_total, 1048576);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity_weights_by_hand),
		cmocka_unit_test(test_base_model_has_1048576_parameters),
	};
	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
