/*
 * test_goal.c - goals of every kind, true and false, on a case small enough
 * to work out by hand; applying edits and solutions; answers; what a
 * question hides until it is answered.
 *
 * The bench: tokens a, b; d_model 2; one head; X and every W the identity.
 * Then Q = K = V = I, S = I / sqrt(2), and row 0 of P is [p, 1 - p] with
 * p = e^(1/sqrt 2) / (e^(1/sqrt 2) + 1) = 0.6698; Y = P.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson_test.h"

#define BENCH                                                                        \
	"mha-tui-lesson 1\n@lesson 1\n@title t\n@objective o\n"                          \
	"@config tokens=2 d_model=2 heads=1\n@labels a b\n@fill X identity\n"            \
	"@fill W^Q identity\n@fill W^K identity\n@fill W^V identity\n@fill W^O identity\n"

/* Does the goal hold on the bench changed by `setup` (lines in the step)? */
static bool holds(const char *goal, const char *setup)
{
	char text[2048];
	snprintf(text, sizeof text, BENCH "@step s\n%s@goal %s\n@hint h\n@solution W^Q[0,0] = 1\n",
	         setup, goal);
	struct test_bench b;
	test_bench_open(&b, text, 0);
	bool met = lesson_run_eval(&b.run, &b.c, &b.w, &b.a) & LESSON_EVAL_MET;
	test_bench_close(&b);
	return met;
}

static void test_cell_goals_compare_one_cell(void **state)
{
	(void)state;
	assert_true(holds("P₀[0,0] > 0.6", ""));
	assert_false(holds("P₀[0,0] > 0.7", ""));
	assert_true(holds("P₀[0,0] within 0.66 0.68", ""));
	assert_false(holds("P₀[0,1] within 0.66 0.68", ""));
	assert_false(holds("S₀[0,0] < 0.5", "")); /* 1/sqrt(2) */
	assert_true(holds("S₀[0,0] < 0.5", "@config tokens=2 d_model=2 heads=1 scale=off\n"
	                  "@set W^Q[0,0] = 0.4\n"));
	assert_true(holds("Y[1,1] >= 0.66", ""));
	assert_true(holds("X[1,1] = 1", ""));
	assert_false(holds("X[1,1] != 1", ""));
}

static void test_argmax_goals_find_the_heaviest_column(void **state)
{
	(void)state;
	assert_true(holds("argmax P₀[0,*] = 0", ""));
	assert_false(holds("argmax P₀[0,*] = 1", ""));
	assert_true(holds("argmax P₀[0,*] != 1", ""));
	/* a bigger key for b makes row 0 look at b */
	assert_true(holds("argmax P₀[0,*] = 1", "@set W^K[1,0] = 3\n"));
}

static void test_reductions_cover_a_region(void **state)
{
	(void)state;
	assert_true(holds("sum P₀[1,*] = 1", ""));
	assert_false(holds("max P₀ < 0.6", ""));
	assert_true(holds("min P₀ > 0.3", ""));
	assert_true(holds("max W^Q[*,*] = 1", ""));
	assert_true(holds("sum W^Q = 2", ""));
}

static void test_counts_and_configuration_fields(void **state)
{
	(void)state;
	assert_true(holds("params = 16", "")); /* 4 matrices of 2 x 2 */
	assert_false(holds("params < 16", ""));
	assert_true(holds("kv_cache <= 4", "")); /* 2 * g * d_k = 2 * 1 * 2 */
	assert_true(holds("flops_output = 16", "")); /* 2 n (h dk) d = 2 * 2 * 2 * 2 */
	assert_true(holds("heads = 1", ""));
	assert_true(holds("scale = on", ""));
	assert_false(holds("scale = off", ""));
	assert_true(holds("causal = on", "@config tokens=2 d_model=2 heads=1 causal=on\n"));
	assert_true(holds("tokens within 1 4", ""));
	assert_true(holds("heads_off = 0", ""));
}

static void test_head_goals_see_heads_switched_off(void **state)
{
	(void)state;
	assert_false(holds("head 0 off", ""));
	assert_true(holds("head 0 on", ""));
	assert_true(holds("head 0 off", "@set head 0 off\n"));
	assert_true(holds("heads_off = 1", "@set head 0 off\n"));
}

/* The run keeps the start of the step; 'unchanged' compares with it. */
static void test_unchanged_compares_with_the_start_of_the_step(void **state)
{
	(void)state;
	struct test_bench b;
	test_bench_open(&b, BENCH "@step s\n@goal unchanged Y 0.001\n@hint h\n"
	                "@solution W^O[0,0] = 1\n", 0);
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), LESSON_EVAL_MET | LESSON_EVAL_JUST_MET);
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), LESSON_EVAL_MET); /* not "just" again */
	b.w.wo[0] = 2.0f;
	test_forward(&b.c, &b.w, &b.a);
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), 0);
	assert_non_null(strstr(b.run.status, "Not yet: Y moved by at most"));
	test_bench_close(&b);
}

/* An input too: "leave W^O alone" is 'unchanged W^O 0', whatever cell is
 * edited, and undoing the edit meets it again. */
static void test_unchanged_holds_an_input_to_its_start(void **state)
{
	(void)state;
	struct test_bench b;
	test_bench_open(&b, BENCH "@step s\n@goal unchanged W^O 0\n@goal W^Q[0,0] = 1\n@hint h\n"
	                "@solution W^Q[0,0] = 1\n", 0);
	b.w.wq[0] = 1.0f;
	test_forward(&b.c, &b.w, &b.a);
	assert_true(lesson_run_eval(&b.run, &b.c, &b.w, &b.a) & LESSON_EVAL_MET);
	float keep = b.w.wo[1]; /* W^O is 2 x 2 here */
	b.w.wo[1] = keep + 0.5f;
	test_forward(&b.c, &b.w, &b.a);
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), 0);
	assert_non_null(strstr(b.run.status, "W^O moved by at most 0.5"));
	b.w.wo[1] = keep;
	test_forward(&b.c, &b.w, &b.a);
	assert_true(lesson_run_eval(&b.run, &b.c, &b.w, &b.a) & LESSON_EVAL_MET);
	test_bench_close(&b);
}

/* A question waiting names only itself on the status, even listed after
 * an edit goal whose status would carry a hidden cell's live value. */
static void test_a_waiting_question_hides_the_other_goals_values(void **state)
{
	(void)state;
	struct test_bench b;
	test_bench_open(&b, BENCH "@step s\n@question How much?\n@answer 0.75 0.01\n"
	                "@goal Y[0,0] > 5\n@goal answer\n@hide Y\n@hint h\n@solution W^V *= 10\n", 0);
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), 0);
	assert_string_equal(b.run.status, "Not yet: answer the question");
	assert_null(strstr(b.run.status, "Y[0,0]"));
	test_bench_close(&b);
}

static void test_answers_to_choice_and_number_questions(void **state)
{
	(void)state;
	struct test_bench b;
	char msg[256];
	test_bench_open(&b, BENCH "@step pick\n@question Which?\n@choice a one\n@choice b two\n"
	                "@answer b\n@hint h\n@step count\n@question How many?\n@answer 1048576\n"
	                "@hint h\n", 0);
	struct lesson_run *run = &b.run;
	assert_int_equal(b.l.steps[0].ngoals, 1); /* the question is the goal */
	assert_int_equal(lesson_run_eval(run, &b.c, &b.w, &b.a), 0);
	assert_string_equal(run->status, "Not yet: answer the question");
	assert_int_equal(lesson_run_answer(run, "z", msg, sizeof msg), -1);
	assert_string_equal(msg, "type one of: a b");
	assert_false(run->answered);
	assert_int_equal(lesson_run_answer(run, "a", msg, sizeof msg), 0);
	assert_int_equal(lesson_run_eval(run, &b.c, &b.w, &b.a), 0);
	assert_string_equal(run->status, "Not yet: that answer is not right");
	assert_int_equal(lesson_run_answer(run, " B ", msg, sizeof msg), 1);
	assert_true(lesson_run_eval(run, &b.c, &b.w, &b.a) & LESSON_EVAL_MET);

	test_bench_step(&b, 1);
	assert_int_equal(lesson_run_answer(run, "lots", msg, sizeof msg), -1);
	/* marks only between groups of three: a comma for a decimal point, or
	 * a blank inside the decimals, is refused and costs no try */
	assert_int_equal(lesson_run_answer(run, "1,048,575", msg, sizeof msg), 0);
	int wrong = run->wrong;
	assert_int_equal(lesson_run_answer(run, "1048,576", msg, sizeof msg), -1);
	assert_int_equal(lesson_run_answer(run, "0,22", msg, sizeof msg), -1);
	assert_string_equal(msg, "write decimals with a point (0.25); a comma only groups thousands (1,024)");
	assert_int_equal(lesson_run_answer(run, "1,04,8576", msg, sizeof msg), -1);
	assert_int_equal(lesson_run_answer(run, "0.2 2", msg, sizeof msg), -1);
	assert_int_equal(lesson_run_answer(run, "1,048,576.5,0", msg, sizeof msg), -1);
	assert_int_equal(run->wrong, wrong);
	assert_int_equal(lesson_run_answer(run, "1 048 576", msg, sizeof msg), 1);
	test_bench_close(&b);
}

/* A number right to fewer decimals than the question's answer is written
 * with is told so, not "not quite"; and it is still not right. */
static void test_an_answer_right_to_fewer_decimals_is_told_so(void **state)
{
	(void)state;
	struct test_bench b;
	char msg[256];
	test_bench_open(&b, BENCH "@step even\n@question Weight? (three decimals)\n@answer 0.167 0.002\n"
	                "@feedback 0.5 two keys, not six\n@hint h\n", 0);
	struct lesson_run *run = &b.run;
	assert_int_equal(lesson_run_answer(run, "0.17", msg, sizeof msg), 0);
	assert_string_equal(msg, "almost: right to 2 decimals; the question asks 3 (2 tries left)");
	assert_string_equal(lesson_run_feedback(run), "right to 2 decimals; the question asks 3");
	assert_int_equal(lesson_run_answer(run, "0.2", msg, sizeof msg), 0);
	assert_string_equal(msg, "almost: right to 1 decimal; the question asks 3 (1 try left)");
	assert_int_equal(lesson_run_answer(run, "0.18", msg, sizeof msg), 0); /* not 0.167 rounded */
	assert_string_equal(msg, "not quite (no tries left: answer right to go on; it counts as shown)");
	assert_null(lesson_run_feedback(run));
	assert_int_equal(lesson_run_answer(run, "0.5", msg, sizeof msg), 0); /* its own @feedback first */
	assert_string_equal(msg, "not quite: two keys, not six (no tries left: answer right to go on; it counts as shown)");
	assert_int_equal(lesson_run_answer(run, "0", msg, sizeof msg), 0);
	assert_int_equal(lesson_run_answer(run, "0.1667", msg, sizeof msg), 1);
	assert_string_equal(msg, "right (counts as shown, not done)"); /* three wrong, then right */
	assert_null(lesson_run_feedback(run));
	test_bench_close(&b);
}

/* A wrong answer with a @feedback line gets its reason, in the message
 * and from lesson_run_feedback (the pane); a right one or one without a
 * line gets none. Numbers match within the question's tolerance. */
static void test_a_wrong_answer_gets_its_feedback(void **state)
{
	(void)state;
	struct test_bench b;
	char msg[256];
	test_bench_open(&b, BENCH "@step pick\n@question Which?\n@choice a one\n@choice b two\n"
	                "@choice c three\n@answer b\n@feedback a one is too few\n@feedback c three is too many\n"
	                "@hint h\n@step spread\n@question Variance?\n@answer 256 0.5\n"
	                "@feedback 16 that is the standard deviation\n@hint h\n", 0);
	struct lesson_run *run = &b.run;
	assert_null(lesson_run_feedback(run)); /* not answered yet */
	assert_int_equal(lesson_run_answer(run, "C", msg, sizeof msg), 0);
	/* a choice has one try: a wrong one, and the right one after it is shown, not earned */
	assert_string_equal(msg, "not quite: three is too many (no tries left: answer right to go on; "
	                         "it counts as shown)");
	assert_string_equal(lesson_run_feedback(run), "three is too many");
	assert_true(run->unearned);
	assert_int_equal(lesson_run_answer(run, "b", msg, sizeof msg), 1);
	assert_string_equal(msg, "right (counts as shown, not done)");
	assert_null(lesson_run_feedback(run));
	test_bench_step(&b, 1);
	assert_int_equal(lesson_run_answer(run, "256", msg, sizeof msg), 1); /* right first: earned */
	assert_string_equal(msg, "right");
	assert_false(run->unearned);
	test_bench_step(&b, 1);
	assert_int_equal(lesson_run_answer(run, "16.3", msg, sizeof msg), 0);
	assert_string_equal(msg, "not quite: that is the standard deviation (2 tries left)");
	assert_int_equal(lesson_run_answer(run, "200", msg, sizeof msg), 0);
	assert_string_equal(msg, "not quite: try again (1 try left)"); /* the screen never shows the answer */
	assert_false(run->unearned);
	assert_null(lesson_run_feedback(run));
	test_bench_close(&b);
}

static void test_a_question_hides_its_stages_until_answered(void **state)
{
	(void)state;
	struct test_bench b;
	char msg[128];
	test_bench_open(&b, BENCH "@step p\n@question Which?\n@choice a one\n@choice b two\n"
	                "@answer b\n@hide Softmax\n@hide counts\n@hide S₀[1,0]\n"
	                "@highlight head 0\n@highlight P₀[1,*]\n@hint h\n", 0);
	const struct lesson_run *run = &b.run;
	assert_true(lesson_run_hidden(run, MHA_T_WEIGHTS, 0, 1, 1));
	assert_true(lesson_run_hidden(run, MHA_T_Y, 0, 0, 0));  /* later stages too */
	assert_false(lesson_run_hidden(run, MHA_T_Q, 0, 0, 0)); /* earlier ones show */
	assert_true(lesson_run_hidden(run, MHA_T_SCORES, 0, 1, 0));
	assert_false(lesson_run_hidden(run, MHA_T_SCORES, 0, 0, 0));
	assert_true(lesson_run_stage_hidden(run, PIPELINE_SOFTMAX));
	assert_true(lesson_run_stage_hidden(run, PIPELINE_OUTPUT));
	assert_false(lesson_run_stage_hidden(run, PIPELINE_SCORES));
	assert_true(lesson_run_counts_hidden(run));
	assert_true(lesson_run_head_marked(run, 0));
	assert_true(lesson_run_marked(run, MHA_T_WEIGHTS, 0, 1, 0));
	assert_false(lesson_run_marked(run, MHA_T_WEIGHTS, 0, 0, 0));
	assert_int_equal(lesson_run_answer(&b.run, "a", msg, sizeof msg), 0); /* wrong: reveals nothing */
	assert_true(lesson_run_hidden(run, MHA_T_WEIGHTS, 0, 1, 1));
	assert_true(lesson_run_hidden(run, MHA_T_SCORES, 0, 1, 0));
	assert_true(lesson_run_stage_hidden(run, PIPELINE_SOFTMAX));
	assert_true(lesson_run_counts_hidden(run));
	assert_false(lesson_run_revealed(run));
	assert_int_equal(lesson_run_answer(&b.run, "b", msg, sizeof msg), 1); /* right: all shows */
	assert_false(lesson_run_hidden(run, MHA_T_WEIGHTS, 0, 1, 1));
	assert_false(lesson_run_hidden(run, MHA_T_SCORES, 0, 1, 0));
	assert_false(lesson_run_stage_hidden(run, PIPELINE_SOFTMAX));
	assert_false(lesson_run_counts_hidden(run));
	test_bench_close(&b);
}

static const struct lesson_edit *edits_of(const struct lesson *l)
{
	return l->steps[0].solution;
}

static void test_edits_set_scale_and_switch_heads(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(BENCH "@step s\n@goal heads = 1\n@hint h\n"
	                            "@solution W^Q[0,1] = 0.5\n@solution W^K[*,*] *= 3\n"
	                            "@solution head 0 off\n", &l, &errs), 0);
	struct mha_config c;
	struct mha_weights w;
	char msg[256];
	assert_int_equal(lesson_step_setup(&l, 0, &c, &w, msg, sizeof msg), 0);
	bool shape = true;
	assert_int_equal(lesson_edits_apply(edits_of(&l), 3, &c, &w, &shape, msg, sizeof msg), 0);
	assert_false(shape);
	const float wq[4] = { 1, 0.5f, 0, 1 }, wk[4] = { 3, 0, 0, 3 };
	assert_memory_equal(w.wq, wq, sizeof wq);
	assert_memory_equal(w.wk, wk, sizeof wk);
	assert_true(c.head_off[0]);
	char text[64];
	lesson_edit_describe(&edits_of(&l)[1], text, sizeof text);
	assert_string_equal(text, "W^K *= 3");
	lesson_edit_describe(&edits_of(&l)[0], text, sizeof text);
	assert_string_equal(text, "W^Q[0,1] = 0.5");
	mha_weights_free(&w);
	lesson_free(&l);
}

static void test_configuration_edits_reshape_and_keep_values(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(BENCH "@step s\n@goal heads = 2\n@hint h\n@solution heads = 2\n"
	                            "@solution d_k = 1\n@solution kv_heads = 2\n@solution W^Q[1,1] = 7\n",
	                            &l, &errs), 0);
	struct mha_config c;
	struct mha_weights w;
	char msg[256];
	assert_int_equal(lesson_step_setup(&l, 0, &c, &w, msg, sizeof msg), 0);
	bool shape = false;
	assert_int_equal(lesson_edits_apply(edits_of(&l), 4, &c, &w, &shape, msg, sizeof msg), 0);
	assert_true(shape);
	assert_int_equal(c.h, 2);
	assert_int_equal(c.g, 2);
	assert_int_equal(c.dk, 1);
	/* W^Q is now 2 x 2 again, head blocks of width 1: head 0 keeps its
	 * first column (1, 0); the cell edit lands after the reshape */
	assert_true(w.wq[0] == 1.0f && w.wq[2] == 0.0f);
	assert_true(w.wq[3] == 7.0f);
	assert_string_equal(w.labels[1], "b");
	mha_weights_free(&w);
	lesson_free(&l);
}

static void test_a_bad_edit_leaves_the_bench_unchanged(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(BENCH "@step s\n@goal heads = 4\n@hint h\n@solution heads = 4\n"
	                            "@solution kv_heads = 3\n@step t\n@goal heads = 4\n@hint h\n"
	                            "@solution W^Q[0,0] = 9\n@solution head 3 off\n", &l, &errs), 0);
	struct mha_config c, before;
	struct mha_weights w;
	char msg[256];
	assert_int_equal(lesson_step_setup(&l, 0, &c, &w, msg, sizeof msg), 0);
	before = c;
	assert_int_equal(lesson_edits_apply(l.steps[0].solution, 2, &c, &w, NULL, msg, sizeof msg), -1);
	assert_string_equal(msg, "kv-heads 3 does not divide heads 4: choose a divisor of 4 "
	                         "(1 = MQA, 4 = MHA)");
	assert_memory_equal(&c, &before, sizeof c);
	assert_int_equal(lesson_edits_apply(l.steps[1].solution, 2, &c, &w, NULL, msg, sizeof msg), -1);
	assert_string_equal(msg, "line 21: head 3 does not exist: there are 1 heads (0..0)");
	assert_true(w.wq[0] == 1.0f); /* the first edit of the failed pair was not kept */
	mha_weights_free(&w);
	lesson_free(&l);
}

static void test_solving_meets_the_goal_and_hints_come_one_at_a_time(void **state)
{
	(void)state;
	struct test_bench b;
	char msg[256];
	test_bench_open(&b, BENCH "@step s\n@goal argmax P₀[0,*] = 1\n@hint first\n@hint second\n"
	                "@solution W^K[1,0] = 3\n", 0);
	assert_string_equal(lesson_run_next_hint(&b.run), "first");
	assert_string_equal(lesson_run_next_hint(&b.run), "second");
	assert_null(lesson_run_next_hint(&b.run));
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), 0);
	assert_string_equal(b.run.status, "Not yet: argmax P₀[0,*] = 0 (a), want 1 (b)");
	assert_int_equal(lesson_run_solve(&b.run, &b.c, &b.w, msg, sizeof msg), 0);
	test_forward(&b.c, &b.w, &b.a);
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), LESSON_EVAL_MET | LESSON_EVAL_JUST_MET);
	assert_string_equal(b.run.status, "Goal met: argmax P₀[0,*] = 1 (b)");
	assert_true(b.run.solution_shown);
	test_bench_close(&b);
}

static void test_a_step_without_set_up_keeps_the_bench(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(BENCH "@step first\nOne.\n@step second\nTwo.\n@focus Scores\n",
	                            &l, &errs), 0);
	assert_false(l.steps[1].resets);
	assert_int_equal(l.steps[1].focus, PIPELINE_SCORES);
	struct lesson_run run;
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	char msg[128];
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	float *mem = w.x;
	assert_int_equal(lesson_run_start(&run, &l, 1, false, &c, &w, msg, sizeof msg), 0);
	assert_ptr_equal(w.x, mem); /* untouched */
	assert_int_equal(lesson_run_start(&run, &l, 1, true, &c, &w, msg, sizeof msg), 1);
	assert_int_equal(c.n, 2);
	mha_weights_free(&w);
	lesson_run_end(&run);
	lesson_free(&l);
}

/* A repeated word in the goal line carries its index, as the heatmaps
 * write it: "argmax = 0 (the), want 2 (the)" would not say which. */
static void test_the_goal_line_tells_repeated_words_apart(void **state)
{
	(void)state;
	struct test_bench b;
	test_bench_open(&b, "mha-tui-lesson 1\n@lesson 1\n@title t\n@objective o\n"
	                "@config tokens=3 d_model=3 heads=1\n@labels the cat the\n@fill X identity\n"
	                "@fill W^Q identity\n@fill W^K identity\n@fill W^V identity\n@fill W^O identity\n"
	                "@step s\n@goal argmax P\u2080[0,*] = 2\n@hint h\n@solution W^K[2,0] = 3\n", 0);
	assert_int_equal(lesson_run_eval(&b.run, &b.c, &b.w, &b.a), 0);
	assert_string_equal(b.run.status, "Not yet: argmax P\u2080[0,*] = 0 (the\u2080), want 2 (the\u2082)");
	test_bench_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cell_goals_compare_one_cell),
		cmocka_unit_test(test_argmax_goals_find_the_heaviest_column),
		cmocka_unit_test(test_reductions_cover_a_region),
		cmocka_unit_test(test_counts_and_configuration_fields),
		cmocka_unit_test(test_head_goals_see_heads_switched_off),
		cmocka_unit_test(test_unchanged_compares_with_the_start_of_the_step),
		cmocka_unit_test(test_unchanged_holds_an_input_to_its_start),
		cmocka_unit_test(test_a_waiting_question_hides_the_other_goals_values),
		cmocka_unit_test(test_answers_to_choice_and_number_questions),
		cmocka_unit_test(test_a_question_hides_its_stages_until_answered),
		cmocka_unit_test(test_a_wrong_answer_gets_its_feedback),
		cmocka_unit_test(test_an_answer_right_to_fewer_decimals_is_told_so),
		cmocka_unit_test(test_edits_set_scale_and_switch_heads),
		cmocka_unit_test(test_configuration_edits_reshape_and_keep_values),
		cmocka_unit_test(test_a_bad_edit_leaves_the_bench_unchanged),
		cmocka_unit_test(test_solving_meets_the_goal_and_hints_come_one_at_a_time),
		cmocka_unit_test(test_the_goal_line_tells_repeated_words_apart),
		cmocka_unit_test(test_a_step_without_set_up_keeps_the_bench),
	};
	return cmocka_run_group_tests_name("lesson goals", tests, NULL, NULL);
}
