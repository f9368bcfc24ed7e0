/*
 * test_layer_goals.c - lesson goals, edits, highlights and questions that read
 * a stack of layers and where order enters: "layer 1 S₀[0,1]", the
 * residual stream "x₁[0,0]", @config pos / pos_offset / layers, @focus
 * layer L, and a question whose answer is a cell's live value
 * (@answer cell).
 *
 * The bench: tokens a, b; d_model 2; one head; X and layer 0's W's the
 * identity, so that layer 0 computes S = I / sqrt(2), row 0 of P is
 * [p, 1 - p] with p = e^(1/sqrt 2) / (e^(1/sqrt 2) + 1) = 0.66976, and
 * Y = P. The stream after it, x₁ = X + Y, is then [[1 + p, 1 - p],
 * [1 - p, 1 + p]] by hand. Layer 1 keeps its seeded W's unless a step
 * sets them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "goal.h"
#include "ref.h"
#include "run.h"
#include "setup.h"
#include "lesson_test.h"

#define HEAD "mha-tui-lesson 1\n@lesson 1\n@title t\n@objective o\n"
#define BENCH                                                                        \
	HEAD "@config tokens=2 d_model=2 heads=1 layers=2\n@labels a b\n@fill X identity\n" \
	"@fill W^Q identity\n@fill W^K identity\n@fill W^V identity\n@fill W^O identity\n"

static const double p_hand = 0.66976155; /* e^(1/sqrt 2) / (e^(1/sqrt 2) + 1) */

/* A lesson's step on a workbench of every layer. */
struct stack_bench {
	struct lesson l;
	struct lesson_run run;
	struct mha_config c;
	struct mha_weights w;
	struct mha_stack s;
};

static void sb_forward(struct stack_bench *b)
{
	mha_stack_free(&b->s);
	assert_int_equal(mha_stack_alloc(&b->s, &b->c), MHA_OK);
	mha_stack_forward(&b->c, &b->w, &b->s);
}

static void sb_open(struct stack_bench *b, const char *text, int step)
{
	struct lesson_errors errs = { 0 };
	char msg[512];
	memset(b, 0, sizeof *b);
	int rc = test_parse(text, &b->l, &errs);
	for (int i = 0; i < errs.count; i++)
		print_error("%s\n", errs.msg[i]);
	lesson_errors_free(&errs);
	assert_int_equal(rc, 0);
	rc = lesson_run_start(&b->run, &b->l, step, true, &b->c, &b->w, msg, sizeof msg);
	if (rc < 0)
		print_error("set-up failed: %s\n", msg);
	assert_int_equal(rc, 1);
	sb_forward(b);
}

static bool sb_eval(struct stack_bench *b)
{
	return lesson_run_eval(&b->run, &b->c, &b->w, b->s.layer) & LESSON_EVAL_MET;
}

static void sb_close(struct stack_bench *b)
{
	lesson_run_end(&b->run);
	mha_stack_free(&b->s);
	mha_weights_free(&b->w);
	lesson_free(&b->l);
}

/* Does the goal hold on the bench changed by `setup` (lines in the step)? */
static bool holds(const char *goal, const char *setup)
{
	char text[2048];
	snprintf(text, sizeof text, BENCH "@step s\n%s@goal %s\n@hint h\n@solution W^Q[0,0] = 1\n", setup, goal);
	struct stack_bench b;
	sb_open(&b, text, 0);
	bool met = sb_eval(&b);
	sb_close(&b);
	return met;
}

static void test_the_stream_reads_x_plus_y_by_hand(void **state)
{
	(void)state;
	/* x₀ = X (no positions), x₁ = X + Y of layer 0 */
	assert_true(holds("x₀[0,0] = 1", ""));
	assert_true(holds("x₁[0,0] within 1.6697 1.6698", ""));
	assert_true(holds("x_1[1,0] within 0.3302 0.3303", "")); /* the ASCII form */
	assert_false(holds("x₁[0,0] < 1.5", ""));
	/* layer 1's W^O zero: it writes nothing, so x₂ = x₁ */
	assert_true(holds("x₂[0,0] within 1.6697 1.6698", "@set layer 1 W^O = 0\n"));
	assert_true(holds("layer 1 Y[0,1] = 0", "@set layer 1 W^O = 0\n"));
	assert_true(holds("layer 0 Y[0,0] within 0.6697 0.6698", "@set layer 1 W^O = 0\n"));
	(void)p_hand;
}

/* Layer 1's numbers, from the core's stack, are what "layer 1 ..." reads;
 * its S differs from layer 0's (it reads x₁, with W's of its own). */
static void test_layer_goals_read_that_layers_numbers(void **state)
{
	(void)state;
	struct stack_bench b;
	sb_open(&b, BENCH "@step s\n@goal layer 1 S₀[0,1] > 0\n@hint h\n@solution W^Q[0,0] = 1\n", 0);
	double s1 = b.s.layer[1].scores[1], s0 = b.s.layer[0].scores[1];
	assert_true(fabs(s1 - s0) > 1e-3);
	assert_int_equal(sb_eval(&b) != 0, s1 > 0);
	assert_non_null(strstr(b.run.status, "layer 1 S\u2080[0,1] = "));
	sb_close(&b);
	char goal[96];
	snprintf(goal, sizeof goal, "layer 1 S₀[0,1] within %.9g %.9g", s1 - 1e-6, s1 + 1e-6);
	assert_true(holds(goal, ""));
	snprintf(goal, sizeof goal, "S₀[0,1] within %.9g %.9g", s1 - 1e-6, s1 + 1e-6);
	assert_false(holds(goal, "")); /* no prefix: layer 0 */
	snprintf(goal, sizeof goal, "max layer 1 S₀[0,*] >= %.9g", s1 - 1e-6);
	assert_true(holds(goal, ""));
}

static void test_a_layer_past_the_stack_is_refused_or_false(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@goal layer 4 S₀[0,0] > 0\n",
	                      "t.lesson:6: @goal: bad layer in 'layer 4 S\u2080[0,0] > 0': write 'layer L' then "
	                      "the cells, L in 0..3 (layer 1 S\u2080[2,3])");
	test_parse_fails_with(HEAD "@step a\n@goal layer 1 x₁[0,0] > 0\n",
	                      "t.lesson:6: @goal: x\u2081 names its layer itself: drop 'layer 1'");
	test_parse_fails_with(HEAD "@step a\n@highlight layer 1 S₀[0,0]\n",
	                      "t.lesson:5: step 'a': @highlight layer 1 does not exist: there is 1 layer (0..0)");
	test_parse_fails_with(HEAD "@step a\n@focus layer 2 Scores\n",
	                      "t.lesson:5: step 'a': @focus layer 2: there is 1 layer");
	/* a goal on a layer the learner removed is false, and says why */
	struct stack_bench b;
	sb_open(&b, BENCH "@step s\n@goal layer 1 S₀[0,1] > -100\n@hint h\n@solution W^Q[0,0] = 1\n", 0);
	assert_true(sb_eval(&b));
	b.c.layers = 1;
	sb_forward(&b);
	assert_false(sb_eval(&b));
	assert_non_null(strstr(b.run.status, "layer 1 does not exist"));
	sb_close(&b);
}

static void test_config_takes_positions_and_layers(void **state)
{
	(void)state;
	struct stack_bench b;
	sb_open(&b, HEAD "@config tokens=3 d_model=4 heads=2 pos=rope pos_offset=7 layers=3\n@step s\n"
	        "@goal pos = sinusoidal\n@goal pos_offset = 0\n@hint h\n@solution pos = sinusoidal\n"
	        "@solution pos_offset = 0\n", 0);
	assert_int_equal(b.c.pos, MHA_POS_ROPE);
	assert_int_equal(b.c.pos_offset, 7);
	assert_int_equal(b.c.layers, 3);
	assert_false(sb_eval(&b));
	assert_non_null(strstr(b.run.status, "pos is rope, want sinusoidal"));
	char msg[256];
	assert_true(lesson_run_solve(&b.run, &b.c, &b.w, msg, sizeof msg) >= 0);
	sb_forward(&b);
	assert_true(sb_eval(&b));
	sb_close(&b);
	test_parse_fails_with(HEAD "@config pos=spiral\n@step a\n",
	                      "t.lesson:5: @config: pos needs a whole number >= 0 or none, learned, sinusoidal, rope");
}

/* unchanged compares every layer with the step's start: an edit in
 * layer 1 leaves layer 0 alone, one in layer 0 moves layer 1. */
static void test_unchanged_reads_any_layer(void **state)
{
	(void)state;
	struct stack_bench b;
	sb_open(&b, BENCH "@step s\n@goal unchanged Y 0\n@goal unchanged layer 1 S 0.0001\n"
	        "@goal changed layer 1 S₀[1,*] 0.0001\n@hint h\n"
	        "@solution W^Q[0,0] = 1\n", 0);
	assert_false(sb_eval(&b));
	assert_int_equal(b.run.conds_met, 2); /* nothing has changed yet */
	b.w.upper[0].wq[0] += 1.0f; /* layer 1's W^Q */
	sb_forward(&b);
	assert_false(sb_eval(&b));
	assert_int_equal(b.run.conds_met, 2); /* layer 0's Y holds; layer 1's S moved */
	assert_non_null(strstr(b.run.status, "layer 1 S moved by at most"));
	b.w.upper[0].wq[0] -= 1.0f;
	b.w.wq[1] += 0.5f; /* layer 0's: Y of layer 0 moves, and with it layer 1's scores */
	sb_forward(&b);
	char why[200];
	assert_false(lesson_cond_eval(&b.run.lesson->steps[0].goals[0], &b.run, &b.c, &b.w, b.s.layer, why,
	                              sizeof why));
	assert_false(lesson_cond_eval(&b.run.lesson->steps[0].goals[1], &b.run, &b.c, &b.w, b.s.layer, why,
	                              sizeof why));
	/* changed: the same measure, the other way */
	assert_true(lesson_cond_eval(&b.run.lesson->steps[0].goals[2], &b.run, &b.c, &b.w, b.s.layer, why,
	                             sizeof why));
	b.w.wq[1] -= 0.5f;
	sb_forward(&b);
	assert_false(lesson_cond_eval(&b.run.lesson->steps[0].goals[2], &b.run, &b.c, &b.w, b.s.layer, why,
	                              sizeof why));
	assert_non_null(strstr(why, "want more than 0.0001"));
	sb_close(&b);
}

static void test_edits_reach_the_layer_named(void **state)
{
	(void)state;
	struct stack_bench b;
	sb_open(&b, BENCH "@step s\n@set layer 1 W^V[1,0] = 3\n@goal Y[0,0] > 0\n@hint h\n"
	        "@solution layer 1 W^Q *= 2\n", 0);
	assert_true(b.w.upper[0].wv[2] == 3.0f);
	assert_true(b.w.wv[2] == 0.0f); /* layer 0's stays the identity */
	float before = b.w.upper[0].wq[1];
	char msg[256];
	assert_true(lesson_run_solve(&b.run, &b.c, &b.w, msg, sizeof msg) >= 0);
	assert_true(b.w.upper[0].wq[1] == 2 * before);
	assert_true(b.w.wq[1] == 0.0f);
	char buf[64];
	lesson_ref_format(&b.l.steps[0].setup.ops[0].edit.ref, buf, sizeof buf);
	assert_string_equal(buf, "layer 1 W^V[1,0]");
	sb_close(&b);
}

static void test_highlights_and_hides_follow_the_layer(void **state)
{
	(void)state;
	struct stack_bench b;
	sb_open(&b, BENCH "@step s\n@question q?\n@answer 3\n@hide layer 1 S₀[0,*]\n@hide x₁[1,*]\n"
	        "@highlight layer 1 P₀[0,1]\n@hint h\n", 0);
	const struct lesson_run *run = &b.run;
	assert_true(lesson_run_hidden_at(run, 1, MHA_T_SCORES, 0, 0, 1));
	assert_false(lesson_run_hidden_at(run, 0, MHA_T_SCORES, 0, 0, 1));
	assert_false(lesson_run_hidden_at(run, 1, MHA_T_SCORES, 0, 1, 1));
	/* x₁ is layer 1's input and layer 0's output */
	assert_true(lesson_run_hidden_at(run, 1, MHA_T_XIN, 0, 1, 0));
	assert_true(lesson_run_hidden_at(run, 0, MHA_T_STREAM, 0, 1, 0));
	assert_false(lesson_run_hidden_at(run, 0, MHA_T_XIN, 0, 1, 0));
	assert_false(lesson_run_hidden_at(run, 1, MHA_T_STREAM, 0, 1, 0));
	assert_true(lesson_run_marked_at(run, 1, MHA_T_WEIGHTS, 0, 0, 1));
	assert_false(lesson_run_marked_at(run, 0, MHA_T_WEIGHTS, 0, 0, 1));
	assert_false(lesson_run_marked(run, MHA_T_WEIGHTS, 0, 0, 1)); /* layer 0's */
	sb_close(&b);
	sb_open(&b, BENCH "@step s\n@focus layer 1 Scores\n", 0);
	assert_int_equal(b.l.steps[0].focus_layer, 1);
	assert_int_equal(b.l.steps[0].focus, PIPELINE_SCORES);
	sb_close(&b);
}

/* @answer cell: the answer is the cell as the learner sees the numbers;
 * change them and the right answer changes with them. */
static void test_a_cell_question_is_answered_from_the_state(void **state)
{
	(void)state;
	struct stack_bench b;
	char msg[256];
	sb_open(&b, BENCH "@step s\n@question What is x₁[0,0]?\n@answer cell x₁[0,0] 0.001\n"
	        "@feedback cell layer 0 Y[0,0] that is Y alone: the stream adds x₀\n"
	        "@feedback 7 seven is no guess\n@hide x₁\n@hint h\n", 0);
	sb_eval(&b);
	double v;
	assert_true(lesson_run_expected(&b.run, &v));
	assert_true(fabs(v - (1 + p_hand)) < 1e-5);
	assert_int_equal(lesson_run_answer(&b.run, "0.670", msg, sizeof msg), 0); /* the slip: Y alone */
	assert_non_null(strstr(msg, "that is Y alone"));
	assert_int_equal(lesson_run_answer(&b.run, "7", msg, sizeof msg), 0);
	assert_non_null(strstr(msg, "seven is no guess"));
	/* X[0,0] becomes 3: x₁[0,0] is no longer 1.670 */
	b.w.x[0] = 3.0f;
	sb_forward(&b);
	sb_eval(&b);
	assert_true(lesson_run_expected(&b.run, &v));
	assert_true(fabs(v - 1.6698) > 0.5);
	assert_int_equal(lesson_run_answer(&b.run, "1.670", msg, sizeof msg), 0);
	char right[32];
	snprintf(right, sizeof right, "%.4f", v);
	assert_int_equal(lesson_run_answer(&b.run, right, msg, sizeof msg), 1);
	assert_true(b.run.unearned); /* three wrong before it */
	sb_close(&b);
	/* the solution answers with the live number */
	sb_open(&b, BENCH "@step s\n@question What is x₁[0,0]?\n@answer cell x₁[0,0]\n@hint h\n", 0);
	sb_eval(&b);
	assert_false(b.run.met);
	assert_true(lesson_run_solve(&b.run, &b.c, &b.w, msg, sizeof msg) >= 0);
	assert_true(sb_eval(&b));
	sb_close(&b);
	test_parse_fails_with(BENCH "@step s\n@question q?\n@answer cell x₁[0,*]\n@hint h\n",
	                      "t.lesson:13: @answer cell names one cell: give every index (x\u2081[2,0])");
	test_parse_fails_with(BENCH "@step s\n@question q?\n@answer cell x₃[0,0]\n@hint h\n",
	                      "t.lesson:13: @answer cell: x3 does not exist: with 2 layers the stream runs x0 .. x2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_stream_reads_x_plus_y_by_hand),
		cmocka_unit_test(test_layer_goals_read_that_layers_numbers),
		cmocka_unit_test(test_a_layer_past_the_stack_is_refused_or_false),
		cmocka_unit_test(test_config_takes_positions_and_layers),
		cmocka_unit_test(test_unchanged_reads_any_layer),
		cmocka_unit_test(test_edits_reach_the_layer_named),
		cmocka_unit_test(test_highlights_and_hides_follow_the_layer),
		cmocka_unit_test(test_a_cell_question_is_answered_from_the_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
