/*
 * test_model_goals.c - lessons on the language model's view
 * (src/lesson/model_step.c): @model, the model goals, the live answer
 * "@answer model head KIND" and the solution's "model head KIND off"
 * parse into the step; each authoring mistake is reported; and the
 * verdicts come from the live numbers the TUI hands over, written here by
 * hand for a model of 2 layers x 2 heads: the previous-word head is L1H0
 * (score 0.6), the current-word head L0H1 (0.7).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "goal.h"
#include "lesson.h"
#include "lesson_test.h"
#include "model_step.h"
#include "run.h"

#define HEAD "mha-tui-lesson 1\n@lesson 1\n@title Real\n@objective Find a head.\n"

/* Line 5: step 'find'; 6: model; 7: question; 8: answer; 9: feedback; 10-12: hints;
 * step 'off' from line 13. */
static const char text[] =
	HEAD
	"@step find Find it\n"
	"@model the dog saw the cat\n"
	"@question Which head looks at the word before?\n"
	"@answer model head previous\n"
	"@feedback current that head reads the word itself\n"
	"@hint h1\n@hint h2\n@hint h3\n"
	"@step off Off\n"
	"@model the dog saw the cat\n"
	"@goal model heads_off = 1\n"
	"@goal model head previous off\n"
	"@goal model top1[2] changed\n"
	"@hint h1\n@hint h2\n@hint h3\n"
	"@solution model head previous off\n";

static struct lesson_model_live by_hand(void)
{
	struct lesson_model_live v = { .ok = true, .layers = 2, .heads = 2, .n = 5 };
	v.score[0][LESSON_MODEL_PREVIOUS] = 0.1; v.score[0][LESSON_MODEL_CURRENT] = 0.2;
	v.score[1][LESSON_MODEL_PREVIOUS] = 0.2; v.score[1][LESSON_MODEL_CURRENT] = 0.7;
	v.score[2][LESSON_MODEL_PREVIOUS] = 0.6; v.score[2][LESSON_MODEL_CURRENT] = 0.3;
	v.score[3][LESSON_MODEL_PREVIOUS] = 0.3; v.score[3][LESSON_MODEL_CURRENT] = 0.1;
	return v;
}

static void test_the_directives_parse_into_the_steps(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(text, &l, &errs), 0);
	const struct lesson_step *s = &l.steps[0];
	assert_string_equal(s->model, "the dog saw the cat");
	assert_int_equal(s->model_line, 6);
	assert_true(s->resets);
	assert_true(s->question->model);
	assert_int_equal(s->question->model_kind, LESSON_MODEL_PREVIOUS);
	assert_int_equal(s->question->feedback[0].slip, LESSON_MODEL_CURRENT);
	s = &l.steps[1];
	assert_int_equal(s->ngoals, 3);
	assert_int_equal(s->goals[0].model, LESSON_MODEL_HEADS_OFF);
	assert_int_equal(s->goals[1].model, LESSON_MODEL_HEAD);
	assert_int_equal(s->goals[2].model, LESSON_MODEL_TOP1);
	assert_int_equal(s->goals[2].token, 2);
	assert_int_equal(s->solution[0].kind, LESSON_EDIT_MODEL_HEAD);
	lesson_free(&l);
	lesson_errors_free(&errs);
}

static void test_each_authoring_mistake_is_reported(void **state)
{
	(void)state;
	test_parse_fails_with(HEAD "@step a A\n@model\n", "t.lesson:6: @model takes the sentence the language model "
	                      "reads: @model the dog saw the cat");
	test_parse_fails_with(HEAD "@step a A\n@goal model head previous off\n@hint h\n",
	                      "t.lesson:5: step 'a': model goals, answers, edits and '@hide model' need '@model "
	                      "SENTENCE' in the step");
	test_parse_fails_with(HEAD "@step a A\n@model a b\n@goal model head sideways off\n@hint h\n",
	                      "t.lesson:7: @goal: expected 'model head KIND off' (or on), KIND one of previous, "
	                      "first, current, same, induction");
	test_parse_fails_with(HEAD "@step a A\n@model a b\n@goal model top1[x] changed\n@hint h\n",
	                      "t.lesson:7: @goal: expected 'model top1[T] changed' (or unchanged), T a token's "
	                      "position");
	test_parse_fails_with(HEAD "@step a A\n@model a b\n@set model head previous off\n",
	                      "t.lesson:7: @set: 'model head KIND off' belongs in @solution: a step's set-up opens "
	                      "the model as shipped");
	test_parse_fails_with(HEAD "@step a A\n@model a b\n@question Q?\n@answer model head previous\n"
	                      "@feedback previous no\n@hint h\n",
	                      "t.lesson:9: @feedback of a model question names another kind, whose head the learner "
	                      "typed instead: previous, first, current, same or induction");
}

static void test_the_answer_is_the_measured_head(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(text, &l, &errs), 0);
	struct lesson_run run;
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a;
	test_setup(&l, 0, &run, &c, &w, &a);
	char msg[200];
	assert_int_equal(lesson_run_answer(&run, "L1H0", msg, sizeof msg), -1); /* no live numbers yet */
	run.model = by_hand();
	assert_int_equal(lesson_run_answer(&run, "3", msg, sizeof msg), -1); /* not a head: no try spent */
	assert_string_equal(msg, "type a head as the overview names it: L1H1");
	assert_int_equal(lesson_run_answer(&run, "L2H0", msg, sizeof msg), -1);
	assert_int_equal(lesson_run_tries_left(&run), 1);
	assert_int_equal(lesson_run_answer(&run, "l0 h1", msg, sizeof msg), 0); /* the current-word head */
	assert_string_equal(lesson_run_feedback(&run), "that head reads the word itself");
	assert_true(run.unearned); /* one try */
	assert_int_equal(lesson_run_answer(&run, "L1H0", msg, sizeof msg), 1);
	lesson_run_end(&run);
	mha_acts_free(&a);
	mha_weights_free(&w);
	lesson_free(&l);
	lesson_errors_free(&errs);
}

static void test_the_goals_read_the_live_numbers(void **state)
{
	(void)state;
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(test_parse(text, &l, &errs), 0);
	const struct lesson_step *s = &l.steps[1];
	struct lesson_model_live v = by_hand();
	char why[200];
	assert_false(lesson_model_cond_eval(&s->goals[1], &(struct lesson_model_live){ 0 }, why, sizeof why));
	assert_string_equal(why, "the language model's view is not open on the step's sentence");
	v.off[1] = true; /* the current-word head */
	assert_true(lesson_model_cond_eval(&s->goals[0], &v, why, sizeof why));
	assert_false(lesson_model_cond_eval(&s->goals[1], &v, why, sizeof why));
	assert_string_equal(why, "the head with the largest previous score is on, want off"); /* never named */
	v.off[2] = true; /* and the previous-word head: two off */
	assert_false(lesson_model_cond_eval(&s->goals[0], &v, why, sizeof why));
	assert_true(lesson_model_cond_eval(&s->goals[1], &v, why, sizeof why));
	assert_false(lesson_model_cond_eval(&s->goals[2], &v, why, sizeof why));
	v.top1_changed[2] = true;
	assert_true(lesson_model_cond_eval(&s->goals[2], &v, why, sizeof why));
	v.n = 2; /* a sentence without token 2 */
	assert_false(lesson_model_cond_eval(&s->goals[2], &v, why, sizeof why));
	lesson_free(&l);
	lesson_errors_free(&errs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_directives_parse_into_the_steps),
		cmocka_unit_test(test_each_authoring_mistake_is_reported),
		cmocka_unit_test(test_the_answer_is_the_measured_head),
		cmocka_unit_test(test_the_goals_read_the_live_numbers),
	};
	return cmocka_run_group_tests_name("lesson model goals", tests, NULL, NULL);
}
