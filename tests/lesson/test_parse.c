/*
 * test_parse.c - the lesson parser: a valid lesson becomes the right
 * structure, and each kind of mistake an author can make is reported as
 * "file:line: message" (one test per case), with the nearest directive
 * suggested for a misspelled one. Mangled input never crashes it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lesson.h"
#include "lesson_int.h"
#include "notation.h"
#include "lesson_test.h"

#define HEAD "mha-tui-lesson 1\n@lesson 1\n@title One head\n@objective See a query pick a key.\n"

/* Lines 1-4: HEAD; 5 config; 6 step; 7 prose; 8 goal; 9 hint; 10 solution. */
static const char valid[] =
	HEAD
	"@config tokens=2 d_model=2 heads=1\n"
	"@step look Look at the scores\n"
	"Each token asks {key:hint} questions.\n"
	"@goal W^Q[0,0] > 5\n"
	"@hint Type a large number into W^Q[0,0].\n"
	"@solution W^Q[0,0] = 6\n";

static void test_a_valid_lesson_parses_into_its_parts(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(valid, &l, &errs), 0);
	assert_int_equal(errs.count, 0);
	assert_int_equal(l.number, 1);
	assert_string_equal(l.title, "One head");
	assert_string_equal(l.objective, "See a query pick a key.");
	assert_int_equal(l.nsteps, 1);
	assert_int_equal(l.nexercises, 1);
	const struct lesson_step *s = &l.steps[0];
	assert_string_equal(s->id, "look");
	assert_string_equal(s->title, "Look at the scores");
	assert_string_equal(s->prose, "Each token asks {key:hint} questions.");
	assert_int_equal(s->cfg.n, 2);
	assert_int_equal(s->cfg.d, 2);
	assert_int_equal(s->cfg.h, 1);
	assert_int_equal(s->cfg.g, 1);  /* kv_heads follows heads */
	assert_int_equal(s->cfg.dk, 2); /* d_k = d_model / heads */
	assert_int_equal(s->ngoals, 1);
	assert_int_equal(s->goals[0].kind, LESSON_COND_CELL);
	assert_int_equal(s->goals[0].line, 8);
	assert_int_equal(s->nhints, 1);
	assert_int_equal(s->nsolution, 1);
	assert_int_equal(s->solution[0].kind, LESSON_EDIT_SET);
	assert_true(s->resets);
	lesson_free(&l);
}

static void test_name_and_stem_come_from_the_file_name(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(lesson_parse("some/dir/01-one-head.lesson", valid, strlen(valid), NULL, &l,
	                              &errs), 0);
	assert_string_equal(l.name, "one-head");
	assert_string_equal(l.stem, "01-one-head");
	lesson_free(&l);
}

static void test_unknown_directive_suggests_the_nearest(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\nText.\n@hnit try harder\n",
	                      "t.lesson:7: unknown directive @hnit: did you mean @hint?");
	test_parse_fails_with(HEAD "@step a\n@qustion Why?\n",
	                      "t.lesson:6: unknown directive @qustion: did you mean @question?");
}

static void test_unknown_directive_far_from_all_says_where_the_list_is(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@zzzzzz x\n",
	                      "t.lesson:6: unknown directive @zzzzzz (directives are listed in "
	                      "lessons/README.md)");
}

static void test_nearest_directive_finds_typos_only(void **state)
{
	(void)state;
	assert_string_equal(lesson_nearest_directive("hnit"), "hint");
	assert_string_equal(lesson_nearest_directive("solutoin"), "solution");
	assert_string_equal(lesson_nearest_directive("higlight"), "highlight");
	assert_string_equal(lesson_nearest_directive("Goal"), "goal");
	assert_null(lesson_nearest_directive("xyzzy"));
}

static void test_missing_title_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with("mha-tui-lesson 1\n@lesson 1\n@objective o\n@step a\nText.\n",
	                      "t.lesson:1: missing @title: every lesson has a title");
}

static void test_missing_objective_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with("mha-tui-lesson 1\n@lesson 1\n@title t\n@step a\nText.\n",
	                      "t.lesson:1: missing @objective: every lesson has a one-line goal");
}

static void test_missing_number_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with("mha-tui-lesson 1\n@title t\n@objective o\n@step a\nText.\n",
	                      "t.lesson:1: missing @lesson N: every lesson has a number");
}

static void test_bad_lesson_number_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with("mha-tui-lesson 1\n@lesson three\n@title t\n@objective o\n@step a\n",
	                      "t.lesson:2: bad lesson number 'three': @lesson takes a whole number 1..99");
	test_parse_fails_with("mha-tui-lesson 1\n@lesson 0\n@title t\n@objective o\n@step a\n",
	                      "t.lesson:2: bad lesson number '0': @lesson takes a whole number 1..99");
	test_parse_fails_with("mha-tui-lesson 1\n@lesson 2.5\n@title t\n@objective o\n@step a\n",
	                      "t.lesson:2: bad lesson number '2.5': @lesson takes a whole number 1..99");
}

static void test_number_must_agree_with_the_file_name(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(lesson_parse("d/02-x.lesson", valid, strlen(valid), NULL, &l, &errs), -1);
	assert_int_equal(errs.count, 1);
	assert_string_equal(errs.msg[0], "d/02-x.lesson:2: @lesson 1, but the file name says 2");
	lesson_errors_free(&errs);
}

static void test_unterminated_block_at_the_end_is_reported_at_its_start(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config tokens=2 d_model=2 heads=1\n@step a\n@matrix X\n1 0\n0 1\n",
	                      "t.lesson:7: @matrix X block is not closed: add @end after its rows");
}

static void test_unterminated_block_before_a_directive_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config tokens=2 d_model=2 heads=1\n@step a\n@matrix W^Q\n1 0\n"
	                      "@step b\n",
	                      "t.lesson:7: @matrix W^Q block is not closed: add @end after its rows");
}

static void test_end_without_block_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@end\n", "t.lesson:6: @end without an open @matrix block");
}

static void test_duplicate_step_id_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step same\nOne.\n@step same\nTwo.\n",
	                      "t.lesson:7: duplicate step id 'same' (also at line 5): ids must be "
	                      "unique in a lesson");
}

static void test_bad_step_id_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step Not/Good\nOne.\n",
	                      "t.lesson:5: @step needs an id: lower-case letters, digits, '-' and '_', "
	                      "at most 39 bytes (\"@step scores-2 Title\")");
}

static void test_goal_naming_a_missing_head_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config heads=4\n@step a\n@goal P₄[0,1] > 0.5\n@hint h\n"
	                      "@solution W^Q[0,0] = 1\n",
	                      "t.lesson:7: @goal: head 4 does not exist: there are 4 heads (0..3)");
	test_parse_fails_with(HEAD "@config heads=2\n@step a\n@goal head 2 off\n@hint h\n"
	                      "@solution head 1 off\n",
	                      "t.lesson:7: @goal names head 2, which does not exist: there are 2 heads "
	                      "(0..1)");
}

static void test_goal_naming_a_missing_row_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config tokens=3\n@step a\n@goal argmax P₀[5,*] = 1\n@hint h\n"
	                      "@solution W^Q[0,0] = 1\n",
	                      "t.lesson:7: @goal: row 5 does not exist: P is 3x3 here");
}

static void test_malformed_goal_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@goal P₀[1,2] about 3\n",
	                      "t.lesson:6: @goal: expected a comparison (<, <=, >, >=, =, !=, within) "
	                      "after 'P'");
	test_parse_fails_with(HEAD "@step a\n@goal P₀[1,*] > 3\n",
	                      "t.lesson:6: @goal: a goal compares one cell: give every index "
	                      "(P\u2080[row,column])");
	test_parse_fails_with(HEAD "@step a\n@goal Zed[0][1] > 3\n",
	                      "t.lesson:6: @goal: 'Zed' is not a tensor: use X, W^Q, W^K, W^V, W^O, "
	                      "Q, K, V, S, P, O, Concat, Y, PE, P_pos, Q_rot, K_rot, X_kv or the stream x\u2081");
}

/* Directives read the one cell notation (the head as a subscript, or
 * "_0" in ASCII, then [row,column]) and print it back the same way; the
 * old forms are refused with the form to write. */
static void test_cells_are_written_in_the_one_notation(void **state)
{
	(void)state;
	static const char *const same[][2] = {
		{ "P\u2080[2,0]", "P\u2080[2,0]" }, { "P_0[2, 0]", "P\u2080[2,0]" }, { "S_12[0,4]", "S\u2081\u2082[0,4]" },
		{ "W^Q[*,4..7]", "W^Q[*,4..7]" }, { "W^Q[*,*]", "W^Q" }, { "P\u2080[2]", "P\u2080[2,*]" },
		{ "S\u2082..\u2083", "S\u2082..\u2083" }, { "S_*[1,0]", "S[1,0]" }, { "Y[3,0]", "Y[3,0]" },
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		struct lesson_ref r;
		const char *end;
		char why[256] = "", back[NOTATION_MAX];
		if (lesson_parse_ref(same[i][0], &end, &r, why, sizeof why) != 0)
			print_error("%s: %s\n", same[i][0], why);
		assert_int_equal(lesson_parse_ref(same[i][0], &end, &r, why, sizeof why), 0);
		assert_int_equal(*end, '\0');
		lesson_ref_format(&r, back, sizeof back);
		assert_string_equal(back, same[i][1]);
	}
	test_parse_fails_with(HEAD "@step a\n@goal P[0][2][1] > 0.5\n",
	                      "t.lesson:6: @goal: write P\u2080[2,1]: the head as a subscript, then [row,column] "
	                      "(lessons/README.md)");
	test_parse_fails_with(HEAD "@step a\n@goal heads = 2\n@hint h\n@solution W^K[1][5] = 0\n",
	                      "t.lesson:8: @solution: write W^K[1,5]: [row,column] in one pair of brackets "
	                      "(lessons/README.md)");
	test_parse_fails_with(HEAD "@step a\n@goal W^Q\u2080[1,1] > 2\n",
	                      "t.lesson:6: @goal: W^Q has no heads: write W^Q[row,column]");
	test_parse_fails_with(HEAD "@step a\n@goal P\u2080[1,1][2] > 2\n",
	                      "t.lesson:6: @goal: P takes one [row,column] after its name and head (P\u2080[2,0])");
}

static void test_first_line_must_name_the_format(void **state)
{
	(void)state;
	test_parse_fails_with("@lesson 1\n@title t\n",
	                      "t.lesson:1: not a lesson file: the first line must be 'mha-tui-lesson 1'");
	test_parse_fails_with("mha-tui-lesson 9\n@lesson 1\n",
	                      "t.lesson:1: unsupported lesson format: this mha-tui reads 'mha-tui-lesson 1'");
}

static void test_empty_file_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with("", "t.lesson:1: empty file: the first line must be 'mha-tui-lesson 1'");
}

static void test_prose_before_the_first_step_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "Hello there.\n@step a\n",
	                      "t.lesson:5: text before the first @step: prose belongs inside a step");
}

static void test_directives_in_the_wrong_place_are_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@hint too early\n@step a\n",
	                      "t.lesson:5: @hint belongs inside a step: start one with @step ID");
	test_parse_fails_with(HEAD "@step a\n@title again\n",
	                      "t.lesson:6: @title belongs before the first @step");
}

static void test_labels_must_match_the_tokens(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config tokens=3\n@labels a b\n@step a\n",
	                      "t.lesson:6: 2 labels for 3 tokens in step 'a'");
}

static void test_matrix_shape_must_match_the_configuration(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config tokens=2 d_model=2 heads=1\n@step a\n@matrix X\n1 2 3\n"
	                      "4 5 6\n@end\n",
	                      "t.lesson:7: X is 2x2 in step 'a' (tokens 2, d_model 2, heads 1, d_k 2), "
	                      "but this matrix is 2x3");
}

static void test_ragged_matrix_rows_are_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@matrix X\n1 2\n3\n@end\n",
	                      "t.lesson:8: matrix row has 1 numbers where the rows above have 2");
}

static void test_invalid_configuration_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config heads=4 kv_heads=3\n@step a\n",
	                      "t.lesson:5: configuration of step 'a': kv-heads 3 does not divide heads "
	                      "4: choose a divisor of 4 (1 = MQA, 4 = MHA)");
	test_parse_fails_with(HEAD "@config d_model=10 heads=4\n@step a\n",
	                      "t.lesson:5: configuration of step 'a': d_model 10 is not a multiple of "
	                      "heads 4: give d_k");
}

static void test_unknown_config_field_suggests_the_nearest(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@config tokens=4 head=2\n@step a\n",
	                      "t.lesson:5: @config: unknown field 'head': did you mean heads?");
}

static void test_question_parts_must_fit_together(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@choice a yes\n",
	                      "t.lesson:6: @choice before any @question in this step");
	test_parse_fails_with(HEAD "@step a\n@question Which?\n@choice a yes\n@choice b no\n"
	                      "@answer c\n@hint h\n",
	                      "t.lesson:6: @answer 'c' is not one of the choices' keys");
	test_parse_fails_with(HEAD "@step a\n@question How many?\n@answer lots\n@hint h\n",
	                      "t.lesson:6: @answer of a question without choices is a number and an "
	                      "optional tolerance: @answer 0.25 0.01");
	test_parse_fails_with(HEAD "@step a\n@question How many?\n@hint h\n",
	                      "t.lesson:6: @question without @answer");
}

static void test_hide_needs_a_question(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@hide Softmax\n",
	                      "t.lesson:5: step 'a': @hide needs a @question: what is hidden shows once "
	                      "the learner answers");
}

/* @wait names a view the lessons know, once, in a step with a question. */
static void test_wait_needs_a_view_and_a_question(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@wait kv-cache\n",
	                      "t.lesson:5: step 'a': @wait needs a @question: the view waits for its answer");
	test_parse_fails_with(HEAD "@step a\n@question How many?\n@answer 2\n@wait kv-cash\n",
	                      "t.lesson:8: @wait takes one view's action, as {key:...} names it (kv-cache)");
}

static void test_hints_without_a_goal_are_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@hint lonely\n",
	                      "t.lesson:5: step 'a' has hints or a solution but no @goal");
}

static void test_solution_editing_a_computed_tensor_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@goal heads = 2\n@hint h\n@solution P₀[0,0] = 1\n",
	                      "t.lesson:8: @solution: P is computed, not edited: edit X, W^Q, W^K, W^V "
	                      "or W^O");
}

static void test_missing_asset_names_the_path(void **state)
{
	(void)state;
	char want[4400];
	snprintf(want, sizeof want, "t.lesson:5: asset %s/no-such.mat: No such file or directory",
	         test_assets_dir());
	test_parse_fails_with(HEAD "@preset W^Q no-such\n@step a\n", want);
}

static void test_asset_names_cannot_be_paths(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\n@include ../../etc/passwd\n",
	                      "t.lesson:6: @include: '../../etc/passwd' is not an asset name: letters, "
	                      "digits, '-', '_' and '.' only");
}

static void test_lines_that_are_not_text_are_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a\nbad \xff byte\n",
	                      "t.lesson:6: this line is not UTF-8 text (or holds control characters)");
	test_parse_fails_with(HEAD "@step a\nescape \x1b[2J here\n",
	                      "t.lesson:6: this line is not UTF-8 text (or holds control characters)");
}

static void test_every_error_of_a_file_is_reported(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	const char *text = "mha-tui-lesson 1\n@lesson x\n@step a\n@hnit h\n@step a\n@goal ???\n";
	assert_int_equal(test_parse(text, &l, &errs), -1);
	/* bad number, unknown directive, duplicate id, bad goal, no title, no objective */
	assert_int_equal(errs.count, 6);
	lesson_errors_free(&errs);
}

/* Any bytes: truncations, flipped bytes, spliced lines of a real lesson.
 * The parser returns, and every message names the file. */
static void test_parser_survives_mangled_input(void **state)
{
	(void)state;
	static const char base[] =
		HEAD "@config tokens=8 d_model=16 heads=4\n@labels the cat saw the dog chase the cat\n"
		"@embed sentence-tokens sentence-positions\n@preset W^Q sentence-wq\n"
		"@step a Title\nProse {key:hint}\n    verbatim\n@question Q?\n@choice a x\n@choice b y\n"
		"@answer a\n@hide P₀[1..3,*]\n@step b\n@matrix W^O\n1 2\n@end\n@goal argmax P₁[2,*] = 3\n"
		"@goal within max S₀[*,1] 0.1 0.2\n@hint h\n@solution W^K[0..3,*] *= 2\n"
		"@solution heads = 8\n@highlight head 2\n@focus Weighted sum\n";
	size_t n = sizeof base - 1;
	char buf[sizeof base + 64];
	unsigned long long seed = 12345;
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(buf, base, n);
		size_t len = n;
		int edits = 1 + iter % 4;
		for (int e = 0; e < edits; e++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			size_t at = (size_t)(seed >> 33) % len;
			switch ((seed >> 20) % 4) {
			case 0: buf[at] = (char)(seed >> 40); break;               /* any byte */
			case 1: len = at + 1; break;                               /* truncate */
			case 2: buf[at] = "@[]*.=\n 0-9"[(seed >> 45) % 11]; break; /* syntax */
			default: memmove(buf + at, buf + at / 2, len - at); break;  /* splice */
			}
		}
		struct lesson l;
		struct lesson_errors errs = { 0 };
		if (lesson_parse("m.lesson", buf, len, test_assets_dir(), &l, &errs) == 0)
			lesson_free(&l);
		for (int i = 0; i < errs.count; i++)
			assert_memory_equal(errs.msg[i], "m.lesson", 8);
		lesson_errors_free(&errs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_valid_lesson_parses_into_its_parts),
		cmocka_unit_test(test_name_and_stem_come_from_the_file_name),
		cmocka_unit_test(test_unknown_directive_suggests_the_nearest),
		cmocka_unit_test(test_unknown_directive_far_from_all_says_where_the_list_is),
		cmocka_unit_test(test_nearest_directive_finds_typos_only),
		cmocka_unit_test(test_missing_title_is_reported),
		cmocka_unit_test(test_missing_objective_is_reported),
		cmocka_unit_test(test_missing_number_is_reported),
		cmocka_unit_test(test_bad_lesson_number_is_reported),
		cmocka_unit_test(test_number_must_agree_with_the_file_name),
		cmocka_unit_test(test_unterminated_block_at_the_end_is_reported_at_its_start),
		cmocka_unit_test(test_unterminated_block_before_a_directive_is_reported),
		cmocka_unit_test(test_end_without_block_is_reported),
		cmocka_unit_test(test_duplicate_step_id_is_reported),
		cmocka_unit_test(test_bad_step_id_is_reported),
		cmocka_unit_test(test_goal_naming_a_missing_head_is_reported),
		cmocka_unit_test(test_goal_naming_a_missing_row_is_reported),
		cmocka_unit_test(test_malformed_goal_is_reported),
		cmocka_unit_test(test_cells_are_written_in_the_one_notation),
		cmocka_unit_test(test_first_line_must_name_the_format),
		cmocka_unit_test(test_empty_file_is_reported),
		cmocka_unit_test(test_prose_before_the_first_step_is_reported),
		cmocka_unit_test(test_directives_in_the_wrong_place_are_reported),
		cmocka_unit_test(test_labels_must_match_the_tokens),
		cmocka_unit_test(test_matrix_shape_must_match_the_configuration),
		cmocka_unit_test(test_ragged_matrix_rows_are_reported),
		cmocka_unit_test(test_invalid_configuration_is_reported),
		cmocka_unit_test(test_unknown_config_field_suggests_the_nearest),
		cmocka_unit_test(test_question_parts_must_fit_together),
		cmocka_unit_test(test_hide_needs_a_question),
		cmocka_unit_test(test_wait_needs_a_view_and_a_question),
		cmocka_unit_test(test_hints_without_a_goal_are_reported),
		cmocka_unit_test(test_solution_editing_a_computed_tensor_is_reported),
		cmocka_unit_test(test_missing_asset_names_the_path),
		cmocka_unit_test(test_asset_names_cannot_be_paths),
		cmocka_unit_test(test_lines_that_are_not_text_are_reported),
		cmocka_unit_test(test_every_error_of_a_file_is_reported),
		cmocka_unit_test(test_parser_survives_mangled_input),
	};
	return cmocka_run_group_tests_name("lesson parser", tests, NULL, NULL);
}
