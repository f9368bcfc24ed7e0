/*
 * test_nav.c - resuming where the learner left off, and recording progress
 * as they move: exercises count when their goal holds, prose steps when
 * the learner moves on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "lesson_test.h"
#include "nav.h"
#include "pane.h"

static const char first[] = "mha-tui-lesson 1\n@lesson 1\n@title A\n@objective o\n"
	"@config tokens=2 d_model=2 heads=1\n@step read\nText.\n@step try\n@goal heads = 2\n"
	"@hint h\n@solution heads = 2\n";
static const char second[] = "mha-tui-lesson 1\n@lesson 2\n@title B\n@objective o\n"
	"@step only\nText.\n";

struct fixture {
	struct lesson ls[2];
	struct lesson_set set;
	struct progress p;
};

static struct fixture fx;

static int open_set(void **state)
{
	(void)state;
	struct lesson_errors errs = { 0 };
	if (lesson_parse("01-a.lesson", first, strlen(first), NULL, &fx.ls[0], &errs) != 0 ||
	    lesson_parse("02-b.lesson", second, strlen(second), NULL, &fx.ls[1], &errs) != 0)
		return -1;
	fx.set = (struct lesson_set){ fx.ls, 2, NULL, NULL };
	progress_init(&fx.p);
	return 0;
}

static int close_set(void **state)
{
	(void)state;
	lesson_free(&fx.ls[0]);
	lesson_free(&fx.ls[1]);
	progress_free(&fx.p);
	return 0;
}

static void test_a_first_run_opens_the_menu(void **state)
{
	(void)state;
	struct progress p;
	int l, s;
	progress_init(&p);
	assert_int_equal(lesson_resume(&fx.set, &p, &l, &s), LESSON_RESUME_MENU);
	assert_int_equal(lesson_next_undone(&fx.set, &p), 0);
}

static void test_resuming_opens_the_saved_place(void **state)
{
	(void)state;
	struct progress p;
	int l, s;
	progress_init(&p);
	progress_set_place(&p, "a", "try", true);
	assert_int_equal(lesson_resume(&fx.set, &p, &l, &s), LESSON_RESUME_LESSON);
	assert_int_equal(l, 0);
	assert_int_equal(s, 1);
	progress_set_place(&p, "b", "only", false);
	assert_int_equal(lesson_resume(&fx.set, &p, &l, &s), LESSON_RESUME_FREE);
	assert_int_equal(l, 1);
	progress_set_place(&p, "a", "renamed-step", true);
	assert_int_equal(lesson_resume(&fx.set, &p, &l, &s), LESSON_RESUME_LESSON);
	assert_int_equal(s, 0);
	/* a renamed step: the lesson's first step not done, not a done one */
	char key[PROGRESS_KEY_MAX];
	lesson_step_key(&fx.set.lessons[0], 0, key, sizeof key);
	assert_int_equal(progress_mark_done(&p, key), 0);
	assert_int_equal(lesson_resume(&fx.set, &p, &l, &s), LESSON_RESUME_LESSON);
	assert_int_equal(s, 1);
	progress_set_place(&p, "gone", "x", true);
	assert_int_equal(lesson_resume(&fx.set, &p, &l, &s), LESSON_RESUME_MENU);
	progress_free(&p);
}

static void test_steps_are_done_when_met_or_left_and_shown_when_solved(void **state)
{
	(void)state;
	struct lesson_run run;
	struct mha_config c;
	struct mha_weights w;
	struct mha_acts a;
	test_setup(&fx.ls[0], 0, &run, &c, &w, &a);
	/* a prose step: done when the learner moves on, not before */
	assert_true(lesson_progress_update(&run, &fx.p, false, true));
	assert_false(progress_is_done(&fx.p, "a/read"));
	assert_string_equal(fx.p.step, "read");
	assert_true(lesson_progress_update(&run, &fx.p, true, true));
	assert_true(progress_is_done(&fx.p, "a/read"));
	assert_false(lesson_progress_update(&run, &fx.p, true, true)); /* nothing new */
	mha_acts_free(&a);
	mha_weights_free(&w);
	lesson_run_end(&run);

	/* an exercise: done when its goal holds, whether or not one moves on */
	test_setup(&fx.ls[0], 1, &run, &c, &w, &a);
	lesson_run_eval(&run, &c, &w, &a);
	lesson_progress_update(&run, &fx.p, true, true);
	assert_false(progress_is_done(&fx.p, "a/try"));
	char msg[128];
	assert_int_equal(lesson_run_solve(&run, &c, &w, msg, sizeof msg), 1);
	test_forward(&c, &w, &a);
	lesson_run_eval(&run, &c, &w, &a);
	/* solved with the solution: shown, not earned */
	assert_true(lesson_progress_update(&run, &fx.p, false, true));
	assert_false(progress_is_done(&fx.p, "a/try"));
	assert_true(progress_is_shown(&fx.p, "a/try"));
	assert_false(lesson_is_done(&fx.ls[0], &fx.p));
	int steps, exercises, shown;
	lesson_progress_counts(&fx.ls[0], &fx.p, &steps, &exercises, &shown);
	assert_int_equal(exercises, 0);
	assert_int_equal(shown, 1);
	struct lesson_text menu = { 0 };
	assert_int_equal(lesson_menu(&fx.set, &fx.p, 200, false, &menu), 0);
	assert_string_equal(menu.lines[menu.count - 1].text, "Done: 0 of 2 lessons, 0 of 1 exercises; 1 only shown (S)");
	lesson_text_free(&menu);
	assert_false(lesson_progress_update(&run, &fx.p, false, true)); /* nothing new */
	lesson_run_end(&run);
	mha_weights_free(&w);
	mha_acts_free(&a);
	/* the step again, the learner's own edit: still shown, never done */
	test_setup(&fx.ls[0], 1, &run, &c, &w, &a);
	assert_false(lesson_progress_restore(&run, &fx.p));
	assert_true(run.unearned);
	bool shape;
	assert_int_equal(lesson_edits_apply(fx.ls[0].steps[1].solution, 1, &c, &w, &shape, msg, sizeof msg), 0);
	test_forward(&c, &w, &a);
	lesson_run_eval(&run, &c, &w, &a);
	assert_true(run.met);
	assert_false(lesson_progress_update(&run, &fx.p, false, true)); /* nothing new */
	assert_false(progress_is_done(&fx.p, "a/try"));
	assert_true(progress_is_shown(&fx.p, "a/try"));
	lesson_progress_counts(&fx.ls[0], &fx.p, &steps, &exercises, &shown);
	assert_int_equal(exercises, 0);
	assert_int_equal(shown, 1);
	assert_false(lesson_is_done(&fx.ls[0], &fx.p));
	assert_int_equal(lesson_next_undone(&fx.set, &fx.p), 0);
	/* leaving for the free workbench keeps the place to come back to */
	assert_true(lesson_progress_update(&run, &fx.p, false, false));
	assert_false(fx.p.in_lesson);
	assert_string_equal(fx.p.lesson, "a");
	mha_acts_free(&a);
	mha_weights_free(&w);
	lesson_run_end(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_first_run_opens_the_menu),
		cmocka_unit_test(test_resuming_opens_the_saved_place),
		cmocka_unit_test(test_steps_are_done_when_met_or_left_and_shown_when_solved),
	};
	return cmocka_run_group_tests_name("lesson navigation", tests, open_set, close_set);
}
