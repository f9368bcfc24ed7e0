/*
 * test_gaming_lessons_5_8.c - the tricks a gaming learner (one who plays to
 * pass, not to learn) used on lessons 5-8, replayed headless: each must
 * no longer earn its step (earned = goal met and not "shown").
 *
 * - mix (L6): a trial edit of W^O before answering used to show "2 of 3
 *   hold", so editing told which choice was right; sharpen (L5): a factor
 *   on W^Q hill-climbed against the live max weight after a lucky letter;
 *   silence (L6): zeroing head 1's W^V kept Y with W^O untouched (and
 *   the climber walked W^O down on "Y moved by at most ..." until the
 *   question gated it);
 *   window (L5): the mask view counted the weights before the answer;
 *   params-all (L8): D/] and the live counts panel gave the figure;
 *   more-heads / grow-n (L8): twice or four times a figure on screen.
 * - entropy (L5): 1.05 inside the old tolerance; params-wq (L8): 2^20 and
 *   the number its reason handed over; window (L5): window x tokens,
 *   then one less;
 * - the right letters of these lessons' choice questions are spread out,
 *   and in lessons 1-8 the right choice is never the longest text.
 *
 * It does not test the generic strategies (always one letter, greedy
 * climbing on any readout): the strategy learner does that for all lessons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "progress.h"
#include "run.h"
#include "tui_check.h"

static struct lesson_set set;
static char dir[] = "/tmp/mha-test-gaming-middle-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

/* The wrong answers typed use up the tries: the right one then shows
 * the rest, but the step is only shown, never earned. Closes app. */
static void spent_then_shown(struct app *app, const char *wrong, const char *right)
{
	tui_check_forfeits(app, wrong, NULL, right);
}

/* Mix: W^O[4,0] = 1 typed before answering meets both Y goals, yet the
 * goal line names only the question (no "N of M hold" to read), and a
 * wrong letter then leaves the step unearned for good. */
static void test_mix_a_trial_edit_does_not_tell_the_choice(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "6", "mix");
	tui_check_keys(app, "jjjj\n1\n");
	assert_float_equal(app->w.wo[4 * app->cfg.d + 0], 1.0f, 0.0f); /* W^O[4,0] = 1 */
	assert_int_equal(app->learn.run.conds_met, 2);                /* both Y goals hold */
	assert_false(app->learn.run.met);
	assert_null(strstr(app->learn.run.status, "hold"));
	assert_non_null(strstr(app->learn.run.status, "answer the question"));
	spent_then_shown(app, "aa", "ad");
}

/* Sharpen: before the answer the weights are hidden and no factor meets
 * the goal; the known slips (T itself, the square root) and a round
 * number use up the three tries. */
static void test_sharpen_needs_the_factor_first(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "5", "sharpen");
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	float wq = app->w.wq[0];
	tui_check_keys(app, "1*6.6667\n"); /* the factor that would meet the goal */
	assert_float_equal(app->w.wq[0], wq * 6.6667f, 1e-4f);
	assert_int_equal(app->learn.run.conds_met, 2); /* all but the answer */
	assert_false(app->learn.run.met);
	assert_true(learn_stage_hidden(app, PIPELINE_SOFTMAX));
	tui_check_keys(app, "a0.15\n");
	assert_non_null(lesson_run_feedback(&app->learn.run));
	spent_then_shown(app, "a2.58\na5\n", "a6.67\n");
}

/* Silence: head 1 on with its values zeroed keeps Y, but not through W^O. */
static void test_silence_through_the_values_is_not_the_exercise(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "6", "silence");
	tui_check_keys(app, "abx"); /* the right part named, head 1 on */
	assert_false(app->cfg.head_off[1]);
	int cols = app->cfg.g * app->cfg.dk;
	for (int r = 0; r < app->cfg.d; r++)
		for (int c = 4; c < 8; c++)
			app->w.wv[r * cols + c] = 0.0f;
	app_recompute(app);
	assert_int_equal(app->learn.run.conds_met, 3); /* answered, Y kept, head 1 on */
	assert_non_null(strstr(app->learn.run.status, "V moved"));
	assert_false(app->learn.run.met);
	tui_check_close(app);
}

/* The views and the counts that would count for the learner wait. */
static void test_views_and_counts_wait_for_the_answer(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "5", "window");
	tui_check_keys(app, "P");
	assert_ptr_not_equal(app->mode, &mask_view_mode);
	tui_check_close(app);
	static const char *const steps[] = { "params-all", "flat-cost", "more-heads", "grow-n" };
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		app = tui_check_open_step(&set, "8", steps[i]);
		assert_true(learn_counts_hidden(app));
		tui_check_close(app);
	}
}

/* More-heads and grow-n: twice, four times or half a figure their text
 * prints is never the answer (three tries of them leave the step shown). */
static void test_scaling_a_figure_on_screen_does_not_answer(void **state)
{
	(void)state;
	spent_then_shown(tui_check_open_step(&set, "8", "more-heads"), "a8000\na212800\na2000\n", "a110400\n");
	spent_then_shown(tui_check_open_step(&set, "8", "grow-n"), "a409600\na204800\na31457280\n", "a31866880\n");
}

/* No letter is right in more than 3 of these lessons' choice questions
 * (always-a used to earn 5 of 7). */
static void test_the_right_letters_are_spread(void **state)
{
	(void)state;
	int count[26] = { 0 }, questions = 0;
	static const char *const lessons[] = { "5", "6", "7", "8" };
	for (size_t i = 0; i < sizeof lessons / sizeof lessons[0]; i++) {
		const struct lesson *l = lesson_set_find(&set, lessons[i]);
		assert_non_null(l);
		for (int s = 0; s < l->nsteps; s++) {
			const struct lesson_step *st = &l->steps[s];
			if (!st->question || st->question->nchoices == 0)
				continue;
			questions++;
			char c = st->question->answer[0];
			assert_true(c >= 'a' && c <= 'z');
			count[c - 'a']++;
		}
	}
	assert_true(questions >= 6); /* causal, predict-first, flat-cost: numbers now */
	for (int c = 0; c < 26; c++)
		assert_true(count[c] * 100 <= questions * 45);
}

/* gamer3's tricks on main 5916622. Entropy: 1, then 1.5 (whose reason
 * gave 1.5 x ln 2), then 1.05 (inside the old tolerance) finds nothing.
 * Params-wq: 2^20, then the number its reason handed over (/4), or the
 * powers of two down from 2^20, find nothing: the question now asks
 * W^Q, W^K and W^V together (786,432, no power of two). */
static void test_entropy_and_params_wq_round_numbers_find_nothing(void **state)
{
	(void)state;
	spent_then_shown(tui_check_open_step(&set, "5", "entropy"), "a1\na1.5\na1.05\n", "a1.04\n");
	spent_then_shown(tui_check_open_step(&set, "8", "params-wq"), "a1048576\na524288\na262144\n", "a786432\n");
	struct app *app = tui_check_open_step(&set, "8", "params-wq");
	tui_check_keys(app, "a1048576\n");
	const char *why = lesson_run_feedback(&app->learn.run);
	assert_non_null(why);
	assert_null(strstr(why, "four")); /* no "/ 4" handed over */
	assert_null(strstr(why, "W^O"));
	tui_check_close(app);
	/* window: the gamer's "window x tokens" then one less passed (12 ->
	 * 11 with a window of 2); a window of 3 needs two short rows counted */
	app = tui_check_open_step(&set, "5", "window");
	tui_check_keys(app, "a18\n");
	assert_non_null(lesson_run_feedback(&app->learn.run));
	spent_then_shown(app, "a17\na16\n", "a15\n");
}

/* In lessons 1 to 8 the right choice is never the one longest choice
 * (saturate and flat-cost were: picking the longest text passed). */
static void test_the_right_choice_is_not_the_longest(void **state)
{
	(void)state;
	static const char *const lessons[] = { "1", "2", "3", "4", "5", "6", "7", "8" };
	for (size_t i = 0; i < sizeof lessons / sizeof lessons[0]; i++) {
		const struct lesson *l = lesson_set_find(&set, lessons[i]);
		assert_non_null(l);
		for (int s = 0; s < l->nsteps; s++) {
			const struct lesson_question *q = l->steps[s].question;
			if (!q || q->nchoices == 0)
				continue;
			size_t right = 0, others = 0;
			for (int c = 0; c < q->nchoices; c++) {
				size_t n = strlen(q->choices[c].text);
				if (strcmp(q->choices[c].key, q->answer) == 0)
					right = n;
				else if (n > others)
					others = n;
			}
			if (right > others)
				fail_msg("lesson %s step %s: the right choice is the longest", lessons[i],
				         l->steps[s].id);
		}
	}
}

/* Causal (L5) asks what the mask does to a row of P: no step before it
 * may show P under a causal mask (the first-token step, before it, drew
 * the masked row it asks about). And the first-token step's answer, P₀[1,0]
 * under the mask, is not to be read off the causal step's screen either:
 * its own weights differ from what the causal step shows by more than the
 * answer's tolerance. */
static void test_no_masked_p_before_the_causal_question(void **state)
{
	(void)state;
	const struct lesson *les = lesson_set_find(&set, "softmax-masks");
	assert_non_null(les);
	int causal = lesson_step_index(les, "causal"), first = lesson_step_index(les, "first-token");
	assert_true(causal >= 0 && first >= 0);
	for (int si = 0; si < causal; si++) {
		struct app *app = tui_check_open_at(&set, (int)(les - set.lessons), si);
		if (lesson_run_step(&app->learn.run)->question)
			tui_check_answer_right(app); /* every view the step opens, answered */
		if (app->cfg.causal)
			fail_msg("step %s, before the causal question, shows P under the causal mask", les->steps[si].id);
		tui_check_close(app);
	}
	struct app *app = tui_check_open_step(&set, les->name, "causal");
	tui_check_answer_right(app);
	struct mha_config c = app->cfg;
	c.causal = true;
	app_change_config(app, &c, "causal");
	float seen = app->a.weights[1 * app->cfg.n + 0];
	tui_check_close(app);
	app = tui_check_open_step(&set, les->name, "first-token");
	const struct lesson_question *q = lesson_run_step(&app->learn.run)->question;
	assert_non_null(q);
	if (fabs(seen - q->value) <= q->tol)
		fail_msg("the causal step shows P₀[1,0] = %.3f, first-token's answer %.3f", seen, q->value);
	tui_check_close(app);
}

/* The strategy learner on the three exercises of lessons 5-8 the review
 * found weak (issue 24 item 9), and the right path beside each:
 * - causal was a choice whose prose named the kept keys, and the mask
 *   switched on before answering showed which ones were cut: now a factor
 *   the learner computes, row 2's kept weights hidden even with the mask
 *   on; 1 (nothing moves), 2 (six keys to three) and the share that stays
 *   spend the tries;
 * - predict-first's prose said where the weight goes, and the sentence
 *   step before it drew head 2's weights: now a weight to compute (the
 *   score 4 against seven 0s), the sentence step's head 2 unwired;
 * - flat-cost asked "do the projections change?", which the prose and
 *   the step before's counts answered: now what the whole layer gains
 *   from 8 to 64 heads; "nothing" (its old answer) and softmax's figures
 *   on screen a step back find nothing. */
static void test_causal_needs_the_factor_worked_out(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "softmax-masks", "causal");
	tui_check_keys(app, tui_check_key_name("causal"));
	assert_true(app->cfg.causal);
	for (int j = 0; j < 3; j++) /* the mask on: what stays is still hidden */
		assert_true(learn_hidden(app, MHA_T_WEIGHTS, 0, 2, j));
	assert_false(learn_hidden(app, MHA_T_WEIGHTS, 0, 2, 4));
	assert_int_equal(app->learn.run.conds_met, 2); /* all but the answer */
	assert_false(app->learn.run.met);
	tui_check_keys(app, "a1\n");
	assert_non_null(lesson_run_feedback(&app->learn.run));
	spent_then_shown(app, "a2\na0.41\n", "a2.45\n");
	app = tui_check_open_step(&set, "softmax-masks", "causal"); /* the right path */
	tui_check_keys(app, "a2.45\n");
	tui_check_keys(app, tui_check_key_name("causal"));
	assert_true(app->learn.run.met);
	assert_true(progress_is_done(&app->learn.progress, "softmax-masks/causal"));
	tui_check_close(app);
}

static void test_predict_first_is_not_on_the_sentence_step(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "several-heads", "predict-first");
	double want;
	assert_true(lesson_run_expected(&app->learn.run, &want));
	assert_true(want > 0.88 && want < 0.89); /* e^4 / (e^4 + 7) */
	assert_true(learn_stage_hidden(app, PIPELINE_SCORES));
	tui_check_close(app);
	/* the step before: head 2's weights, drawn, say nothing of it */
	app = tui_check_open_step(&set, "several-heads", "sentence");
	tui_check_keys(app, "4LL");
	assert_int_equal(app->head, 2);
	const float *p2 = app->a.weights + (size_t)2 * app->cfg.n * app->cfg.n;
	for (int i = 0; i < app->cfg.n * app->cfg.n; i++)
		if (fabsf(p2[i] - (float)want) < 0.01f)
			fail_msg("the sentence step's P₂ holds %.3f, predict-first's answer", p2[i]);
	tui_check_close(app);
	/* an even share, no scale, all on token 0: three tries gone */
	spent_then_shown(tui_check_open_step(&set, "several-heads", "predict-first"), "a0.125\na0.998\na1\n",
	                 "a0.886\n");
	app = tui_check_open_step(&set, "several-heads", "predict-first");
	tui_check_keys(app, "a0.886\n");
	assert_true(progress_is_done(&app->learn.progress, "several-heads/predict-first"));
	assert_false(learn_stage_hidden(app, PIPELINE_SCORES));
	tui_check_close(app);
}

static void test_flat_cost_is_not_read_off_a_step_back(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "counting", "flat-cost");
	assert_true(learn_counts_hidden(app));
	tui_check_close(app);
	/* no change (the old answer), softmax at 8 heads from the step before's
	 * prose, softmax at 64 */
	spent_then_shown(tui_check_open_step(&set, "counting", "flat-cost"), "a0\na4000\na32000\n", "a28000\n");
	app = tui_check_open_step(&set, "counting", "flat-cost");
	tui_check_keys(app, "a28000\n");
	assert_true(progress_is_done(&app->learn.progress, "counting/flat-cost"));
	tui_check_close(app);
}

/* padding (issue 24 item 11): the "a zero row adds nothing" slip
 * forfeits; the causal mask, which also keeps rows 0-3 off keys 4 and 5,
 * is not padding (and rows 4 and 5 still see the pads); the mask view
 * waits for the answer, then p on keys 4 and 5 earns the step, every row
 * of P, the pad queries' included, 0 on them. */
static void test_padding_is_the_mask_not_a_shortcut(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "softmax-masks", "padding");
	tui_check_keys(app, tui_check_key_name("masks"));
	assert_ptr_not_equal(app->mode, &mask_view_mode);
	tui_check_forfeits(app, "ab", "e^0 = 1", "ac");
	app = tui_check_open_step(&set, "softmax-masks", "padding");
	tui_check_keys(app, "ac");
	tui_check_keys(app, tui_check_key_name("causal"));
	assert_false(app->learn.run.met);
	tui_check_keys(app, tui_check_key_name("causal"));
	tui_check_keys(app, tui_check_key_name("masks"));
	assert_ptr_equal(app->mode, &mask_view_mode);
	tui_check_keys(app, "llllpl");
	assert_false(app->learn.run.met); /* one pad is not enough */
	tui_check_keys(app, "p");
	tui_check_keys(app, tui_check_key_name("masks"));
	assert_true(app->learn.run.met);
	assert_true(progress_is_done(&app->learn.progress, "softmax-masks/padding"));
	const int n = app->cfg.n;
	for (int i = 0; i < n; i++) {
		float kept = 0;
		for (int j = 0; j < 4; j++)
			kept += app->a.weights[i * n + j];
		assert_float_equal(kept, 1.0f, 1e-5f); /* every row, the pads' own included */
	}
	tui_check_close(app);
}

/* sink (issue 24 item 11): silencing head 2 by its values (W^V's block
 * at 0) or by the other tokens' words writes nothing too, and is not a
 * sink; the slips (every other "the" forgotten, chase forgotten, 0) spend
 * the tries; the answer, then token 0's word out, earns it, and O₂'s
 * column 0 is then the number asked. */
static void test_sink_writes_nothing_through_its_first_token(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "several-heads", "sink");
	assert_true(learn_stage_hidden(app, PIPELINE_WEIGHTED_SUM));
	const int n = app->cfg.n, d = app->cfg.d, cols = app->cfg.g * app->cfg.dk;
	for (int r = 0; r < d; r++) /* head 2's values at 0: O₂ is 0, not by a sink */
		for (int c = 8; c < 12; c++)
			app->w.wv[r * cols + c] = 0.0f;
	app_recompute(app);
	tui_check_keys(app, "a0.024\n");
	assert_true(app->learn.run.answer_right);
	assert_false(app->learn.run.met);
	tui_check_close(app);
	app = tui_check_open_step(&set, "several-heads", "sink");
	for (int t = 1; t < n; t++) /* every word but token 0's out */
		app->w.x[t * d + 0] = 0.0f;
	app_recompute(app);
	assert_false(app->learn.run.met);
	tui_check_forfeits(app, "a0.016\na0.032\na0\n", "small weights", "a0.024\n");
	app = tui_check_open_step(&set, "several-heads", "sink");
	tui_check_keys(app, "a0.024\n");
	app->w.x[0] = 0.0f; /* X[0,0]: token 0 carries no word */
	app_recompute(app);
	assert_true(app->learn.run.met);
	assert_true(progress_is_done(&app->learn.progress, "several-heads/sink"));
	double want = lesson_run_step(&app->learn.run)->question->value;
	for (int t = 0; t < n; t++)
		assert_float_equal(app->a.heads[((size_t)2 * n + t) * app->cfg.dk + 0], want, 0.0005);
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_a_trial_edit_does_not_tell_the_choice),
		cmocka_unit_test(test_sharpen_needs_the_factor_first),
		cmocka_unit_test(test_silence_through_the_values_is_not_the_exercise),
		cmocka_unit_test(test_views_and_counts_wait_for_the_answer),
		cmocka_unit_test(test_scaling_a_figure_on_screen_does_not_answer),
		cmocka_unit_test(test_the_right_letters_are_spread),
		cmocka_unit_test(test_entropy_and_params_wq_round_numbers_find_nothing),
		cmocka_unit_test(test_the_right_choice_is_not_the_longest),
		cmocka_unit_test(test_no_masked_p_before_the_causal_question),
		cmocka_unit_test(test_causal_needs_the_factor_worked_out),
		cmocka_unit_test(test_predict_first_is_not_on_the_sentence_step),
		cmocka_unit_test(test_flat_cost_is_not_read_off_a_step_back),
		cmocka_unit_test(test_padding_is_the_mask_not_a_shortcut),
		cmocka_unit_test(test_sink_writes_nothing_through_its_first_token),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
