/*
 * test_notation.c - the one way a cell is written (notation.c): the head
 * as a subscript for S, P, O only, [row,column], token words after the
 * indices, a repeated word told apart by its index where it stands alone
 * (notation_token, as the heatmaps label it), blocks with
 * "*" and "lo..hi", the ASCII form, and the dependencies the status line
 * lists. Every expected string is written out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mha.h"
#include "notation.h"

static const char labels[6][MHA_LABEL_MAX] = { "the", "cat", "sat", "on", "the", "mat" };

static void test_a_cell_is_name_head_subscript_then_row_and_column(void **state)
{
	(void)state;
	char b[NOTATION_MAX];
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_WEIGHTS, 0, 2, 0 }, NULL, 0, true),
	                    "P\u2080[2,0]");
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_SCORES, 1, 0, 4 }, NULL, 0, true),
	                    "S\u2081[0,4]");
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_HEADS, 12, 3, 1 }, NULL, 0, true),
	                    "O\u2081\u2082[3,1]");
	/* not per head: no subscript, whatever m holds */
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_WQ, 0, 11, 12 }, NULL, 0, true),
	                    "W^Q[11,12]");
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_X, 0, 1, 0 }, NULL, 0, true), "X[1,0]");
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_Y, 0, 3, 0 }, NULL, 0, true), "Y[3,0]");
	/* ASCII: the head after an underscore */
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_WEIGHTS, 0, 2, 0 }, NULL, 0, false),
	                    "P_0[2,0]");
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_SCORES, 11, 2, 0 }, NULL, 0, false),
	                    "S_11[2,0]");
}

static void test_labels_follow_the_indices_that_are_tokens(void **state)
{
	(void)state;
	char b[NOTATION_MAX];
	/* S and P: rows are queries, columns keys; after its index a repeated
	 * word is the plain word */
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_WEIGHTS, 0, 2, 4 }, labels, 6, true),
	                    "P\u2080[2 sat, 4 the]");
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_WEIGHTS, 0, 0, 4 }, labels, 6, false),
	                    "P_0[0 the, 4 the]");
	/* X, Q, Y: rows are tokens, columns are not */
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_X, 0, 1, 0 }, labels, 6, true),
	                    "X[1 cat, 0]");
	/* the weights: neither */
	assert_string_equal(notation_cell(b, sizeof b, &(struct cell){ MHA_T_WK, 0, 1, 5 }, labels, 6, true),
	                    "W^K[1,5]");
	assert_string_equal(notation_token(b, sizeof b, labels, 6, 0, true), "the\u2080");
	assert_string_equal(notation_token(b, sizeof b, labels, 6, 5, true), "mat");
	/* among the first 4 tokens "the" occurs once */
	assert_string_equal(notation_token(b, sizeof b, labels, 4, 0, true), "the");
}

static void test_blocks_write_star_and_ranges(void **state)
{
	(void)state;
	char b[NOTATION_MAX];
	struct notation_range r[3] = { { 0, 0 }, { 0, -1 }, { 4, 7 } };
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_WQ, r, true), "W^Q[*,4..7]");
	r[1] = (struct notation_range){ 0, -1 };
	r[2] = (struct notation_range){ 0, -1 };
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_WO, r, true), "W^O");
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_WEIGHTS, r, true), "P\u2080");
	r[1] = (struct notation_range){ 2, 2 };
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_WEIGHTS, r, true), "P\u2080[2,*]");
	r[0] = (struct notation_range){ 0, -1 }; /* every head */
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_WEIGHTS, r, true), "P[2,*]");
	r[0] = (struct notation_range){ 2, 3 };
	r[1] = (struct notation_range){ 0, -1 };
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_SCORES, r, true), "S\u2082..\u2083");
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_SCORES, r, false), "S_2..3");
	r[1] = (struct notation_range){ 3, -1 };
	assert_string_equal(notation_ref(b, sizeof b, MHA_T_SCORES, r, false), "S_2..3[3..,*]");
}

/* The status line's "from": S₀[2,0] was computed from Q row 2 and K row 0,
 * head 0's columns 0..3 (d_k 4); P₀[2,0] from the whole row 2 of S₀. */
static void test_dependencies_are_written_as_blocks(void **state)
{
	(void)state;
	struct mha_config c = mha_config_default(); /* 6 tokens, d_model 16, 4 heads */
	char b[NOTATION_MAX];
	struct cell_rect d;
	const struct cell s = { MHA_T_SCORES, 0, 2, 0 }, p = { MHA_T_WEIGHTS, 0, 2, 0 };
	assert_true(pipeline_deps_rect(&c, &s, MHA_T_Q, &d));
	assert_string_equal(notation_rect(b, sizeof b, &c, MHA_T_Q, &d, true), "Q[2,0..3]");
	assert_true(pipeline_deps_rect(&c, &s, MHA_T_K, &d));
	assert_string_equal(notation_rect(b, sizeof b, &c, MHA_T_K, &d, true), "K[0,0..3]");
	assert_true(pipeline_deps_rect(&c, &p, MHA_T_SCORES, &d));
	assert_string_equal(notation_rect(b, sizeof b, &c, MHA_T_SCORES, &d, true), "S\u2080[2,*]");
	assert_string_equal(notation_rect(b, sizeof b, &c, MHA_T_SCORES, &d, false), "S_0[2,*]");
}

static void test_text_turns_ascii_as_the_pane_shows_it(void **state)
{
	(void)state;
	char s[128] = "Make S\u2081[0,4] pass 2; P\u2081\u2082[2,0]; the\u2084 and the\u2080 differ.";
	notation_ascii(s);
	assert_string_equal(s, "Make S_1[0,4] pass 2; P_12[2,0]; the4 and the0 differ.");
	char start[16] = "\u2083 left";
	notation_ascii(start);
	assert_string_equal(start, "3 left");
	char plain[32] = "no cells: \u2713 ok";
	notation_ascii(plain);
	assert_string_equal(plain, "no cells: \u2713 ok");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_cell_is_name_head_subscript_then_row_and_column),
		cmocka_unit_test(test_labels_follow_the_indices_that_are_tokens),
		cmocka_unit_test(test_blocks_write_star_and_ranges),
		cmocka_unit_test(test_dependencies_are_written_as_blocks),
		cmocka_unit_test(test_text_turns_ascii_as_the_pane_shows_it),
	};
	return cmocka_run_group_tests_name("cell notation", tests, NULL, NULL);
}
