/*
 * test_probe.c - src/core/probe.c against tools/gen_probe_fixtures.py's
 * float64 numpy (tests/fixtures/probe/NAME.txt): the generated sequences token
 * for token, and every head's previous-token score, prefix matching at
 * each period and the weakest period, within float32 rounding. The cases:
 * the lesson "A circuit by hand" solved, random weights without a causal
 * mask, and three layers of three heads, causal and unscaled. Plus what a
 * probe refuses.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture_read.h"
#include "mha.h"
#include "probe.h"

/* "KEY COUNT": the key must be next; returns COUNT. */
static int key(FILE *f, const char *want)
{
	char buf[64];
	assert_true(fixture_token(f, buf, sizeof buf));
	if (strcmp(buf, want) != 0)
		fail_msg("fixture: expected '%s', got '%s'", want, buf);
	return (int)fixture_number(f, want);
}

static void numbers(FILE *f, const char *what, double *out, int count)
{
	assert_int_equal(key(f, what), count);
	for (int i = 0; i < count; i++)
		out[i] = fixture_number(f, what);
}

static void floats(FILE *f, const char *what, float *out, int count)
{
	assert_int_equal(key(f, what), count);
	for (int i = 0; i < count; i++)
		out[i] = (float)fixture_number(f, what);
}

static void near(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= 2e-5))
		fail_msg("%s: %.9g, numpy %.9g", what, got, want);
}

static void check_case(const char *name)
{
	FILE *f = fixture_open("probe", name);
	double cf[10];
	numbers(f, "config", cf, 10);
	struct mha_config c = mha_config_default();
	c.n = (int)cf[0], c.d = (int)cf[1], c.h = c.g = (int)cf[2], c.dk = (int)cf[3], c.layers = (int)cf[4];
	c.causal = cf[5] != 0, c.scale = cf[6] != 0;
	int vocab = (int)cf[7];
	struct mha_weights w;
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	float *tok = malloc(sizeof(float) * (size_t)vocab * c.d), *pos = malloc(sizeof(float) * (size_t)c.n * c.d);
	assert_non_null(tok);
	assert_non_null(pos);
	floats(f, "tok", tok, vocab * c.d);
	floats(f, "pos", pos, c.n * c.d);
	int dh = c.d * c.h * c.dk;
	for (int l = 0; l < c.layers; l++) {
		struct mha_layer_weights lw = mha_weights_layer(&w, l);
		char k[16];
		snprintf(k, sizeof k, "w%d", l);
		floats(f, k, lw.wq, dh);
		floats(f, k, lw.wk, dh);
		floats(f, k, lw.wv, dh);
		floats(f, k, lw.wo, dh);
	}
	const float *trow[MHA_PROBE_VOCAB_MAX], *prow[MHA_MAX_TOKENS];
	for (int t = 0; t < vocab; t++)
		trow[t] = tok + (size_t)t * c.d;
	for (int i = 0; i < c.n; i++)
		prow[i] = pos + (size_t)i * c.d;
	struct mha_probe_spec sp = { .vocab = vocab, .tok = trow, .pos = prow, .seed = (uint64_t)cf[9],
	                             .per_period = (int)cf[8] };
	struct mha_probe pr;
	struct mha_probe_scores *sc = malloc(sizeof *sc);
	char msg[MHA_MSG_MAX];
	assert_non_null(sc);
	assert_int_equal(mha_probe_alloc(&pr, &c), MHA_OK);
	assert_int_equal(mha_probe_run(&pr, &c, &w, &sp, sc, msg, sizeof msg), MHA_OK);
	double per[MHA_PROBE_PERIODS_MAX], seq[2 + MHA_MAX_TOKENS];
	int np = key(f, "periods");
	assert_int_equal(np, sc->nperiods);
	for (int k = 0; k < np; k++) {
		per[k] = fixture_number(f, "periods");
		assert_int_equal((int)per[k], sc->period[k]);
	}
	for (int s = 0; s < 4; s++) { /* the tokens of a few sequences */
		int tokens[MHA_MAX_TOKENS];
		numbers(f, "sequence", seq, 2 + c.n);
		mha_probe_tokens(c.n, vocab, (int)seq[0], (int)seq[1], sp.seed, tokens);
		for (int i = 0; i < c.n; i++)
			assert_int_equal(tokens[i], (int)seq[2 + i]);
	}
	const int L = c.layers, h = c.h;
	double want[MHA_MAX_LAYERS * 9 * MHA_PROBE_PERIODS_MAX];
	numbers(f, "previous", want, L * h);
	for (int l = 0; l < L; l++)
		for (int i = 0; i < h; i++)
			near(sc->previous[l][i], want[l * h + i], "previous");
	numbers(f, "prefix", want, L * h * np);
	for (int l = 0; l < L; l++)
		for (int i = 0; i < h; i++)
			for (int k = 0; k < np; k++)
				near(sc->prefix[l][i][k], want[(l * h + i) * np + k], "prefix");
	numbers(f, "prefix_min", want, L * h);
	for (int l = 0; l < L; l++)
		for (int i = 0; i < h; i++)
			near(sc->prefix_min[l][i], want[l * h + i], "prefix_min");
	mha_probe_free(&pr);
	mha_weights_free(&w);
	free(sc);
	free(tok);
	free(pos);
	fclose(f);
}

static void test_the_hand_solution_matches_numpy(void **state)
{
	(void)state;
	check_case("hand");
}

static void test_random_weights_without_a_mask_match_numpy(void **state)
{
	(void)state;
	check_case("random");
}

static void test_three_layers_of_three_heads_match_numpy(void **state)
{
	(void)state;
	check_case("deep");
}

static void test_a_probe_refuses_what_does_not_fit(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(); /* 6 tokens */
	c.layers = 2;
	struct mha_weights w;
	assert_int_equal(mha_weights_start(&w, &c), MHA_OK);
	float row[16] = { 0 };
	const float *rows[MHA_MAX_TOKENS];
	for (int i = 0; i < MHA_MAX_TOKENS; i++)
		rows[i] = row;
	struct mha_probe pr;
	struct mha_probe_scores *sc = malloc(sizeof *sc);
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_probe_alloc(&pr, &c), MHA_OK);
	/* 6 tokens and 2 token rows: period 2 only */
	struct mha_probe_spec sp = { .vocab = 2, .tok = rows, .pos = rows, .seed = 1, .per_period = 2 };
	assert_int_equal(mha_probe_run(&pr, &c, &w, &sp, sc, msg, sizeof msg), MHA_EINVAL);
	assert_string_equal(msg, "6 tokens and 2 token rows allow fewer than two repeat periods: give at least 6 "
	                         "tokens and 3 token rows");
	sp.vocab = 3;
	assert_int_equal(mha_probe_run(&pr, &c, &w, &sp, sc, msg, sizeof msg), MHA_OK);
	assert_int_equal(sc->nperiods, 2);
	/* another shape than the one it was made for */
	struct mha_config c2 = c;
	c2.layers = 1;
	assert_int_equal(mha_probe_run(&pr, &c2, &w, &sp, sc, msg, sizeof msg), MHA_EINVAL);
	/* weights past what the core allows */
	w.wq[0] = NAN;
	assert_int_equal(mha_probe_run(&pr, &c, &w, &sp, sc, msg, sizeof msg), MHA_ERANGE);
	mha_probe_free(&pr);
	mha_weights_free(&w);
	free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_hand_solution_matches_numpy),
		cmocka_unit_test(test_random_weights_without_a_mask_match_numpy),
		cmocka_unit_test(test_three_layers_of_three_heads_match_numpy),
		cmocka_unit_test(test_a_probe_refuses_what_does_not_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
