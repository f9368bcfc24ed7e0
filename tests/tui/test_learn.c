/*
 * test_learn.c - the workbench driving the shipped lessons by keys, with
 * no screen: the menu opens lesson 1, n / p step and select the focused
 * stage, a numeric and a multiple-choice answer reveal what was hidden,
 * an edit meets a goal (and the step is recorded done), hints and the
 * solution, the free workbench kept apart from the lesson and come back
 * to, progress and place saved and resumed, every {key:ACTION} bound, and
 * the workbench still working when no lessons are found.
 */
#include <curses.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mode.h"
#include "app.h"
#include "learn.h"
#include "learn_focus.h"
#include "ref.h"
#include "lesson.h"
#include "pane.h"
#include "lesson_pane.h"
#include "session.h"
#include "tui_check.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-learn-XXXXXX";
static char progress_path[128], session_path[128];

static int group_setup(void **state)
{
	(void)state;
	if (tui_check_lessons_open(&set, dir) != 0)
		return -1;
	snprintf(progress_path, sizeof progress_path, "%s/progress.txt", dir);
	snprintf(session_path, sizeof session_path, "%s/session.txt", dir);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return tui_check_lessons_close(&set, dir);
}

/* Each test starts with no progress file and no session. */
static int fresh(void **state)
{
	(void)state;
	unlink(progress_path);
	unlink(session_path);
	char pattern[160];
	glob_t g;
	snprintf(pattern, sizeof pattern, "%s/lesson-bench*.txt", dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
		globfree(&g);
	}
	return 0;
}

static struct app *open_app(const struct lesson_set *s)
{
	struct app *app = calloc(1, sizeof *app);
	struct mha_config c = mha_config_default();
	struct mha_weights w;
	char msg[MHA_MSG_MAX];
	assert_int_equal(mha_weights_alloc(&w, &c), MHA_OK);
	mha_weights_init(&w, &c, c.seed);
	mha_weights_default_labels(&w, &c);
	assert_int_equal(app_init(app, tui_modes, &c, &w, msg, sizeof msg), 0);
	app->save.session_path = session_path;
	learn_attach(app, s, s ? "" : "tried: /nowhere (no such directory)", progress_path);
	return app;
}

static void close_app(struct app *app)
{
	app_free(app);
	free(app);
}

static const char *step_id(const struct app *app)
{
	return lesson_run_step(&app->learn.run)->id;
}

/* Lesson 1 open through the menu, at step `id`. */
static struct app *lesson1_at(const char *id)
{
	struct app *app = open_app(&set);
	tui_check_keys(app, "M1\n");
	while (app->learn.active && strcmp(step_id(app), id) != 0 && app->learn.run.step < 10)
		tui_check_keys(app, "n");
	assert_string_equal(step_id(app), id);
	return app;
}

static bool file_has(const char *path, const char *text)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

static void test_the_menu_opens_lesson_one_on_its_own_bench(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	assert_false(app->learn.active);
	float x0 = app->w.x[0];
	tui_check_keys(app, "M");
	assert_ptr_equal(app->mode, &menu_mode);
	tui_check_keys(app, "j1"); /* Down, then the number picks lesson 1 again */
	assert_int_equal(app->learn.menu_sel, 0);
	tui_check_keys(app, "\n");
	assert_ptr_not_equal(app->mode, &menu_mode);
	assert_true(app->learn.active);
	assert_int_equal(app->learn.lesson, 0);
	assert_int_equal(app->learn.run.step, 0);
	assert_int_equal(app->cfg.n, 4); /* the lesson's set-up */
	assert_int_equal(app->stage, PIPELINE_PROJECTION);
	/* the free session waits, untouched */
	assert_int_equal(app->learn.other.cfg.n, 6);
	assert_float_equal(app->learn.other.w.x[0], x0, 0.0f);
	close_app(app);
}

/* A prompt opened from the menu returns to the menu: the menu stays on
 * screen under it and has the keys again after Esc. */
static void test_a_prompt_opened_from_the_menu_returns_to_it(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	tui_check_keys(app, "M");
	assert_ptr_equal(app->mode, &menu_mode);
	tui_check_keys(app, "*"); /* not a menu key: the table's, on the cursor's X cell */
	assert_ptr_equal(app->mode, &scale_prompt_mode);
	assert_ptr_equal(mode_base(app), &menu_mode);
	tui_check_keys(app, "\033");
	assert_ptr_equal(app->mode, &menu_mode);
	tui_check_keys(app, "\033");
	assert_ptr_equal(app->mode, &workbench_mode);
	close_app(app);
}

static void test_two_digits_pick_lesson_thirteen(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	tui_check_keys(app, "M13");
	assert_int_equal(set.lessons[app->learn.menu_sel].number, 13);
	tui_check_keys(app, "\033"); /* Esc: the menu goes, nothing opened */
	assert_ptr_not_equal(app->mode, &menu_mode);
	assert_false(app->learn.active);
	close_app(app);
}

static void test_n_and_p_step_and_select_the_focused_stage(void **state)
{
	(void)state;
	struct app *app = lesson1_at("idea");
	tui_check_keys(app, "n");
	assert_string_equal(step_id(app), "scores");
	assert_int_equal(app->stage, PIPELINE_SCORES);
	tui_check_keys(app, "1p");
	assert_string_equal(step_id(app), "idea");
	assert_int_equal(app->stage, PIPELINE_PROJECTION);
	tui_check_keys(app, "p"); /* no step before the first */
	assert_string_equal(step_id(app), "idea");
	close_app(app);
}

static void test_only_a_right_answer_reveals_the_hidden_stage_and_meets_the_goal(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	assert_true(learn_hidden(app, MHA_T_WEIGHTS, 0, 0, 0));
	assert_false(learn_hidden(app, MHA_T_SCORES, 0, 0, 0));
	tui_check_keys(app, "aabc\n"); /* not a number: refused, still hidden */
	assert_true(app->status_error);
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "a0.7\n"); /* no reason of its own: the status points at the hints */
	assert_non_null(strstr(app->status, "answer 0.7: not quite: try again (2 tries left); i gives a hint"));
	tui_check_keys(app, "a0.5\n"); /* wrong: still hidden (P would give 0.22 away), not met */
	assert_non_null(strstr(app->status, "0.5 is the score"));
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	assert_true(learn_hidden(app, MHA_T_WEIGHTS, 0, 0, 0));
	assert_null(strstr(app->status, "revealed"));
	assert_false(app->learn.run.met);
	tui_check_keys(app, "a0.22\n");
	assert_true(app->learn.run.met);
	assert_false(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	assert_true(file_has(progress_path, "done one-head/predict-self"));
	close_app(app);
}

/* The solution (S) shows what a wrong answer left hidden; the step is
 * then shown, not done (doc/SESSION.md). */
static void test_the_solution_reveals_what_a_wrong_answer_left_hidden_and_is_not_earned(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	tui_check_keys(app, "a0.5\n");
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "S");
	assert_false(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	assert_true(app->learn.run.met);
	/* solved for the learner: shown, not done, and the answer not kept */
	assert_non_null(strstr(app->status, "not counted as done"));
	assert_true(file_has(progress_path, "shown one-head/predict-self"));
	assert_false(file_has(progress_path, "done one-head/predict-self"));
	assert_false(file_has(progress_path, "answered one-head/predict-self"));
	close_app(app);
}

/* The S, p, n trick: once shown, a step stays shown. Meeting its goal by
 * hand afterwards (after p and n, or in a new run) earns nothing: no
 * 'done' line, and the menu does not count it. */
static void test_a_step_once_shown_stays_shown_when_met_again_by_hand(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	const struct lesson *les = learn_lesson(app);
	int steps, done, shown;
	tui_check_keys(app, "S");
	tui_check_keys(app, "pn");
	assert_string_equal(step_id(app), "predict-self");
	assert_false(app->learn.run.met);
	tui_check_keys(app, "a0.22\n"); /* the solution, retyped */
	assert_true(app->learn.run.met);
	assert_non_null(strstr(app->status, "counted as shown, not done"));
	lesson_progress_counts(les, &app->learn.progress, &steps, &done, &shown);
	assert_int_equal(done, 0);
	assert_int_equal(shown, 1);
	assert_true(file_has(progress_path, "shown one-head/predict-self"));
	assert_false(file_has(progress_path, "done one-head/predict-self"));
	close_app(app);
	app = lesson1_at("predict-self"); /* a restart */
	tui_check_keys(app, "a0.22\n");
	assert_true(app->learn.run.met);
	assert_false(file_has(progress_path, "done one-head/predict-self"));
	assert_false(progress_is_done(&app->learn.progress, "one-head/predict-self"));
	close_app(app);
}

/* Brute force earns nothing: three wrong numbers (p and n between them
 * do not give the tries back), then the right one shows the rest, and the
 * step is shown, not done. */
static void test_three_wrong_numbers_then_right_is_shown_not_done(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	tui_check_keys(app, "a0.5\na0.6\n");
	assert_non_null(strstr(app->status, "1 try left"));
	tui_check_keys(app, "pn");
	tui_check_keys(app, "a0.7\n");
	assert_non_null(strstr(app->status, "no tries left"));
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "a0.22\n");
	assert_true(app->learn.run.met);
	assert_false(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	assert_true(file_has(progress_path, "shown one-head/predict-self"));
	assert_false(file_has(progress_path, "done one-head/predict-self"));
	close_app(app);
}

/* While Softmax is hidden the views that would show P (decode, masks,
 * head analysis) or the counts (KV cache) are refused; once answered
 * right they open. */
static void test_views_that_would_show_a_hidden_answer_wait_for_it(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	static const char views[] = "oPgA";
	for (const char *k = views; *k; k++) {
		char one[2] = { *k, 0 };
		tui_check_keys(app, one);
		assert_ptr_equal(app->mode, &workbench_mode);
		assert_non_null(strstr(app->status, "not until the question is answered right"));
	}
	tui_check_keys(app, "a0.22\n");
	assert_false(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "o");
	assert_ptr_not_equal(app->mode, &workbench_mode);
	close_app(app);
}

/* An answer longer than the line holds is refused whole, not cut to
 * what fitted: the question stays open and the stage hidden. */
static void test_an_answer_too_long_to_hold_is_refused(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	tui_check_keys(app, "a0.22000000000000000000000000000000001\n");
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "more than 31 characters"));
	assert_ptr_not_equal(app->mode, &answer_prompt_mode);
	assert_false(app->learn.run.answered);
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "a0.22\n"); /* the next answer starts afresh */
	assert_true(app->learn.run.met);
	close_app(app);
}

static void test_a_choice_key_answers_at_once(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	char msg[256];
	assert_int_equal(learn_open_id(app, "2", msg, sizeof msg), 0);
	while (strcmp(step_id(app), "which-role") != 0)
		tui_check_keys(app, "n");
	tui_check_keys(app, "ac"); /* c is a choice: committed without Enter */
	assert_ptr_not_equal(app->mode, &answer_prompt_mode);
	assert_true(app->learn.run.answered);
	assert_false(app->learn.run.met);
	tui_check_keys(app, "ab");
	assert_true(app->learn.run.met);
	close_app(app);
}

static void test_an_edit_meets_the_goal_from_the_cursor_the_step_placed(void **state)
{
	(void)state;
	struct app *app = lesson1_at("steer");
	assert_int_equal(app->stage, PIPELINE_SOFTMAX);
	assert_false(app->learn.run.met);
	tui_check_keys(app, "1"); /* the cursor waits on W^Q[2][0], the row the step highlights */
	assert_int_equal(app->proj, PROJ_Q);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].panel, 1);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].row, 2);
	assert_int_equal(app->cur[PIPELINE_PROJECTION].col, 0);
	assert_true(learn_marked(app, MHA_T_WQ, 0, 2, 1));
	assert_false(learn_marked(app, MHA_T_WQ, 0, 1, 1));
	tui_check_keys(app, "l\n3\n");
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f);
	assert_false(app->learn.run.met); /* the edit alone: the cell not said first */
	tui_check_keys(app, "ad");
	assert_true(app->learn.run.met);
	assert_non_null(strstr(app->status, "goal met"));
	assert_true(file_has(progress_path, "done one-head/steer"));
	/* the lesson's edit never reached the free session */
	tui_check_keys(app, "w");
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(session_path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(c.n, 6);
	mha_weights_free(&w);
	close_app(app);
}

static void test_hints_one_at_a_time_then_the_solution_and_its_undo(void **state)
{
	(void)state;
	struct app *app = lesson1_at("values");
	tui_check_keys(app, "i");
	assert_int_equal(app->learn.run.hints_shown, 1);
	assert_non_null(strstr(app->status, "hint 1 of 3"));
	tui_check_keys(app, "ii");
	assert_int_equal(app->learn.run.hints_shown, 3);
	tui_check_keys(app, "i");
	assert_non_null(strstr(app->status, "no more hints"));
	tui_check_keys(app, "S");
	assert_true(app->learn.run.solution_shown);
	assert_true(app->learn.run.met);
	assert_float_equal(app->w.wq[3 * 4 + 0], 4.0f, 0.0f);
	tui_check_keys(app, "u");
	assert_float_equal(app->w.wq[3 * 4 + 0], 0.0f, 0.0f); /* W^Q is the identity again */
	assert_false(app->learn.run.met);
	close_app(app);
}

/* Goals over whole matrices and head blocks (lessons 3 and 4) are met
 * with the * key, not cell by cell. */
static void test_blocks_multiplied_with_one_key_meet_their_goals(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	char msg[256];
	assert_int_equal(learn_open_id(app, "reshape", msg, sizeof msg), 0);
	while (strcmp(step_id(app), "only-head-1") != 0)
		tui_check_keys(app, "n");
	tui_check_keys(app, "1"); /* the cursor on W^Q[0][4], head 1's block */
	assert_int_equal(app->cur[PIPELINE_PROJECTION].col, 4);
	tui_check_keys(app, "ab"); /* the prediction first: head 1's scores only */
	tui_check_keys(app, "*\t10\n");
	assert_true(app->learn.run.met);
	struct mha_weights *w = &app->w;
	assert_true(w->wq[5] != 0.0f);
	tui_check_keys(app, "u");
	assert_false(app->learn.run.met);
	assert_int_equal(learn_open_id(app, "4", msg, sizeof msg), 0);
	while (strcmp(step_id(app), "fold-into-wq") != 0)
		tui_check_keys(app, "n");
	tui_check_keys(app, "a0.0625\ns1"); /* the factor said first */
	while (app->cur[PIPELINE_PROJECTION].panel != 1) /* c to W^Q */
		tui_check_keys(app, "c");
	tui_check_keys(app, "*0.0625\n");
	assert_true(app->learn.run.met);
	tui_check_keys(app, "*\t\t=2e6\n"); /* out of range: refused, nothing changed */
	assert_true(app->status_error);
	assert_true(app->learn.run.met);
	close_app(app);
}

static void test_the_free_workbench_and_back_keep_both_benches(void **state)
{
	(void)state;
	struct app *app = lesson1_at("steer");
	tui_check_keys(app, "ad1l\n3\n"); /* the cell said, then a lesson edit */
	tui_check_keys(app, "f");
	assert_false(app->learn.active);
	assert_int_equal(app->cfg.n, 6); /* the learner's own session */
	tui_check_keys(app, "1\n0.75\n"); /* a free edit */
	assert_true(file_has(progress_path, "mode free"));
	tui_check_keys(app, "n"); /* no lesson steps from the free workbench */
	assert_false(app->learn.active);
	tui_check_keys(app, "f");
	assert_true(app->learn.active);
	assert_string_equal(step_id(app), "steer");
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f); /* as it was left */
	assert_true(app->learn.run.met);
	assert_float_equal(app->learn.other.w.x[0], 0.75f, 0.0f);
	assert_true(file_has(progress_path, "mode lesson"));
	tui_check_keys(app, "q"); /* q saves the free session, not the lesson */
	struct mha_config c;
	struct mha_weights w;
	char msg[1024];
	assert_int_equal(session_load(session_path, &c, &w, msg, sizeof msg), 0);
	assert_float_equal(w.x[0], 0.75f, 0.0f);
	mha_weights_free(&w);
	close_app(app);
}

static void test_progress_and_place_resume_in_a_new_run(void **state)
{
	(void)state;
	struct app *app = lesson1_at("steer");
	close_app(app);
	assert_true(file_has(progress_path, "place one-head steer"));
	app = open_app(&set);
	learn_resume(app);
	assert_true(app->learn.active);
	assert_string_equal(step_id(app), "steer");
	assert_int_equal(app->stage, PIPELINE_SOFTMAX);
	tui_check_keys(app, "ff"); /* out to the free workbench (f twice: the question waits), then a new run */
	close_app(app);
	app = open_app(&set);
	learn_resume(app);
	assert_false(app->learn.active);
	int li, si;
	assert_true(learn_return_place(app, &li, &si));
	tui_check_keys(app, "f"); /* back, the step set up afresh */
	assert_true(app->learn.active);
	assert_string_equal(step_id(app), "steer");
	close_app(app);
}

/* A right answer stands after quit and resume: the step reopens answered,
 * its goal met and its hidden stage shown, not "Not yet" again. */
static void test_an_answer_given_survives_quit_and_resume(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	tui_check_keys(app, "a0.22\n");
	assert_true(app->learn.run.met);
	close_app(app);
	assert_true(file_has(progress_path, "answered one-head/predict-self 0.22"));
	app = open_app(&set);
	learn_resume(app);
	assert_string_equal(step_id(app), "predict-self");
	assert_true(app->learn.run.answered);
	assert_true(app->learn.run.met);
	assert_string_equal(app->learn.run.answer, "0.22");
	assert_null(strstr(app->learn.run.status, "Not yet"));
	assert_false(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	close_app(app);
}

/* A step left half done reopens as it was: its stage and cursor, the
 * hints used, the wrong answer given with its feedback (and what it hides
 * still hidden). */
static void test_a_step_reopens_with_its_stage_cursor_hints_and_wrong_answer(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	tui_check_keys(app, "a0.5\ni1");
	app->cur[app->stage] = (struct app_cursor){ .panel = 1, .row = 2, .col = 3 };
	close_app(app);
	assert_true(file_has(progress_path, "at one-head/predict-self stage=Projection panel=1 row=2 col=3 hints=1"));
	assert_true(file_has(progress_path, "tried one-head/predict-self 0.5"));
	app = open_app(&set);
	learn_resume(app);
	assert_string_equal(step_id(app), "predict-self");
	assert_int_equal(app->stage, PIPELINE_PROJECTION);
	assert_int_equal(app->cur[app->stage].panel, 1);
	assert_int_equal(app->cur[app->stage].row, 2);
	assert_int_equal(app->cur[app->stage].col, 3);
	assert_int_equal(app->learn.run.hints_shown, 1);
	assert_true(app->learn.run.answered);
	assert_false(app->learn.run.answer_right);
	assert_string_equal(app->learn.run.answer, "0.5");
	assert_non_null(lesson_run_feedback(&app->learn.run)); /* "0.5 is the score ..." */
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	assert_false(app->learn.run.met);
	close_app(app);
}

/* Leaving forward while the question waits (n, f, a later lesson from
 * the menu) would let the learner read the answer there and come back:
 * the first press only says so; the second leaves, and the step can then
 * only be shown, also after a restart. p stays free. */
static void test_skipping_a_waiting_question_forfeits_it(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self"); /* walked through prose steps only */
	tui_check_keys(app, "p"); /* backward: free */
	assert_string_equal(step_id(app), "scores");
	tui_check_keys(app, "n");
	assert_string_equal(step_id(app), "predict-self");
	tui_check_keys(app, "n");
	assert_string_equal(step_id(app), "predict-self"); /* warned, not moved */
	assert_non_null(strstr(app->status, "n again leaves it"));
	assert_false(app->learn.run.unearned);
	tui_check_keys(app, "n");
	assert_string_equal(step_id(app), "steer"); /* the next step read ... */
	tui_check_keys(app, "p");
	assert_string_equal(step_id(app), "predict-self");
	assert_true(app->learn.run.unearned);
	tui_check_keys(app, "a0.22\n"); /* ... and the answer brought back */
	assert_true(app->learn.run.met);
	assert_true(file_has(progress_path, "shown one-head/predict-self"));
	assert_false(file_has(progress_path, "done one-head/predict-self"));
	tui_check_keys(app, "n");
	assert_string_equal(step_id(app), "steer"); /* answered: n moves at once */
	tui_check_keys(app, "f");
	assert_true(app->learn.active); /* f warned too */
	tui_check_keys(app, "f");
	assert_false(app->learn.active);
	close_app(app);
	app = open_app(&set); /* a restart: the skipped step stays forfeited */
	learn_resume(app);
	tui_check_keys(app, "f");
	assert_true(app->learn.active);
	assert_string_equal(step_id(app), "steer");
	assert_true(app->learn.run.unearned);
	tui_check_keys(app, "ad1l\n3\n");
	assert_true(app->learn.run.met);
	assert_true(file_has(progress_path, "shown one-head/steer"));
	assert_false(file_has(progress_path, "done one-head/steer"));
	close_app(app);
}

/* Each way out warns once itself: n warned, then f warns again rather
 * than leaving; from the menu, a forward pick warns and the menu stays
 * up, and Enter again leaves (review: the flag was shared, and the menu
 * closed while saying "Enter again"). */
static void test_each_way_out_of_a_waiting_question_warns_itself(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	tui_check_keys(app, "n");
	assert_string_equal(step_id(app), "predict-self");
	tui_check_keys(app, "f");
	assert_true(app->learn.active); /* warned for f, not taken as n's second press */
	assert_false(app->learn.run.unearned);
	assert_non_null(strstr(app->status, "f again leaves it"));
	tui_check_keys(app, "in"); /* a hint in between: n warns again, it does not leave */
	assert_string_equal(step_id(app), "predict-self");
	assert_false(app->learn.run.unearned);
	tui_check_keys(app, "M");
	assert_ptr_equal(app->mode, &menu_mode);
	tui_check_keys(app, "2\n"); /* lesson 2: a forward jump */
	assert_ptr_equal(app->mode, &menu_mode);
	assert_string_equal(step_id(app), "predict-self");
	assert_non_null(strstr(app->status, "Enter again leaves it"));
	tui_check_keys(app, "\n");
	assert_ptr_equal(app->mode, &workbench_mode);
	assert_int_equal(app->learn.lesson, 1);
	close_app(app);
}

/* E writes every stage's numbers (.py) and the heatmaps (.svg): while a
 * step hides Softmax until its answer, E waits too (adversary: lesson 1's
 * predicted weight was in the export). */
static void test_export_waits_for_the_answer_a_step_hides(void **state)
{
	(void)state;
	struct app *app = lesson1_at("predict-self");
	tui_check_keys(app, "E");
	assert_non_null(strstr(app->status, "not until the question is answered right"));
	close_app(app);
}

/* A lesson bench is put back only under the step it was saved at: a
 * place moved on by another instance (or a crash after it moved) opens
 * its step with that step's own bench, never another lesson's matrices
 * (adversary: lesson 1's text over lesson 3's 6x16 bench); each step's
 * bench is a file of its own (lessonbench.h), so both are kept. */
static void test_a_bench_saved_at_another_step_is_not_put_back(void **state)
{
	(void)state;
	struct app *app = lesson1_at("steer");
	tui_check_keys(app, "ad1l\n3\n");
	close_app(app); /* the bench of one-head/steer saved */
	app = open_app(&set);
	tui_check_keys(app, "M3\n"); /* lesson 3: its place, its bench at quit */
	assert_int_equal(app->learn.lesson, 2);
	close_app(app);
	/* the place moved back to lesson 1's steer by hand (another instance) */
	FILE *f = fopen(progress_path, "a");
	assert_non_null(f);
	fputs("place one-head steer\n", f);
	fclose(f);
	app = open_app(&set);
	learn_resume(app);
	assert_string_equal(step_id(app), "steer");
	assert_int_equal(app->cfg.n, 4); /* lesson 1's shape, not lesson 3's */
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f); /* its own bench, kept beside lesson 3's */
	close_app(app);
	char pattern[160];
	glob_t g;
	snprintf(pattern, sizeof pattern, "%s/lesson-bench*.txt", dir);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 2);
	globfree(&g);
}

/* Back (p) to a done step: its edits as left, its goal still met. */
static void test_going_back_to_a_done_step_keeps_its_edits(void **state)
{
	(void)state;
	struct app *app = lesson1_at("steer");
	tui_check_keys(app, "ad1l\n3\n");
	assert_true(app->learn.run.met);
	tui_check_keys(app, "n");
	assert_string_equal(step_id(app), "values");
	tui_check_keys(app, "p");
	assert_string_equal(step_id(app), "steer");
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f);
	assert_true(app->learn.run.met);
	assert_null(strstr(app->learn.run.status, "Not yet"));
	close_app(app);
}

/* A lesson's own edits survive quit and resume, the free session untouched. */
static void test_a_lesson_edit_survives_quit_and_resume(void **state)
{
	(void)state;
	struct app *app = lesson1_at("steer");
	tui_check_keys(app, "ad1l\n3\n");
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f);
	float free0 = app->learn.other.w.x[0];
	close_app(app);
	app = open_app(&set);
	learn_resume(app);
	assert_true(app->learn.active);
	assert_string_equal(step_id(app), "steer");
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f);
	assert_true(app->learn.run.met); /* the goal checked on the edits */
	assert_float_equal(app->learn.other.w.x[0], free0, 0.0f);
	close_app(app);
}

/* --lesson ID and the menu reopen a lesson where it was left: the saved
 * step with its edits and answer (before, --lesson opened step 1 and the
 * saved place was lost at quit); another lesson opens at its first step
 * not done. */
static void test_lesson_id_and_menu_reopen_where_it_was_left(void **state)
{
	(void)state;
	char msg[256];
	struct app *app = lesson1_at("steer");
	tui_check_keys(app, "ad1l\n3\n");
	assert_true(app->learn.run.met);
	close_app(app);
	app = open_app(&set);
	assert_int_equal(learn_open_id(app, "1", msg, sizeof msg), 0);
	assert_string_equal(step_id(app), "steer");
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f);
	assert_true(app->learn.run.met);
	close_app(app);
	app = open_app(&set); /* from the menu, the same */
	tui_check_keys(app, "M1\n");
	assert_true(app->learn.active);
	assert_string_equal(step_id(app), "steer");
	assert_float_equal(app->w.wq[2 * 4 + 1], 3.0f, 0.0f);
	close_app(app);
	app = open_app(&set); /* lesson 2 (the place is in lesson 1): its first step not done */
	assert_int_equal(learn_open_id(app, "2", msg, sizeof msg), 0);
	assert_int_equal(app->learn.run.step, 0);
	close_app(app);
}

/* The free workbench reopens where it was left: stage, matrix, cursor
 * cell and the # layout; also when the learner quit inside a lesson (the
 * lesson resumes, and f goes back to that place). */
static void test_the_free_workbench_place_survives_quit_and_resume(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	tui_check_keys(app, "2cjjl#");
	enum pipeline_stage stage = app->stage;
	struct app_cursor cur = app->cur[stage];
	assert_int_equal(stage, PIPELINE_RESHAPE);
	assert_true(cur.panel > 0 && cur.row > 0 && cur.col > 0);
	assert_true(app->learn.show_counts);
	close_app(app);
	assert_true(file_has(progress_path, "view stage="));
	app = open_app(&set);
	learn_resume(app);
	assert_int_equal(app->stage, stage);
	assert_memory_equal(&app->cur[stage], &cur, sizeof cur);
	assert_true(app->learn.show_counts);
	tui_check_keys(app, "3M1\n"); /* moved, then into a lesson: quit there */
	assert_true(app->learn.active);
	close_app(app);
	app = open_app(&set);
	learn_resume(app);
	assert_true(app->learn.active);
	tui_check_keys(app, "f");
	assert_false(app->learn.active);
	assert_int_equal(app->stage, PIPELINE_SCORES);
	close_app(app);
}

/* A head picked with L in one step does not carry into the next: each
 * step starts at head 0, or at the head it highlights. */
static void test_each_step_starts_at_head_zero_or_its_highlighted_head(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	char msg[256];
	assert_int_equal(learn_open_id(app, "12", msg, sizeof msg), 0);
	tui_check_keys(app, "nLL");
	assert_int_equal(app->head, 2);
	tui_check_keys(app, lesson_run_question_waits(&app->learn.run) ? "nn" : "n"); /* twice past a question */
	assert_int_equal(app->head, 0);
	while (strcmp(step_id(app), "twins") != 0)
		tui_check_keys(app, "n");
	assert_int_equal(app->head, 1); /* @highlight head 1 */
	close_app(app);
}

/* The Q/K/V choice (v) is the step's, as the head is: lesson 3's words
 * about W^Q never open over the V screen the lesson before left; a step
 * that highlights W^V shows it even when it is the focused stage. */
static void test_each_step_starts_on_q_or_the_projection_it_highlights(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	char msg[256];
	assert_int_equal(learn_open_id(app, "projections", msg, sizeof msg), 0);
	tui_check_keys(app, "a36\n"); /* W^Q 6x6: answered, so the lesson may be left */
	assert_false(lesson_run_question_waits(&app->learn.run));
	app->stage = PIPELINE_PROJECTION;
	tui_check_keys(app, "vv");
	assert_int_equal(app->proj, PROJ_V);
	assert_int_equal(learn_open_id(app, "reshape", msg, sizeof msg), 0);
	assert_int_equal(app->proj, PROJ_Q);
	close_app(app);
	struct lesson_mark mark = { .is_head = false };
	const char *end;
	assert_int_equal(lesson_parse_ref("W^V[0,1]", &end, &mark.ref, msg, sizeof msg), 0);
	struct lesson_step s = { .focus = PIPELINE_PROJECTION, .marks = &mark, .nmarks = 1 };
	app = open_app(&set);
	learn_point_at(app, &s);
	assert_int_equal(app->proj, PROJ_V);
	close_app(app);
}

/* The menu's legend of short forms ("Symbols: n tokens, ...") stands
 * once on the screen: in the menu's foot when it has room, else in the
 * counts' place (at 120x40 it stood in both). */
static void test_the_menu_legend_is_drawn_once(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	tui_check_keys(app, "M");
	assert_true(mode_is(app, "menu"));
	const int sizes[][2] = { { 24, 80 }, { 30, 100 }, { 40, 120 }, { 50, 160 }, { 60, 200 } };
	for (int i = 0; i < 5; i++) {
		const char *s = tui_check_screen(app, sizes[i][0], sizes[i][1], true);
		int count = 0;
		for (const char *p = s; (p = strstr(p, "Symbols:")) != NULL; p++)
			count++;
		if (count != 1)
			fail_msg("%dx%d: the legend drawn %d times:\n%s", sizes[i][1], sizes[i][0], count, s);
	}
	close_app(app);
}

static void test_the_last_step_goes_on_to_the_next_lesson(void **state)
{
	(void)state;
	struct app *app = lesson1_at("recap");
	assert_true(file_has(progress_path, "done one-head/recap")); /* the last prose step, shown */
	tui_check_keys(app, "n");
	assert_int_equal(app->learn.lesson, 1);
	assert_int_equal(app->learn.run.step, 0);
	assert_true(file_has(progress_path, "done one-head/recap"));
	close_app(app);
}

static void test_every_lesson_action_has_a_key(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	for (int i = 0; lesson_key_actions[i]; i++) {
		if (!mode_key_name(app, lesson_key_actions[i]))
			fail_msg("{key:%s} has no key in the tables", lesson_key_actions[i]);
		const struct action *a = mode_action(app, lesson_key_actions[i], NULL);
		assert_non_null(a);
		const struct mode_ops *owner;
		assert_ptr_equal(mode_target(app, keys_workbench(app, a->keys[0], &owner)), a); /* the key named is the key bound */
	}
	assert_string_equal(mode_key_name(app, "edit"), "Enter");
	assert_string_equal(mode_key_name(app, "hint"), "i");
	tui_check_close(app);
}

static void test_lesson_text_names_the_keys_of_the_table(void **state)
{
	(void)state;
	struct app *app = lesson1_at("steer");
	struct lesson_text t = { 0 };
	assert_int_equal(lesson_run_pane(&app->learn.run, 34, mode_lesson_key, app, false, &t), 0);
	bool edit = false, hint = false;
	for (int i = 0; i < t.count; i++) {
		edit |= strstr(t.lines[i].text, "with Enter") != NULL;
		hint |= strstr(t.lines[i].text, "i hint") != NULL;
		for (int k = 0; lesson_key_actions[k]; k++) { /* no fallback "[action]" */
			char fb[64];
			snprintf(fb, sizeof fb, "[%s]", lesson_key_actions[k]);
			assert_null(strstr(t.lines[i].text, fb));
		}
	}
	assert_true(edit);
	assert_true(hint);
	lesson_text_free(&t);
	close_app(app);
}

static void test_without_lessons_the_workbench_still_works(void **state)
{
	(void)state;
	struct app *app = open_app(NULL);
	tui_check_keys(app, "M");
	assert_true(app->status_error);
	assert_non_null(strstr(app->status, "/nowhere"));
	tui_check_keys(app, "n");
	assert_false(app->learn.active);
	tui_check_keys(app, "\n2\n");
	assert_float_equal(app->w.x[0], 2.0f, 0.0f);
	char msg[512];
	assert_int_equal(learn_open_id(app, "1", msg, sizeof msg), 1);
	assert_non_null(strstr(msg, "/nowhere"));
	close_app(app);
}

static void test_lessons_open_by_number_or_name_and_unknown_ids_are_refused(void **state)
{
	(void)state;
	struct app *app = open_app(&set);
	char msg[512];
	assert_int_equal(learn_open_id(app, "reshape", msg, sizeof msg), 0);
	assert_int_equal(set.lessons[app->learn.lesson].number, 3);
	assert_int_equal(learn_open_id(app, "7", msg, sizeof msg), 0);
	assert_int_equal(set.lessons[app->learn.lesson].number, 7);
	assert_int_equal(learn_open_id(app, "99", msg, sizeof msg), 2);
	assert_non_null(strstr(msg, "no such lesson"));
	close_app(app);
}

static void test_a_corrupt_progress_file_is_left_untouched(void **state)
{
	(void)state;
	FILE *f = fopen(progress_path, "w");
	fputs("not a progress file\n", f);
	fclose(f);
	struct app *app = lesson1_at("steer");
	assert_true(file_has(progress_path, "not a progress file"));
	assert_false(file_has(progress_path, "place"));
	close_app(app);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, fresh)
	const struct CMUnitTest tests[] = {
		T(test_the_menu_opens_lesson_one_on_its_own_bench),
		T(test_two_digits_pick_lesson_thirteen),
		T(test_n_and_p_step_and_select_the_focused_stage),
		T(test_only_a_right_answer_reveals_the_hidden_stage_and_meets_the_goal),
		T(test_the_solution_reveals_what_a_wrong_answer_left_hidden_and_is_not_earned),
		T(test_a_step_once_shown_stays_shown_when_met_again_by_hand),
		T(test_three_wrong_numbers_then_right_is_shown_not_done),
		T(test_views_that_would_show_a_hidden_answer_wait_for_it),
		T(test_an_answer_too_long_to_hold_is_refused),
		T(test_skipping_a_waiting_question_forfeits_it),
		T(test_each_way_out_of_a_waiting_question_warns_itself),
		T(test_export_waits_for_the_answer_a_step_hides),
		T(test_a_bench_saved_at_another_step_is_not_put_back),
		T(test_a_choice_key_answers_at_once),
		T(test_an_edit_meets_the_goal_from_the_cursor_the_step_placed),
		T(test_hints_one_at_a_time_then_the_solution_and_its_undo),
		T(test_blocks_multiplied_with_one_key_meet_their_goals),
		T(test_the_free_workbench_and_back_keep_both_benches),
		T(test_progress_and_place_resume_in_a_new_run),
		T(test_an_answer_given_survives_quit_and_resume),
		T(test_a_step_reopens_with_its_stage_cursor_hints_and_wrong_answer),
		T(test_going_back_to_a_done_step_keeps_its_edits),
		T(test_the_free_workbench_place_survives_quit_and_resume),
		T(test_lesson_id_and_menu_reopen_where_it_was_left),
		T(test_a_lesson_edit_survives_quit_and_resume),
		T(test_each_step_starts_at_head_zero_or_its_highlighted_head),
		T(test_each_step_starts_on_q_or_the_projection_it_highlights),
	T(test_the_menu_legend_is_drawn_once),
	T(test_the_last_step_goes_on_to_the_next_lesson),
		T(test_every_lesson_action_has_a_key),
		T(test_a_prompt_opened_from_the_menu_returns_to_it),
		T(test_lesson_text_names_the_keys_of_the_table),
		T(test_without_lessons_the_workbench_still_works),
		T(test_lessons_open_by_number_or_name_and_unknown_ids_are_refused),
		T(test_a_corrupt_progress_file_is_left_untouched),
	};
#undef T
	return cmocka_run_group_tests_name("lessons on the workbench", tests, group_setup, group_teardown);
}
