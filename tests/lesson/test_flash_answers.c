/*
 * test_flash_answers.c - lessons on the FlashAttention view (src/lesson/flash_step.c):
 * @flash and the live answer parse into the step, each authoring mistake
 * is reported, the right answer and every slip's answer come out of the
 * recording's numbers as worked out by hand, and a run answers a live
 * question only once the TUI has handed it those numbers. The numbers
 * here are those of lesson 11's row (1, 3, 2, 5) in key tiles of one, at
 * the step that brings the 5: by hand,
 *     before: m0 = 3, l0 = e^-2 + 1 + e^-1 = 1.50321, o0[1] = e^0 = 1
 *     after:  m1 = 5, alpha = e^(3 - 5) = 0.135335,
 *             l1 = alpha l0 + e^0 = 1.203436, o1[1] = alpha . 1 = 0.135335
 *     scores met: 1 + 3 + 2 + 5 = 11.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "checker.h"
#include "flash_step.h"
#include "lesson.h"
#include "lesson_test.h"

#define HEAD "mha-tui-lesson 1\n@lesson 1\n@title Tiles\n@objective Predict a tile.\n" \
	"@config tokens=4 d_model=4 heads=1 scale=off\n"

/* Line 6: step; 7: prose; 8: question; 9: answer; 10-11: feedback; 12-14: hints; 15: flash. */
static const char live[] =
	HEAD
	"@step growth A tile that raises m\n"
	"Step 4 brings the largest score.\n"
	"@question What is query 0's l after step 4?\n"
	"@answer flash l[0] 0.002\n"
	"@feedback no-rescale the old l must be rescaled first\n"
	"@feedback tile-only that is the new term alone\n"
	"@hint h1\n@hint h2\n@hint h3\n"
	"@flash 2x1 4 predict\n"
	"@hide Softmax\n";

static const struct lesson_flash_live by_hand = {
	.ok = true, .m0 = 3, .l0 = 1.50321, .o0 = 1, .m1 = 5, .l1 = 1.203436, .o1 = 0.135335,
	.alpha = 0.135335, .seen_sum = 11,
};

static void test_a_live_question_parses_into_the_step(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(live, &l, &errs), 0);
	const struct lesson_step *s = &l.steps[0];
	assert_non_null(s->flash);
	assert_int_equal(s->flash->br, 2);
	assert_int_equal(s->flash->bc, 1);
	assert_int_equal(s->flash->step, 4);
	assert_true(s->flash->predict);
	assert_int_equal(s->flash->line, 15);
	assert_non_null(s->question->flash);
	assert_int_equal(s->question->flash->qty, LESSON_FLASH_L);
	assert_int_equal(s->question->flash->row, 0);
	assert_true(fabs(s->question->tol - 0.002) < 1e-12);
	assert_int_equal(s->question->feedback[0].slip, LESSON_SLIP_NO_RESCALE);
	assert_int_equal(s->question->feedback[1].slip, LESSON_SLIP_TILE_ONLY);
	assert_true(lesson_step_is_exercise(s)); /* the answer is its goal */
	lesson_free(&l);
	lesson_errors_free(&errs);
}

static void test_each_authoring_mistake_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a A\n@flash 2 3\n",
	                      "t.lesson:7: @flash takes the tile sizes, the step and optionally 'predict': "
	                      "@flash 2x2 3 predict");
	test_parse_fails_with(HEAD "@step a A\n@flash 2x2 3 guess\n",
	                      "t.lesson:7: @flash takes the tile sizes, the step and optionally 'predict': "
	                      "@flash 2x2 3 predict");
	test_parse_fails_with(HEAD "@step a A\n@question q?\n@answer flash l[0]\n@hint h\n@flash 2x2 1 predict\n",
	                      "t.lesson:10: @flash ... predict: the step predicted comes after one the view "
	                      "shows, so it is 2 or more");
	test_parse_fails_with(HEAD "@step a A\n@flash 2x2 2 predict\n",
	                      "t.lesson:7: @flash ... predict needs a question answered from the view "
	                      "(@answer flash ...): the hidden step shows once it is answered");
	test_parse_fails_with(HEAD "@step a A\n@question q?\n@answer flash l[0]\n@hint h\n",
	                      "t.lesson:7: @answer flash needs '@flash ... predict' in the step: the view "
	                      "hides the step the question asks about");
	test_parse_fails_with(HEAD "@step a A\n@question q?\n@answer flash x[0]\n@hint h\n@flash 2x2 2 predict\n",
	                      "t.lesson:7: @answer flash names m[ROW], l[ROW], rescale[ROW] or o[ROW,COL] "
	                      "and an optional tolerance: @answer flash l[0] 0.002");
	test_parse_fails_with(HEAD "@step a A\n@question q?\n@answer flash o[0]\n@hint h\n@flash 2x2 2 predict\n",
	                      "t.lesson:7: @answer flash names m[ROW], l[ROW], rescale[ROW] or o[ROW,COL] "
	                      "and an optional tolerance: @answer flash l[0] 0.002");
	test_parse_fails_with(HEAD "@step a A\n@question q?\n@answer flash m[4]\n@hint h\n@flash 2x2 2 predict\n",
	                      "t.lesson:7: @answer flash: query row 4 does not exist at 4 tokens, d_k 4");
	test_parse_fails_with(HEAD "@step a A\n@question q?\n@answer flash m[0]\n@feedback inverse no\n"
	                      "@hint h\n@flash 2x2 2 predict\n",
	                      "t.lesson:9: @feedback of a flash question names a slip: here sum, kept");
}

/* Every slip's number, and the right one, from the numbers worked out by hand. */
static void test_the_answer_and_each_slip_come_from_the_recording(void **state)
{
	(void)state;
	struct lesson_flash_ask m = { LESSON_FLASH_M, 0, 0 }, l = { LESSON_FLASH_L, 0, 0 };
	struct lesson_flash_ask a = { LESSON_FLASH_RESCALE, 0, 0 }, o = { LESSON_FLASH_O, 0, 1 };
	const struct lesson_flash_live *v = &by_hand;
	assert_true(fabs(lesson_flash_value(&m, v, LESSON_SLIP_NONE) - 5) < 1e-9);
	assert_true(fabs(lesson_flash_value(&m, v, LESSON_SLIP_SUM) - 11) < 1e-9);
	assert_true(fabs(lesson_flash_value(&m, v, LESSON_SLIP_KEPT) - 3) < 1e-9);
	assert_true(fabs(lesson_flash_value(&a, v, LESSON_SLIP_NONE) - 0.135335) < 1e-6);
	assert_true(fabs(lesson_flash_value(&a, v, LESSON_SLIP_INVERSE) - 7.389056) < 1e-4); /* e^2 */
	assert_true(fabs(lesson_flash_value(&a, v, LESSON_SLIP_NO_EXP) - -2) < 1e-9);
	assert_true(fabs(lesson_flash_value(&a, v, LESSON_SLIP_KEPT) - 1) < 1e-9);
	assert_true(fabs(lesson_flash_value(&l, v, LESSON_SLIP_NONE) - 1.203436) < 1e-6);
	/* no rescale: l0 + e^0 = 2.50321; the tile alone: e^0 = 1 */
	assert_true(fabs(lesson_flash_value(&l, v, LESSON_SLIP_NO_RESCALE) - 2.50321) < 1e-5);
	assert_true(fabs(lesson_flash_value(&l, v, LESSON_SLIP_TILE_ONLY) - 1) < 1e-5);
	/* the old l, nothing added: 1.50321 */
	assert_true(fabs(lesson_flash_value(&l, v, LESSON_SLIP_OLD) - 1.50321) < 1e-5);
	assert_true(lesson_flash_slip_fits(LESSON_SLIP_OLD, LESSON_FLASH_L));
	assert_false(lesson_flash_slip_fits(LESSON_SLIP_OLD, LESSON_FLASH_M));
	/* o[1]: key 1's term, rescaled 0.135; not rescaled 1; the tile adds nothing
	 * to column 1; divided by l: 0.135335 / 1.203436 = 0.112458 */
	assert_true(fabs(lesson_flash_value(&o, v, LESSON_SLIP_NONE) - 0.135335) < 1e-6);
	assert_true(fabs(lesson_flash_value(&o, v, LESSON_SLIP_NO_RESCALE) - 1) < 1e-6);
	assert_true(fabs(lesson_flash_value(&o, v, LESSON_SLIP_TILE_ONLY) - 0) < 1e-6);
	assert_true(fabs(lesson_flash_value(&o, v, LESSON_SLIP_DIVIDED) - 0.112458) < 1e-6);
	assert_true(lesson_flash_slip_fits(LESSON_SLIP_SUM, LESSON_FLASH_M));
	assert_false(lesson_flash_slip_fits(LESSON_SLIP_SUM, LESSON_FLASH_L));
	assert_int_equal(lesson_flash_slip_by_name("no-rescale"), LESSON_SLIP_NO_RESCALE);
	assert_string_equal(lesson_flash_slip_name(LESSON_SLIP_DIVIDED), "divided");
	assert_int_equal(lesson_flash_slip_by_name("rescale"), LESSON_SLIP_NONE);
}

/* Before the TUI hands the run its numbers nothing is judged; then the
 * right number passes, and a slip gets its own feedback. */
static void test_a_live_question_is_answered_from_the_numbers_handed_in(void **state)
{
	(void)state;
	struct test_bench b;
	char msg[LESSON_STATUS_MAX];
	double v;
	test_bench_open(&b, live, 0);
	assert_false(lesson_run_expected(&b.run, &v));
	assert_int_equal(lesson_run_answer(&b.run, "1.203", msg, sizeof msg), -1);
	assert_false(b.run.answered);
	assert_int_equal(lesson_run_solve(&b.run, &b.c, &b.w, msg, sizeof msg), -1);
	b.run.live = by_hand;
	assert_true(lesson_run_expected(&b.run, &v));
	assert_true(fabs(v - 1.203436) < 1e-6);
	assert_int_equal(lesson_run_answer(&b.run, "2.503", msg, sizeof msg), 0);
	assert_string_equal(msg, "not quite: the old l must be rescaled first (2 tries left)");
	assert_int_equal(lesson_run_answer(&b.run, "1", msg, sizeof msg), 0);
	assert_string_equal(msg, "not quite: that is the new term alone (1 try left)");
	assert_int_equal(lesson_run_answer(&b.run, "1.4", msg, sizeof msg), 0);
	assert_string_equal(msg, "not quite (no tries left: answer right to go on; it counts as shown)");
	assert_int_equal(lesson_run_answer(&b.run, "1.2", msg, sizeof msg), 0); /* tol 0.0005: three */
	assert_string_equal(msg, "almost: right to 1 decimal; the question asks 3 (no tries left: answer right to go on; it counts as shown)");
	assert_int_equal(lesson_run_answer(&b.run, "1.203", msg, sizeof msg), 1);
	test_bench_close(&b);
}

/* --check-lessons takes a live question without a recording: no error. */
static void test_the_checker_accepts_a_live_question(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(live, &l, &errs), 0);
	struct lesson_set set = { .lessons = &l, .count = 1 };
	struct lesson_check_stats st;
	assert_int_equal(lesson_check_set(&set, &errs, &st), 0);
	for (int i = 0; i < errs.count; i++)
		fprintf(stderr, "%s\n", errs.msg[i]);
	assert_int_equal(errs.count, 0);
	lesson_free(&l);
	lesson_errors_free(&errs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_live_question_parses_into_the_step),
		cmocka_unit_test(test_each_authoring_mistake_is_reported),
		cmocka_unit_test(test_the_answer_and_each_slip_come_from_the_recording),
		cmocka_unit_test(test_a_live_question_is_answered_from_the_numbers_handed_in),
		cmocka_unit_test(test_the_checker_accepts_a_live_question),
	};
	return cmocka_run_group_tests_name("flash lessons", tests, NULL, NULL);
}
