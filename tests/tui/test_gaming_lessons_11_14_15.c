/*
 * test_gaming_lessons_11_14_15.c - tricks a gaming learner used on lessons 11, 14
 * and 15 (flash-attention, specialised-heads, heads-apart), replayed: each
 * used to earn its step without the idea, and must not any more.
 *
 *   - reading a tile prediction's answer off a later step's view: n from
 *     an unanswered prediction, every later step of the lesson drawn at
 *     80x24 must not print the answer (the view stops before the step the
 *     earlier question predicts; F in a step without @flash waits), unless
 *     going on already forfeited the step (then it is shown, not earned);
 *   - shift by hill-climbing: the cursor that c puts in W^K lands on
 *     row 0, the row that shifts every score of a row alike, so + pressed
 *     until S₀[2,0] passed 1 earned it (P never moved); now a prediction
 *     gates it;
 *   - real-row by the numbers on screen: its answer was one of query 5's
 *     m and the tile's two scores, so three tries typed them all;
 *   - the training screen's tables: G in a question step of lessons 14
 *     and 15 waits for the answer, and n from inside the screen leaves it;
 *     and the screen stays shut, whatever view is opened at whatever
 *     step, until every prediction it answers is made (the own-Table-3
 *     rows, e and s were on it at the watch, ablate and depth steps
 *     before the Table 3, ensemble, labour and copies questions).
 *
 * Not here: the generic strategies (always one letter, hill-climbing),
 * which test_blind_learner.c and the climber's tests cover.
 */
#include <curses.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "draw.h"
#include "flash_view.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "progress.h"
#include "setup.h"
#include "tui_check.h"
#include "vscreen.h"

enum { SCREEN_MAX = 64 * 1024 };

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-gaming-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

static const char *screen(struct app *app)
{
	app->now_ms = 1000000;
	return tui_check_screen(app, 24, 80, false);
}

static int lesson_index(const char *name)
{
	const struct lesson *l = lesson_set_find(&set, name);
	assert_non_null(l);
	return (int)(l - set.lessons);
}

/* Every l, rescale or o question of lesson 11, left unanswered: no later
 * step of the lesson shows its number as the view prints it. Going on with
 * n forfeits the step now (learn.c); a later step opened with the earlier
 * one neither done nor shown (a place saved by an older build, or any way
 * round that rule) must still not show it, nor let F show it. */
static void test_a_later_step_does_not_show_an_unanswered_tile(void **state)
{
	(void)state;
	int li = lesson_index("flash-attention"), checked = 0;
	const struct lesson *l = &set.lessons[li];
	for (int si = 0; si < l->nsteps; si++) {
		const struct lesson_question *q = l->steps[si].question;
		if (!q || !q->flash || q->flash->qty == LESSON_FLASH_M)
			continue; /* m is a score on S by its nature */
		struct app *asked = tui_check_open_step(&set, set.lessons[li].name, l->steps[si].id);
		double v;
		char want[32];
		assert_true(lesson_run_expected(&asked->learn.run, &v));
		tui_check_close(asked);
		snprintf(want, sizeof want, q->flash->qty == LESSON_FLASH_RESCALE ? "x%.3g" : "%.3f", v);
		for (int k = si + 1; k < l->nsteps; k++) {
			struct app *app = tui_check_open_step(&set, set.lessons[li].name, l->steps[k].id);
			if (!l->steps[k].flash)
				tui_check_keys(app, "3F"); /* the free tiles wait */
			const char *text = screen(app);
			if (strstr(text, want))
				fail_msg("step %s unanswered: its answer %s shows at step %s:\n%s",
				         l->steps[si].id, want, l->steps[k].id, text);
			if (!l->steps[k].flash)
				assert_ptr_not_equal(app->mode, &flash_mode);
			tui_check_close(app);
		}
		checked++;
	}
	assert_true(checked >= 4); /* rescale, l twice, o (and real-row's l) */
}

/* Once the earlier prediction is answered, the later step shows its tile
 * as before: the limit costs the learner who answers nothing. */
static void test_an_answered_tile_shows_in_the_next_step(void **state)
{
	(void)state;
	int li = lesson_index("flash-attention");
	struct app *app = tui_check_open_step(&set, set.lessons[li].name, "rescale");
	double v;
	assert_true(lesson_run_expected(&app->learn.run, &v));
	char line[48];
	snprintf(line, sizeof line, "a%.6f\n", v);
	tui_check_keys(app, line);
	assert_true(app->learn.run.met);
	tui_check_next_step(app);
	assert_ptr_equal(app->mode, &flash_mode);
	assert_int_equal(flash_view_hidden_step(app), 2); /* no-growth's own: step 3 */
	assert_int_equal(flash_view_step(app), 1);
	tui_check_close(app);
}

/* shift: + on the highlighted cell, eighty times, lifts S₀[2,0] past 1
 * with P unchanged, and still earns nothing before the prediction. */
static void test_shift_is_not_climbed_with_plus(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, set.lessons[lesson_index("flash-attention")].name, "shift");
	tui_check_keys(app, "1"); /* the step shows K, the cursor on its highlighted W^K[0,0] */
	for (int i = 0; i < 80; i++)
		tui_check_keys(app, "+");
	const float *s = app->a.scores; /* head 0 */
	assert_true(s[2 * app->cfg.n + 0] > 1.0f); /* the climb itself works */
	assert_false(app->learn.run.met);
	tui_check_close(app);
}

/* real-row: typing query 5's m and the tile's two scores (the numbers a
 * learner without the idea tries) spends the three tries and earns nothing. */
static void test_real_row_is_not_one_of_the_numbers_on_screen(void **state)
{
	(void)state;
	int li = lesson_index("flash-attention");
	struct app *app = tui_check_open_step(&set, set.lessons[li].name, "real-row");
	const int n = app->cfg.n;
	const float *s5 = app->a.scores + (size_t)5 * n; /* head 0, query 5 */
	double tries[3] = { app->learn.run.live.m0, s5[2], s5[3] };
	for (int i = 0; i < 3; i++) {
		char line[48];
		snprintf(line, sizeof line, "a%.3f\n", tries[i]);
		tui_check_keys(app, line);
		assert_false(app->learn.run.met);
	}
	assert_int_equal(app->learn.run.wrong, 3);
	assert_true(flash_view_hidden_step(app) >= 0);
	tui_check_close(app);
}

/* The predictions of lessons specialised-heads and heads-apart that the
 * training screen answers (its tables, e, a, s): none may be read there
 * before it is made. */
static const struct {
	const char *lesson, *steps[4];
} screen_answers[] = {
	{ "specialised-heads", { "read-ind", "knock-out", "predict-table3", NULL } },
	{ "heads-apart", { "copies", "near-far", "ensemble", "labour" } },
};

/* The first of lesson i's screen-answered predictions not yet answered
 * right (nor shown) in app's progress, or NULL. */
static const char *open_prediction(const struct app *app, size_t i)
{
	for (int k = 0; k < 4 && screen_answers[i].steps[k]; k++) {
		char key[256];
		snprintf(key, sizeof key, "%s/%s", screen_answers[i].lesson, screen_answers[i].steps[k]);
		if (!progress_is_done(&app->learn.progress, key) && !progress_is_shown(&app->learn.progress, key))
			return screen_answers[i].steps[k];
	}
	return NULL;
}

/* A view opened now: not the training screen while one of lesson *i's
 * screen-answered predictions waits. */
static void view_trains_not_early(struct app *app, const struct mode_ops *view, void *i)
{
	const char *waiting = open_prediction(app, *(size_t *)i);
	if (app->mode == &train_mode && waiting)
		fail_msg("%s step %s: %s opens the training screen, which answers %s, still to be predicted",
		         screen_answers[*(size_t *)i].lesson, lesson_run_step(&app->learn.run)->id, view->name, waiting);
}

/* Every view opened now: the training screen does not open while one of
 * lesson i's screen-answered predictions waits. */
static void no_view_trains_early(struct app *app, size_t i)
{
	tui_check_each_view(app, view_trains_not_early, &i);
}

/* Lessons specialised-heads and heads-apart played through from their
 * first step: at every step, before its answer and after, every view is
 * opened, and the training screen stays shut until every prediction it
 * answers is made (the own-Table-3 rows were one a away at the watch and
 * ablate steps, e and s there answered the ensemble, labour and copies
 * questions). Each question is then answered right, so the lessons stay
 * earnable, and the training screen opens after the last prediction. */
static void test_the_training_screen_answers_no_prediction_early(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof screen_answers / sizeof *screen_answers; i++) {
		int li = lesson_index(screen_answers[i].lesson);
		const struct lesson *l = &set.lessons[li];
		struct app *app = tui_check_open_at(&set, li, 0);
		bool opened = false;
		for (;;) {
			const struct lesson_step *st = lesson_run_step(&app->learn.run);
			no_view_trains_early(app, i);
			if (st->question) {
				char keys[64];
				const char *ans = st->question->answer; /* a number without its tolerance */
				snprintf(keys, sizeof keys, st->question->nchoices ? "a%.*s" : "a%.*s\n", (int)strcspn(ans, " "), ans);
				tui_check_keys(app, keys);
				if (!app->learn.run.answer_right)
					fail_msg("step %s: %s refused (%s)", st->id, keys, app->status);
				no_view_trains_early(app, i);
			}
			if (!open_prediction(app, i) && !opened) {
				tui_check_keys(app, "G");
				opened = app->mode == &train_mode;
				if (app->mode != mode_workbench(app))
					tui_check_keys(app, "\x1b");
			}
			int was = app->learn.run.step;
			tui_check_next_step(app);
			if (app->learn.run.step == was || app->learn.run.lesson != l)
				break;
		}
		assert_null(open_prediction(app, i));
		assert_true(opened);
		tui_check_close(app);
	}
}

/* Every choice question of specialised-heads and heads-apart: G waits for
 * the answer, in its step and in the step before, and a training screen
 * opened before the question (a step after the lesson's predictions) is
 * left by n. */
static void test_the_training_screen_waits_for_the_answer(void **state)
{
	(void)state;
	const char *names[] = { "specialised-heads", "heads-apart" };
	int checked = 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		int li = lesson_index(names[i]);
		const struct lesson *l = &set.lessons[li];
		for (int si = 1; si < l->nsteps; si++) {
			if (!l->steps[si].question || l->steps[si].question->nchoices == 0)
				continue;
			struct app *app = tui_check_open_step(&set, set.lessons[li].name, l->steps[si - 1].id);
			tui_check_keys(app, "G");
			assert_ptr_not_equal(app->mode, &train_mode);
			tui_check_next_step(app);
			assert_int_equal(app->learn.run.step, si);
			tui_check_keys(app, "G");
			if (app->mode == &train_mode)
				fail_msg("lesson %d step %s: G opens the training screen before the answer",
				         l->number, l->steps[si].id);
			tui_check_close(app);
			checked++;
		}
	}
	assert_true(checked >= 8);
	/* the screen opened after the predictions goes when n leaves its step */
	struct app *app = tui_check_open_step(&set, "specialised-heads", "watch");
	tui_check_keys(app, "G");
	assert_ptr_equal(app->mode, &train_mode);
	tui_check_next_step(app);
	assert_ptr_not_equal(app->mode, &train_mode);
	tui_check_close(app);
}

/* o on the training screen puts a trained layer into the workbench: not
 * over a lesson's bench, whose goals would then be checked on the trained
 * layer instead of on what the learner did. */
static void test_o_does_not_put_a_trained_layer_over_a_lesson(void **state)
{
	(void)state;
	int li = lesson_index("specialised-heads");
	struct app *app = tui_check_open_step(&set, set.lessons[li].name, "watch"); /* after the predictions */
	int n = app->cfg.n;
	tui_check_keys(app, "G");
	assert_ptr_equal(app->mode, &train_mode);
	tui_check_keys(app, "o");
	assert_ptr_equal(app->mode, &train_mode);
	assert_int_equal(app->cfg.n, n);
	assert_non_null(strstr(app->status, "free workbench"));
	tui_check_close(app);
}

/* how-big (issue 24 item 9): it asked one head's n x n at n = 4096, the
 * question's number squared, 2^24, its hints 'n x n' and '4096 x 4096'.
 * Now every head of a 6,000-token layer: the question's number squared
 * (one head), the outputs' size and the causal half spend the tries; the
 * count earns it. */
static void test_how_big_is_not_the_question_s_number_squared(void **state)
{
	(void)state;
	const char *name = set.lessons[lesson_index("flash-attention")].name;
	tui_check_forfeits(tui_check_open_step(&set, name, "how-big"), "a16777216\na3072000\na36000000\n",
	                   "each of the 8 heads", "a288000000\n");
	tui_check_earns(tui_check_open_step(&set, name, "how-big"), "a288,000,000\n");
}

/* read-ind (issue 24 item 9): it asked which pattern L0's best head
 * follows, which the step before had just answered (a head below writes
 * "A came before me" into B). Now where an ind head looks on a sequence:
 * the other patterns' positions (dup, prev, the earlier copy of the token
 * before) spend the one try; the token after the earlier copy earns it. */
static void test_read_ind_needs_the_token_after_the_earlier_copy(void **state)
{
	(void)state;
	const char *name = set.lessons[lesson_index("specialised-heads")].name;
	tui_check_forfeits(tui_check_open_step(&set, name, "read-ind"), "aa", "dup", "ac");
	tui_check_forfeits(tui_check_open_step(&set, name, "read-ind"), "ab", "prev", "ac");
	tui_check_forfeits(tui_check_open_step(&set, name, "read-ind"), "ad", "one step on", "ac");
	tui_check_earns(tui_check_open_step(&set, name, "read-ind"), "ac");
}

int main(void)
{
	setlocale(LC_CTYPE, "C");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_later_step_does_not_show_an_unanswered_tile),
		cmocka_unit_test(test_an_answered_tile_shows_in_the_next_step),
		cmocka_unit_test(test_shift_is_not_climbed_with_plus),
		cmocka_unit_test(test_real_row_is_not_one_of_the_numbers_on_screen),
		cmocka_unit_test(test_the_training_screen_waits_for_the_answer),
		cmocka_unit_test(test_the_training_screen_answers_no_prediction_early),
		cmocka_unit_test(test_o_does_not_put_a_trained_layer_over_a_lesson),
		cmocka_unit_test(test_how_big_is_not_the_question_s_number_squared),
		cmocka_unit_test(test_read_ind_needs_the_token_after_the_earlier_copy),
	};
	return cmocka_run_group_tests_name("gaming_lessons_11_14_15", tests, group_setup, group_teardown);
}
