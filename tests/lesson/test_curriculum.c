/*
 * test_curriculum.c - the shipped lessons read well in the narrow pane
 * (34 columns at 80x24) and tell the learner where and how: an exercise
 * that edits an input on another stage than its focus says which stage key
 * to press; one whose solution changes a whole matrix or block names the
 * {key:matrix-scale} key (and Tab when it is a block); what to do comes
 * first, within the lines the pane shows; verbatim lines fit the pane;
 * titles fit the pane's heading; no count a question asks for is already on
 * screen; every exercise has three hints and every choice question three
 * choices. Checks of the text as written, beside the checker's checks of the
 * maths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson_int.h"
#include "pane.h"

enum {
	PANE_WIDTH = LESSON_PANE_MIN_COLS, /* the lesson pane at 80x24 */
	PANE_LINES = 10, /* step heading and first paragraph the pane shows at 80x24 */
	BLOCK_CELLS = 5, /* an edit of this many cells or more is not done cell by cell */
};

static struct lesson_set set;

static int load(void **state)
{
	(void)state;
	struct lesson_errors errs = { 0 };
	const char *dir = getenv("MHA_TUI_LESSONS"); /* set by tests/meson.build */
	if (!dir || lesson_set_load(&set, dir, &errs) != 0 || set.count < 13) {
		for (int i = 0; i < errs.count; i++)
			fprintf(stderr, "%s\n", errs.msg[i]);
		lesson_errors_free(&errs);
		return -1;
	}
	return 0;
}

static int unload(void **state)
{
	(void)state;
	lesson_set_free(&set);
	return 0;
}

/* Case-insensitive: does text hold word? */
static bool says(const char *text, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = text; *p; p++)
		if (strncasecmp(p, word, n) == 0)
			return true;
	return false;
}

/* Does the step's prose, or one of its hints, hold word? */
static bool step_says(const struct lesson_step *s, const char *word)
{
	if (says(s->prose, word))
		return true;
	for (int i = 0; i < s->nhints; i++)
		if (says(s->hints[i], word))
			return true;
	return false;
}

/* The stage where an input is edited: Projection for X, W^Q, W^K, W^V. */
static int home_stage(enum mha_tensor t)
{
	return t == MHA_T_WO ? PIPELINE_OUTPUT : PIPELINE_PROJECTION;
}

static bool is_cell_edit(const struct lesson_edit *e)
{
	return e->kind == LESSON_EDIT_SET || e->kind == LESSON_EDIT_SCALE;
}

/* Cells an edit names in the step's starting shape; *whole says whether
 * that is the whole matrix. */
static long cells_of(const struct lesson_step *s, const struct lesson_edit *e, bool *whole)
{
	struct mha_shape sh = mha_tensor_shape(&s->cfg, e->ref.t);
	int lo, hi, lo2, hi2;
	if (!lesson_range_resolve(e->ref.r[1], sh.rows, &lo, &hi) ||
	    !lesson_range_resolve(e->ref.r[2], sh.cols, &lo2, &hi2))
		return 0;
	*whole = lo == 0 && hi == sh.rows - 1 && lo2 == 0 && hi2 == sh.cols - 1;
	return (long)(hi - lo + 1) * (hi2 - lo2 + 1);
}

/* Call fn on every step of every shipped lesson; the sum of what it
 * returns (how many things it checked). */
static int each_step(int (*fn)(const struct lesson *l, int si))
{
	int checked = 0;
	for (int li = 0; li < set.count; li++)
		for (int si = 0; si < set.lessons[li].nsteps; si++)
			checked += fn(&set.lessons[li], si);
	return checked;
}

static int says_which_stage(const struct lesson *l, int si)
{
	const struct lesson_step *s = &l->steps[si];
	int checked = 0;
	for (int k = 0; k < s->nsolution; k++) {
		const struct lesson_edit *e = &s->solution[k];
		if (!is_cell_edit(e) || home_stage(e->ref.t) == s->focus)
			continue;
		const char *key = home_stage(e->ref.t) == PIPELINE_OUTPUT ? "press 7" : "press 1";
		if (!says(s->prose, key))
			fail_msg("%s step '%s': edits %s on another stage than its focus, but its text "
			         "never says \"%s\"", l->stem, s->id, mha_tensor_info(e->ref.t)->name, key);
		checked++;
	}
	return checked;
}

static void test_edits_on_another_stage_say_which_stage_key_to_press(void **state)
{
	(void)state;
	assert_true(each_step(says_which_stage) >= 15);
}

static int names_the_scale_key(const struct lesson *l, int si)
{
	const struct lesson_step *s = &l->steps[si];
	int checked = 0;
	for (int k = 0; k < s->nsolution; k++) {
		const struct lesson_edit *e = &s->solution[k];
		const char *name = mha_tensor_info(e->ref.t)->name;
		bool whole = false;
		if (!is_cell_edit(e) || cells_of(s, e, &whole) < BLOCK_CELLS)
			continue;
		checked++;
		if (!step_says(s, "{key:matrix-scale}"))
			fail_msg("%s step '%s': its solution edits a block of %s, but neither text nor "
			         "hints name {key:matrix-scale}", l->stem, s->id, name);
		if (!whole && !says(s->prose, "Tab"))
			fail_msg("%s step '%s': a block of %s, not the whole matrix, but the text never "
			         "says Tab", l->stem, s->id, name);
		if (e->kind == LESSON_EDIT_SET && !says(s->prose, "="))
			fail_msg("%s step '%s': cells set to one value need a leading '='", l->stem, s->id);
	}
	return checked;
}

/* A key an exercise's solution needs is taught in words (the text or the
 * question of this step, or of a step before it, lessons in order) before
 * any hint names it: * for a block or a whole matrix, [ and ] for fewer or
 * more heads. Lesson 2's role-v needed *, named only in its last hint
 * (lesson 3 taught it); lesson 9's one-head needed [, never named. */
static void test_keys_a_solution_needs_are_taught_before_the_hints(void **state)
{
	(void)state;
	static const char *const keys[] = { "{key:matrix-scale}", "{key:heads-less}", "{key:heads-more}" };
	bool taught[3] = { false, false, false };
	int checked = 0;
	for (int li = 0; li < set.count; li++) {
		const struct lesson *l = &set.lessons[li];
		for (int si = 0; si < l->nsteps; si++) {
			const struct lesson_step *s = &l->steps[si];
			for (int k = 0; k < 3; k++)
				taught[k] = taught[k] || says(s->prose, keys[k]) ||
				            (s->question && says(s->question->text, keys[k]));
			for (int e = 0; e < s->nsolution; e++) {
				const struct lesson_edit *ed = &s->solution[e];
				bool whole = false;
				int need = is_cell_edit(ed) && cells_of(s, ed, &whole) >= BLOCK_CELLS ? 0
				         : ed->kind == LESSON_EDIT_CONFIG && ed->field == LESSON_Q_HEADS
				             ? (ed->value < s->cfg.h ? 1 : ed->value > s->cfg.h ? 2 : -1)
				             : -1;
				if (need < 0)
					continue;
				checked++;
				if (!taught[need])
					fail_msg("%s step '%s': its solution needs %s, which no step's words have taught yet",
					         l->stem, s->id, keys[need]);
			}
		}
	}
	assert_true(checked >= 10);
}

static void test_whole_matrix_and_block_edits_name_the_scale_key(void **state)
{
	(void)state;
	assert_true(each_step(names_the_scale_key) >= 8); /* L2 role-v, L3, L4, L5 x2, L6, L11, L12 */
}

/* The step's heading and its first paragraph, as the pane wraps them. */
static int first_lines(const struct lesson *l, int si)
{
	const struct lesson_step *s = &l->steps[si];
	char heading[256], *para = strdup(s->prose);
	assert_non_null(para);
	char *end = strstr(para, "\n\n");
	if (end)
		*end = '\0';
	snprintf(heading, sizeof heading, "Step %d of %d%s%s", si + 1, l->nsteps, s->title[0] ? ": " : "",
	         s->title);
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_wrap(&t, heading, PANE_WIDTH, LESSON_LINE_TITLE, NULL, NULL), 0);
	assert_int_equal(lesson_wrap(&t, para, PANE_WIDTH, LESSON_LINE_PROSE, NULL, NULL), 0);
	int n = t.count;
	lesson_text_free(&t);
	free(para);
	return n;
}

/* Does the step ask for more than an answer (an edit, a switch)? */
static bool has_task(const struct lesson_step *s)
{
	for (int i = 0; i < s->ngoals; i++)
		if (s->goals[i].kind != LESSON_COND_ANSWER)
			return true;
	return false;
}

static int instruction_in_view(const struct lesson *l, int si)
{
	const struct lesson_step *s = &l->steps[si];
	if (!lesson_step_is_exercise(s) || !has_task(s) || !s->prose[0])
		return 0;
	int n = first_lines(l, si);
	if (n > PANE_LINES)
		fail_msg("%s step '%s': heading and first paragraph take %d lines at %d columns; the "
		         "pane shows %d: put what to do first, shorter", l->stem, s->id, n, PANE_WIDTH,
		         PANE_LINES);
	return 1;
}

static void test_what_to_do_comes_first_within_the_lines_the_pane_shows(void **state)
{
	(void)state;
	assert_true(each_step(instruction_in_view) >= 25);
}

static int verbatim_fits(const struct lesson *l, int si)
{
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_wrap(&t, l->steps[si].prose, 1000, LESSON_LINE_PROSE, NULL, NULL), 0);
	int checked = 0;
	for (int i = 0; i < t.count; i++) {
		if (t.lines[i].kind != LESSON_LINE_VERBATIM)
			continue;
		checked++;
		if (lesson_utf8_width(t.lines[i].text) > PANE_WIDTH)
			fail_msg("%s step '%s': verbatim line wider than %d columns: \"%s\"", l->stem,
			         l->steps[si].id, PANE_WIDTH, t.lines[i].text);
	}
	lesson_text_free(&t);
	return checked;
}

static void test_verbatim_lines_fit_the_narrow_pane(void **state)
{
	(void)state;
	assert_true(each_step(verbatim_fits) >= 20);
}

/* "Lesson N: title" is the pane's heading at 80x24: a longer title is cut
 * with an ellipsis there, and cut shorter still in the lesson menu. */
/* Hints escalate: a nudge, a method, then something close to the answer,
 * so that no exercise gives its answer away in its first hint; and a
 * multiple-choice question offers at least three choices (a coin toss is
 * no question). */
static int hints_escalate(const struct lesson *l, int si)
{
	const struct lesson_step *s = &l->steps[si];
	if (!lesson_step_is_exercise(s))
		return 0;
	if (s->nhints < 3)
		fail_msg("%s step '%s': %d hint(s); give three, from a nudge to near the answer",
		         l->stem, s->id, s->nhints);
	if (s->question && s->question->nchoices > 0 && s->question->nchoices < 3)
		fail_msg("%s step '%s': %d choices; offer at least three plausible ones", l->stem, s->id,
		         s->question->nchoices);
	return 1;
}

/* A step that sends the learner somewhere says how to get there: no
 * "two steps on" (the learner cannot tell which step that is), and a step
 * that mentions the training screen names its key ({key:train}). Issue
 * 24: lesson 14 said "two steps on" and "Try it on the training screen". */
static int says_how_to_get_there(const struct lesson *l, int si)
{
	const struct lesson_step *s = &l->steps[si];
	static const char *const vague[] = { " two steps on", " three steps on", " steps back)" };
	for (size_t i = 0; i < sizeof vague / sizeof *vague; i++)
		if (strstr(s->prose, vague[i]))
			fail_msg("%s step '%s': \"%s\" does not say which step (name it, or its key)", l->stem, s->id,
			         vague[i] + 1);
	if (strstr(s->prose, "training screen") && !strstr(s->prose, "{key:train}"))
		fail_msg("%s step '%s': mentions the training screen without its key {key:train}", l->stem, s->id);
	return 1;
}

static void test_a_step_says_how_to_reach_what_it_points_at(void **state)
{
	(void)state;
	assert_true(each_step(says_how_to_get_there) >= 100);
}

static void test_every_exercise_has_three_hints_and_real_choices(void **state)
{
	(void)state;
	assert_true(each_step(hints_escalate) >= 60);
}

static void test_lesson_titles_fit_the_narrow_pane_heading(void **state)
{
	(void)state;
	for (int li = 0; li < set.count; li++) {
		char heading[256];
		snprintf(heading, sizeof heading, "Lesson %d: %s", set.lessons[li].number,
		         set.lessons[li].title);
		if (lesson_utf8_width(heading) > PANE_WIDTH)
			fail_msg("%s: \"%s\" is wider than the %d-column pane: shorten the title",
			         set.lessons[li].stem, heading, PANE_WIDTH);
	}
}

/* Does any figure of the counts panel for configuration c equal v? */
static bool counts_show(const struct mha_config *c, double v)
{
	struct mha_counts k = mha_counts(c);
	const int64_t shown[] = { k.params_wq, k.params_wk, k.params_wv, k.params_wo,
	                          k.params_total, k.flops_projection, k.flops_scores,
	                          k.flops_softmax, k.flops_weighted_sum, k.flops_output,
	                          k.flops_total, k.kv_cache_per_token };
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
		if ((double)shown[i] == v)
			return true;
	return false;
}

static bool hides_counts(const struct lesson_step *s)
{
	for (int i = 0; i < s->nhides; i++)
		if (s->hides[i].kind == LESSON_HIDE_COUNTS)
			return true;
	return false;
}

/* Predict, then reveal: a numeric question whose answer is a count must
 * not find it in the counts panel of its own step (unless hidden there)
 * nor of the step before, which the learner has just been looking at. */
static int count_not_shown_early(const struct lesson *l, int si)
{
	const struct lesson_step *s = &l->steps[si];
	if (!s->question || s->question->nchoices > 0 || s->question->value < 10)
		return 0;
	double v = s->question->value;
	if (!hides_counts(s) && counts_show(&s->cfg, v))
		fail_msg("%s step '%s': the answer %g is in the counts panel: @hide counts",
		         l->stem, s->id, v);
	if (si > 0 && counts_show(&l->steps[si - 1].cfg, v))
		fail_msg("%s step '%s': the answer %g is in the counts panel of the step before, "
		         "'%s'", l->stem, s->id, v, l->steps[si - 1].id);
	return 1;
}

static void test_no_count_a_question_asks_for_is_on_screen_before(void **state)
{
	(void)state;
	assert_true(each_step(count_not_shown_early) >= 5);
}

static void test_the_count_rule_catches_a_total_shown_the_step_before(void **state)
{
	(void)state;
	const struct lesson *l = lesson_set_find(&set, "counting");
	assert_non_null(l);
	int si = lesson_step_index(l, "params-all");
	assert_true(si > 0);
	/* the base layer's total, shown by the step before */
	assert_true(counts_show(&l->steps[si - 1].cfg, 1048576));
	assert_false(counts_show(&l->steps[si - 1].cfg, l->steps[si].question->value));
}

/* Each test must be able to fail: the rules catch a step written the old way. */
static void test_the_rules_catch_a_step_that_does_not_say_where(void **state)
{
	(void)state;
	const struct lesson *l = lesson_set_find(&set, "one-head");
	assert_non_null(l);
	int si = lesson_step_index(l, "steer");
	assert_true(si >= 0);
	struct lesson_step *s = &l->steps[si];
	const char *keep = s->prose;
	s->prose = "Now make token 2, \"sat\", attend most to token 1, \"cat\". Because X is the "
	           "identity, Q = W^Q: row 2 of W^Q is the query of \"sat\", and token 1's key is "
	           "(0, 1, 0, 0). Edit W^Q (move the cursor with the arrows, type a value with "
	           "{key:edit}) until the heaviest weight in row 2 of P sits in column 1. The "
	           "instruction at the end of a long paragraph is out of sight.";
	assert_false(says(s->prose, "press 1"));
	assert_true(first_lines(l, si) > PANE_LINES);
	s->prose = keep;
	assert_true(says(s->prose, "press 1"));
	assert_true(first_lines(l, si) <= PANE_LINES);
	bool whole = false;
	const struct lesson *scores = lesson_set_find(&set, "scores-scale");
	const struct lesson_step *fold = &scores->steps[lesson_step_index(scores, "fold-into-wq")];
	assert_int_equal(cells_of(fold, &fold->solution[1], &whole), 256 * 256);
	assert_true(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edits_on_another_stage_say_which_stage_key_to_press),
		cmocka_unit_test(test_whole_matrix_and_block_edits_name_the_scale_key),
		cmocka_unit_test(test_keys_a_solution_needs_are_taught_before_the_hints),
		cmocka_unit_test(test_what_to_do_comes_first_within_the_lines_the_pane_shows),
		cmocka_unit_test(test_verbatim_lines_fit_the_narrow_pane),
		cmocka_unit_test(test_lesson_titles_fit_the_narrow_pane_heading),
		cmocka_unit_test(test_every_exercise_has_three_hints_and_real_choices),
		cmocka_unit_test(test_a_step_says_how_to_reach_what_it_points_at),
		cmocka_unit_test(test_no_count_a_question_asks_for_is_on_screen_before),
		cmocka_unit_test(test_the_count_rule_catches_a_total_shown_the_step_before),
		cmocka_unit_test(test_the_rules_catch_a_step_that_does_not_say_where),
	};
	return cmocka_run_group_tests_name("lesson curriculum", tests, load, unload);
}
