/*
 * test_probe_goal.c - the goals previous-token and prefix-matching, which
 * score a two-layer workbench's heads on sequences the program generates
 * (src/core/probe.c), on the set-up of the lesson "A circuit by hand":
 * X's columns 0-3 the token, 4-7 empty, 8 the position i, 9 i², 10 a 1.
 *
 * The hand solution (worked out in lessons/README.md, "Probe goals"):
 * layer 0 q_i = 10 (2i - 2, -1), k_j = (j, j²), so the score is
 * -10 (j - (i-1))² / sqrt(8) plus a constant per row: the previous token;
 * W^V copies the token, W^O puts it in columns 4-7; layer 1 q_i = 4 token_i,
 * k_j = 4 (columns 4-7 of x_1[j]) = 4 token_{j-1}: the key after the
 * earlier copy. It passes; the default weights, random weights, one layer
 * alone, a layer 1 that reads the token itself (duplicate head), a layer 1
 * whose keys do not get layer 0's write, and heads that attend a fixed
 * distance back must not.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "goal.h"
#include "probe.h"
#include "run.h"
#include "setup.h"
#include "lesson_test.h"

#define BASE                                                                              \
	"mha-tui-lesson 1\n@lesson 1\n@title t\n@objective o\n"                               \
	"@config tokens=8 d_model=16 heads=1 d_k=8 layers=2 causal=on seed=23\n"              \
	"@labels B D A C B D A C\n@embed circuit-tokens circuit-positions\n"

/* Layer 0's previous-token head, from a parabola centred k tokens back:
 * q_i = c (2(i - k), -1) against k_j = (j, j²). */
#define PARABOLA(layer, k)                                                                \
	"@set " layer "W^Q[8,0] = 20\n@set " layer "W^Q[10,0] = " #k "\n@set " layer "W^Q[10,1] = -10\n" \
	"@set " layer "W^K[8,0] = 1\n@set " layer "W^K[9,1] = 1\n"
#define ZERO "@fill W^Q zero\n@fill W^K zero\n@fill W^V identity\n@fill W^O zero\n" \
	"@set layer 1 W^Q = 0\n@set layer 1 W^K = 0\n"
#define PREVIOUS PARABOLA("", -20)
#define COPY "@set W^O[0,4] = 1\n@set W^O[1,5] = 1\n@set W^O[2,6] = 1\n@set W^O[3,7] = 1\n"
#define INDUCTION                                                                         \
	"@set layer 1 W^Q[0,0] = 4\n@set layer 1 W^Q[1,1] = 4\n@set layer 1 W^Q[2,2] = 4\n"   \
	"@set layer 1 W^Q[3,3] = 4\n@set layer 1 W^K[4,0] = 4\n@set layer 1 W^K[5,1] = 4\n"   \
	"@set layer 1 W^K[6,2] = 4\n@set layer 1 W^K[7,3] = 4\n"

/* The step's goal evaluated on BASE + setup: met or not, the status in why. */
static bool holds(const char *setup, const char *goals, char *why, size_t len)
{
	char text[4096];
	snprintf(text, sizeof text, BASE "@step s\n%s%s@hint h\n@solution W^Q[0,0] = 1\n", setup, goals);
	struct test_bench b;
	test_bench_open(&b, text, 0);
	bool met = lesson_run_eval(&b.run, &b.c, &b.w, &b.a) & LESSON_EVAL_MET;
	snprintf(why, len, "%s", b.run.status);
	if (getenv("MHA_PROBE_SHOW"))
		fprintf(stderr, "%s\n", why);
	test_bench_close(&b);
	return met;
}

static const char *const both = "@goal previous-token layer 0 >= 0.8\n@goal prefix-matching layer 1 >= 0.5\n";

static void test_the_hand_solution_passes_and_says_by_how_much(void **state)
{
	(void)state;
	char why[LESSON_STATUS_MAX];
	assert_true(holds(ZERO PREVIOUS COPY INDUCTION, both, why, sizeof why));
	/* every part with its figure: the form */
	assert_string_equal(why, "Goal met: layer 0 head 0: 0.95 on the previous token, need >= 0.8; "
	                         "layer 1 head 0: prefix matching 0.82 (weakest at period 3), need >= 0.5");
	assert_true(holds(ZERO PREVIOUS COPY INDUCTION, "@goal prefix-matching layer 1 >= 0.5\n", why, sizeof why));
	/* the figures of tools/gen_probe_fixtures.py's hand case: 0.8199 at period 3 (the weakest), 0.9487 */
	assert_string_equal(why, "Goal met: layer 1 head 0: prefix matching 0.82 (weakest at period 3), need >= 0.5");
	assert_true(holds(ZERO PREVIOUS, "@goal previous-token layer 0 >= 0.8\n", why, sizeof why));
	assert_string_equal(why, "Goal met: layer 0 head 0: 0.95 on the previous token, need >= 0.8");
}

static void test_default_and_random_weights_do_not_pass(void **state)
{
	(void)state;
	char why[LESSON_STATUS_MAX];
	assert_false(holds(ZERO, both, why, sizeof why));
	assert_non_null(strstr(why, "Not yet: layer 0 head 0: "));
	assert_non_null(strstr(why, "on the previous token, need >= 0.8"));
	for (int seed = 1; seed <= 5; seed++) { /* the seeded Glorot weights of every layer */
		char setup[128];
		snprintf(setup, sizeof setup, "@config tokens=8 d_model=16 heads=1 d_k=8 layers=2 causal=on seed=%d\n", seed);
		assert_false(holds(setup, both, why, sizeof why));
	}
}

static void test_one_layer_alone_does_not_pass(void **state)
{
	(void)state;
	char why[LESSON_STATUS_MAX];
	/* layer 0 right, layer 1 left at zero: even attention */
	assert_false(holds(ZERO PREVIOUS COPY, both, why, sizeof why));
	assert_non_null(strstr(why, "Not yet: layer 0 head 0: 0.95 on the previous token, need >= 0.8; "
	                           "layer 1 head 0: prefix matching 0.16 (weakest at period 4)"));
	assert_non_null(strstr(why, "need >= 0.5"));
	/* layer 1 wired, but layer 0 writes nothing: the keys hold no previous token */
	assert_false(holds(ZERO PREVIOUS INDUCTION, both, why, sizeof why));
	/* layer 1 keys on the token itself (a duplicate-token head): the earlier
	 * copy, not the token after it */
	assert_false(holds(ZERO PREVIOUS COPY
	                   "@set layer 1 W^Q[0,0] = 4\n@set layer 1 W^Q[1,1] = 4\n@set layer 1 W^Q[2,2] = 4\n"
	                   "@set layer 1 W^Q[3,3] = 4\n@set layer 1 W^K[0,0] = 4\n@set layer 1 W^K[1,1] = 4\n"
	                   "@set layer 1 W^K[2,2] = 4\n@set layer 1 W^K[3,3] = 4\n", both, why, sizeof why));
	/* the query reads layer 0's write instead of the key (Q-composition): the
	 * token after the earlier copy of the previous token */
	assert_false(holds(ZERO PREVIOUS COPY
	                   "@set layer 1 W^Q[4,0] = 4\n@set layer 1 W^Q[5,1] = 4\n@set layer 1 W^Q[6,2] = 4\n"
	                   "@set layer 1 W^Q[7,3] = 4\n@set layer 1 W^K[0,0] = 4\n@set layer 1 W^K[1,1] = 4\n"
	                   "@set layer 1 W^K[2,2] = 4\n@set layer 1 W^K[3,3] = 4\n", both, why, sizeof why));
}

static void test_heads_at_a_fixed_distance_do_not_pass(void **state)
{
	(void)state;
	char why[LESSON_STATUS_MAX];
	/* layer 1 at k = 1..4 back (the parabola's centre at i - k, on the
	 * positions the stream still holds): each matches one repeat length at most */
	static const char *const layer1[] = {
		PARABOLA("layer 1 ", -20), PARABOLA("layer 1 ", -40), PARABOLA("layer 1 ", -60), PARABOLA("layer 1 ", -80),
	};
	for (int k = 0; k < 4; k++) {
		char setup[2048];
		snprintf(setup, sizeof setup, ZERO PREVIOUS COPY "%s", layer1[k]);
		assert_false(holds(setup, both, why, sizeof why));
		assert_non_null(strstr(why, "(weakest at period "));
	}
	/* the head three back is an induction head for repeats of 4 exactly,
	 * which is why the goal reads the weakest length */
	char text[4096];
	snprintf(text, sizeof text, BASE "@step s\n" ZERO PREVIOUS COPY "%s%s@hint h\n@solution W^Q[0,0] = 1\n",
	         layer1[2], both);
	struct test_bench b;
	test_bench_open(&b, text, 0);
	const struct lesson_op *op = &b.l.base.ops[0];
	assert_int_equal(op->kind, LESSON_OP_EMBED);
	const float *tok[4], *pos[8];
	for (int i = 0; i < 4; i++)
		tok[i] = op->tokens[i].v;
	for (int i = 0; i < 8; i++)
		pos[i] = op->positions[i].v;
	struct mha_probe_spec sp = { .vocab = 4, .tok = tok, .pos = pos, .seed = LESSON_PROBE_SEED,
	                             .per_period = LESSON_PROBE_SEQUENCES };
	struct mha_probe pr;
	struct mha_probe_scores *sc = malloc(sizeof *sc);
	char msg[MHA_MSG_MAX];
	assert_non_null(sc);
	assert_int_equal(mha_probe_alloc(&pr, &b.c), MHA_OK);
	assert_int_equal(mha_probe_run(&pr, &b.c, &b.w, &sp, sc, msg, sizeof msg), MHA_OK);
	assert_int_equal(sc->period[2], 4);
	assert_true(sc->prefix[1][0][2] > 0.9);
	assert_true(sc->prefix_min[1][0] < 0.1);
	mha_probe_free(&pr);
	free(sc);
	test_bench_close(&b);
	/* layer 0 two back is no previous-token head */
	assert_false(holds(ZERO PARABOLA("", -40) COPY INDUCTION, both, why, sizeof why));
}

static void test_probe_goals_are_checked_when_parsed(void **state)
{
	(void)state;
	test_parse_fails_with("mha-tui-lesson 1\n@lesson 1\n@title t\n@objective o\n"
	                      "@config layers=2\n@step s\n@goal prefix-matching layer 1 >= 0.5\n@hint h\n"
	                      "@solution W^Q[0,0] = 1\n",
	                      "t.lesson:7: @goal prefix-matching measures generated sequences embedded as X is: "
	                      "the lesson or the step needs @embed");
	test_parse_fails_with(BASE "@step s\n@goal prefix-matching layer 2 >= 0.5\n@hint h\n@solution W^Q[0,0] = 1\n",
	                      "t.lesson:9: @goal names layer 2, which does not exist: give @config layers=3");
	test_parse_fails_with(BASE "@step s\n@goal prefix-matching 1 >= 0.5\n@hint h\n@solution W^Q[0,0] = 1\n",
	                      "t.lesson:9: @goal: expected 'prefix-matching layer L OP VALUE' "
	                      "(prefix-matching layer 0 >= 0.6)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_hand_solution_passes_and_says_by_how_much),
		cmocka_unit_test(test_default_and_random_weights_do_not_pass),
		cmocka_unit_test(test_one_layer_alone_does_not_pass),
		cmocka_unit_test(test_heads_at_a_fixed_distance_do_not_pass),
		cmocka_unit_test(test_probe_goals_are_checked_when_parsed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
