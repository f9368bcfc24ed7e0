/*
 * test_wrap.c - lesson text as lines: paragraphs re-wrapped to the width,
 * indented lines verbatim, long words cut, UTF-8 never split, widths in
 * display columns (CJK and emoji take 2), key
 * placeholders resolved; the step pane and the lesson menu.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lesson_test.h"
#include "pane.h"

static void expect_lines(const struct lesson_text *t, const char *const *want, int n)
{
	for (int i = 0; i < t->count && i < n; i++)
		if (strcmp(t->lines[i].text, want[i]) != 0)
			print_error("line %d: got '%s', want '%s'\n", i, t->lines[i].text, want[i]);
	assert_int_equal(t->count, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(t->lines[i].text, want[i]);
}

static void test_paragraphs_are_rewrapped_to_the_width(void **state)
{
	(void)state;
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_wrap(&t, "one two three\nfour five six seven\n\neight nine", 12,
	                             LESSON_LINE_PROSE, NULL, NULL), 0);
	const char *want[] = { "one two", "three four", "five six", "seven", "", "eight nine" };
	expect_lines(&t, want, 6);
	assert_int_equal(t.lines[0].kind, LESSON_LINE_PROSE);
	assert_int_equal(t.lines[4].kind, LESSON_LINE_BLANK);
	lesson_text_free(&t);
}

static void test_indented_lines_stay_verbatim(void **state)
{
	(void)state;
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_wrap(&t, "Formula:\n    q.k = sum q_i k_i\n\tS = Q K^T\nafter it", 40,
	                             LESSON_LINE_PROSE, NULL, NULL), 0);
	const char *want[] = { "Formula:", "    q.k = sum q_i k_i", "    S = Q K^T", "after it" };
	expect_lines(&t, want, 4);
	assert_int_equal(t.lines[1].kind, LESSON_LINE_VERBATIM);
	lesson_text_free(&t);
	/* cut, not wrapped, when wider than the pane */
	assert_int_equal(lesson_wrap(&t, "  0123456789", 6, LESSON_LINE_PROSE, NULL, NULL), 0);
	const char *cut[] = { "  0123" };
	expect_lines(&t, cut, 1);
	lesson_text_free(&t);
}

static void test_long_words_are_cut_and_utf8_is_never_split(void **state)
{
	(void)state;
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_wrap(&t, "abcdefghij x", 4, LESSON_LINE_PROSE, NULL, NULL), 0);
	const char *want[] = { "abcd", "efgh", "ij x" };
	expect_lines(&t, want, 3);
	lesson_text_free(&t);
	assert_int_equal(lesson_wrap(&t, "\u221ad\u2096 \u2713\u2713\u2713", 3, LESSON_LINE_PROSE,
	                             NULL, NULL), 0);
	const char *utf[] = { "\u221ad\u2096", "\u2713\u2713\u2713" };
	expect_lines(&t, utf, 2);
	lesson_text_free(&t);
}

static const char *keys(const char *action, const void *ctx)
{
	(void)ctx;
	return !strcmp(action, "hint") ? "H" : NULL;
}

static void test_key_placeholders_are_resolved(void **state)
{
	(void)state;
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_wrap(&t, "Press {key:hint}, {key:next} or {key:scale}.", 80,
	                             LESSON_LINE_PROSE, keys, NULL), 0);
	const char *want[] = { "Press H, n or [scale]." };
	expect_lines(&t, want, 1);
	lesson_text_free(&t);
	assert_true(lesson_key_action_known("solution"));
	assert_false(lesson_key_action_known("sollution"));
}

static void test_the_pane_shows_prose_status_hints_and_keys(void **state)
{
	(void)state;
	struct test_bench b;
	test_bench_open(&b, "mha-tui-lesson 1\n@lesson 2\n@title Two\n@objective o\n"
	                "@config tokens=2 d_model=2 heads=1\n@step s Title\nMake it big.\n"
	                "@goal W^Q[0,0] > 5\n@hint Type 6.\n@solution W^Q[0,0] = 6\n", 0);
	lesson_run_eval(&b.run, &b.c, &b.w, &b.a);
	lesson_run_next_hint(&b.run);
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_run_pane(&b.run, 60, keys, NULL, false, &t), 0);
	char want_status[128];
	snprintf(want_status, sizeof want_status, "[ ] Not yet: W^Q[0,0] = %.4g, want > 5",
	         (double)b.w.wq[0]);
	const char *want[] = {
		"Lesson 2: Two", "Step 1 of 1: Title", "", "Make it big.", "", want_status,
		"Hint 1 of 1: Type 6.", "[solution] shows the solution", "",
		"Last step. n next lesson, p previous, [leave] free workbench",
	};
	expect_lines(&t, want, 10);
	assert_int_equal(t.lines[5].kind, LESSON_LINE_UNMET);
	lesson_text_free(&t);
	b.w.wq[0] = 6.0f;
	test_forward(&b.c, &b.w, &b.a);
	lesson_run_eval(&b.run, &b.c, &b.w, &b.a);
	assert_int_equal(lesson_run_pane(&b.run, 60, keys, NULL, true, &t), 0);
	assert_string_equal(t.lines[5].text, "\u2713 Goal met: W^Q[0,0] = 6 > 5");
	assert_int_equal(t.lines[5].kind, LESSON_LINE_MET);
	lesson_text_free(&t);
	test_bench_close(&b);
}

/* Cells in the notation: the pane shows P₀ where the terminal has UTF-8
 * and P_0 where it has not (prose, hints and the goal line alike), and
 * wraps the ASCII form, one column wider a subscript, to the width. */
static void test_the_pane_writes_cells_for_the_terminal(void **state)
{
	(void)state;
	struct test_bench b;
	test_bench_open(&b, "mha-tui-lesson 1\n@lesson 2\n@title Two\n@objective o\n"
	                "@config tokens=2 d_model=2 heads=1\n@step s Title\nRaise S\u2080[1,0].\n"
	                "@goal S\u2080[1,0] > 5\n@hint Look at P\u2080[1,*] and the\u2081.\n"
	                "@solution W^Q[1,0] = 9\n", 0);
	lesson_run_eval(&b.run, &b.c, &b.w, &b.a);
	lesson_run_next_hint(&b.run);
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_run_pane(&b.run, 60, NULL, NULL, true, &t), 0);
	assert_string_equal(t.lines[3].text, "Raise S\u2080[1,0].");
	assert_non_null(strstr(t.lines[5].text, "Not yet: S\u2080[1,0] = "));
	assert_string_equal(t.lines[6].text, "Hint 1 of 1: Look at P\u2080[1,*] and the\u2081.");
	lesson_text_free(&t);
	assert_int_equal(lesson_run_pane(&b.run, 60, NULL, NULL, false, &t), 0);
	assert_string_equal(t.lines[3].text, "Raise S_0[1,0].");
	assert_non_null(strstr(t.lines[5].text, "Not yet: S_0[1,0] = "));
	assert_string_equal(t.lines[6].text, "Hint 1 of 1: Look at P_0[1,*] and the1.");
	lesson_text_free(&t);
	/* "Raise S_0[1,0]." is 15 columns: at 14 it wraps whole */
	assert_int_equal(lesson_run_pane(&b.run, 14, NULL, NULL, false, &t), 0);
	int at = -1;
	for (int i = 0; i < t.count; i++)
		if (!strcmp(t.lines[i].text, "S_0[1,0]."))
			at = i;
	assert_true(at > 0);
	assert_string_equal(t.lines[at - 1].text, "Raise");
	lesson_text_free(&t);
	test_bench_close(&b);
}

static void test_choices_wrap_under_their_text(void **state)
{
	(void)state;
	struct test_bench b;
	test_bench_open(&b, "mha-tui-lesson 1\n@lesson 1\n@title T\n@objective o\n@step s\n"
	                "@question Which?\n@choice a the token just before this one\n@choice b no\n"
	                "@answer a\n@hint h\n", 0);
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_run_pane(&b.run, 20, NULL, NULL, false, &t), 0);
	const char *want[] = { "  a) the token just", "     before this one", "  b) no" };
	assert_string_equal(t.lines[4].text, want[0]);
	assert_string_equal(t.lines[5].text, want[1]);
	assert_string_equal(t.lines[6].text, want[2]);
	assert_int_equal(t.lines[5].kind, LESSON_LINE_CHOICE);
	lesson_text_free(&t);
	test_bench_close(&b);
}

/* Two lessons: 1 with one step and no exercise, 2 with a step (titled
 * step_title) and an exercise. */
static struct lesson_set two_lessons(struct lesson ls[2], const char *title1, const char *title2,
                                     const char *step_title)
{
	struct lesson_errors errs = { 0 };
	char a[256], b[512];
	snprintf(a, sizeof a, "mha-tui-lesson 1\n@lesson 1\n@title %s\n@objective o\n@step x\nText.\n",
	         title1);
	snprintf(b, sizeof b, "mha-tui-lesson 1\n@lesson 2\n@title %s\n@objective o\n@step y %s\n"
	         "Text.\n@step z\n@goal heads = 2\n@hint h\n@solution heads = 2\n", title2, step_title);
	assert_int_equal(lesson_parse("01-a.lesson", a, strlen(a), NULL, &ls[0], &errs), 0);
	assert_int_equal(lesson_parse("02-b.lesson", b, strlen(b), NULL, &ls[1], &errs), 0);
	return (struct lesson_set){ ls, 2, NULL, NULL };
}

static void test_the_menu_lists_lessons_with_done_marks(void **state)
{
	(void)state;
	struct lesson ls[2];
	struct lesson_set set = two_lessons(ls, "Alpha", "Beta", "");
	struct progress p;
	progress_init(&p);
	progress_mark_done(&p, "a/x");
	progress_mark_done(&p, "b/z");
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_menu(&set, &p, 30, false, &t), 0);
	const char *want[] = { "Lessons", " 1 x Alpha (0/0)", " 2 . Beta (1/1)", "",
	                       "Done: 1 of 2 lessons, 1 of 1", "exercises" };
	expect_lines(&t, want, 6);
	assert_int_equal(t.lines[1].kind, LESSON_LINE_MENU_DONE);
	assert_int_equal(t.lines[2].kind, LESSON_LINE_MENU);
	assert_true(lesson_is_done(&ls[0], &p));
	assert_false(lesson_is_done(&ls[1], &p));
	lesson_text_free(&t);
	progress_free(&p);
	lesson_free(&ls[0]);
	lesson_free(&ls[1]);
}

/* At 34 columns (the pane at 80x24) a long title is cut with an
 * ellipsis, never the count of exercises done; the lesson's heading above
 * a step takes one line, the step's own heading wraps. */
static void test_a_narrow_pane_keeps_counts_and_headings_in_view(void **state)
{
	(void)state;
	struct lesson ls[2];
	struct lesson_set set = two_lessons(ls, "Short", "Scores, and why divide by sqrt(d_k)",
	                                    "A step title long enough to wrap");
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_menu(&set, NULL, 34, false, &t), 0);
	assert_string_equal(t.lines[1].text, " 1   Short (0/0)");
	assert_string_equal(t.lines[2].text, " 2   Scores, and why divi... (0/1)");
	lesson_text_free(&t);
	assert_int_equal(lesson_menu(&set, NULL, 34, true, &t), 0);
	assert_string_equal(t.lines[2].text, " 2   Scores, and why divide\u2026 (0/1)");
	lesson_text_free(&t);
	assert_int_equal(lesson_menu(&set, NULL, 14, false, &t), 0); /* too narrow for a title */
	assert_string_equal(t.lines[2].text, " 2   (0/1) Sco");
	lesson_text_free(&t);
	assert_int_equal(lesson_menu(&set, NULL, 80, false, &t), 0); /* wide: all of it */
	assert_string_equal(t.lines[2].text, " 2   Scores, and why divide by sqrt(d_k) (0/1)");
	lesson_text_free(&t);

	struct lesson_run run;
	struct mha_config c = mha_config_default();
	struct mha_weights w = { 0 };
	char msg[256];
	assert_true(lesson_run_start(&run, &ls[1], 0, true, &c, &w, msg, sizeof msg) >= 0);
	assert_int_equal(lesson_run_pane(&run, 34, NULL, NULL, false, &t), 0);
	const char *want[] = { "Lesson 2: Scores, and why divid...", "Step 1 of 2: A step title long",
	                       "enough to wrap", "", "Text." };
	for (int i = 0; i < 5; i++)
		assert_string_equal(t.lines[i].text, want[i]);
	lesson_text_free(&t);
	lesson_run_end(&run);
	mha_weights_free(&w);
	lesson_free(&ls[0]);
	lesson_free(&ls[1]);
}

static void test_wide_characters_wrap_by_display_columns_with_nothing_lost(void **state)
{
	(void)state;
	struct lesson_text t = { 0 };
	/* a CJK word of 6 characters is 12 columns: in 8 columns it breaks
	 * after 4 characters, every character kept */
	assert_int_equal(lesson_wrap(&t, "\u6ce8\u610f\u529b\u673a\u5236\u597d", 8,
	                             LESSON_LINE_PROSE, NULL, NULL), 0);
	const char *cjk[] = { "\u6ce8\u610f\u529b\u673a", "\u5236\u597d" };
	expect_lines(&t, cjk, 2);
	for (int i = 0; i < t.count; i++)
		assert_true(lesson_utf8_width(t.lines[i].text) <= 8);
	lesson_text_free(&t);
	/* an emoji takes 2 columns: "ab \U0001F600 cd" is 8, so width 7 breaks */
	assert_int_equal(lesson_utf8_width("ab \U0001F600 cd"), 8);
	assert_int_equal(lesson_wrap(&t, "ab \U0001F600 cd", 7, LESSON_LINE_PROSE, NULL, NULL), 0);
	const char *emoji[] = { "ab \U0001F600", "cd" };
	expect_lines(&t, emoji, 2);
	lesson_text_free(&t);
	/* a wide character that does not fit whole is left out of a cut */
	assert_int_equal(lesson_utf8_prefix("a\u6ce8\u610f", 4), 1 + 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paragraphs_are_rewrapped_to_the_width),
		cmocka_unit_test(test_indented_lines_stay_verbatim),
		cmocka_unit_test(test_long_words_are_cut_and_utf8_is_never_split),
		cmocka_unit_test(test_wide_characters_wrap_by_display_columns_with_nothing_lost),
		cmocka_unit_test(test_key_placeholders_are_resolved),
		cmocka_unit_test(test_the_pane_shows_prose_status_hints_and_keys),
		cmocka_unit_test(test_the_pane_writes_cells_for_the_terminal),
		cmocka_unit_test(test_choices_wrap_under_their_text),
		cmocka_unit_test(test_the_menu_lists_lessons_with_done_marks),
		cmocka_unit_test(test_a_narrow_pane_keeps_counts_and_headings_in_view),
	};
	return cmocka_run_group_tests_name("lesson text", tests, NULL, NULL);
}
