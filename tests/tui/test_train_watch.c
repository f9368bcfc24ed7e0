/*
 * test_train_watch.c - training you can watch (src/tui/views/train_view.c,
 * train_chart.c, src/train/record.c), in process: the speed (+ -) shown
 * as "20 steps/s" or "full speed" and paced on the app's clock (the tests
 * set app->now_ms: no real waiting), 20 steps/s by default in a lesson;
 * the pace never changes a number (the model's weights and the record
 * bit for bit against '.' presses and a run at full speed); the recorded
 * run scrubbed with [ ] { } ("step 40 of 60 (recorded)" draws what the
 * screen drew live at step 40); the whole run's loss on a log-step axis
 * (the axis labels at the columns of log(step) / log(N), the mark where
 * the task's head formed, labelled); ? lists the screen's own keys and its
 * words, not the workbench's; v and l say what they did; the heatmaps'
 * line true at the size it is shown.
 */
#include <curses.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "mode.h"
#include "record.h"
#include "train_view.h"
#include "train_view_int.h"
#include "tui_check.h"

static char screen[64 * 1024];
static struct lesson_set set;
static char dir[] = "/tmp/mha-test-watch-XXXXXX";

TUI_CHECK_LESSON_GROUP(set, dir)

static const char *draw_at(struct app *app, int rows, int cols)
{
	long long was = app->now_ms;
	app->now_ms = 1LL << 40; /* messages have expired */
	snprintf(screen, sizeof screen, "%s", tui_check_screen(app, rows, cols, true));
	app->now_ms = was;
	return screen;
}

static void expect_text(const char *s, const char *what)
{
	if (!strstr(screen, s))
		fail_msg("the training screen lacks %s ('%s'):\n%s", what, s, screen);
}

static const struct train_view *view(const struct app *app)
{
	return train_view_now(app);
}

static long steps_of(const struct app *app)
{
	return trainer_steps(view(app)->tr);
}

/* Down to the speed whose label is want, by -. */
static void slow_to(struct app *app, const char *want)
{
	for (int k = 0; k < TRAIN_SPEED_COUNT; k++) {
		draw_at(app, 24, 80);
		if (strstr(screen, want))
			return;
		tui_check_keys(app, "-");
	}
	fail_msg("no speed '%s' going down with -:\n%s", want, screen);
}

/* The app's clock on by ms, a tenth of a second at a time as the loop's
 * pauses come, then the idle calls until nothing is owed (a slow machine
 * trains fewer steps in a pause and catches up in the next ones). */
static void pace_for(struct app *app, long long ms)
{
	for (long long t = 0; t < ms; t += 100) {
		app->now_ms += ms - t < 100 ? ms - t : 100;
		mode_idle(app);
	}
	for (int k = 0; k < 100 && mode_idle(app); k++)
		;
}

static void test_speed_label_and_pace_on_the_clock(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "G");
	draw_at(app, 24, 80);
	expect_text("full speed", "the free workbench's default speed");
	tui_check_keys(app, "-");
	draw_at(app, 24, 80);
	expect_text("1000 steps/s", "one notch slower");
	assert_non_null(strstr(app->status, "speed: 1000 steps/s"));
	slow_to(app, "20 steps/s");
	app->now_ms = 5000;
	tui_check_keys(app, " ");
	assert_false(mode_idle(app)); /* the pace starts: nothing owed yet */
	assert_int_equal(steps_of(app), 0);
	pace_for(app, 1000);
	assert_int_equal(steps_of(app), 20); /* a second: 20 steps */
	pace_for(app, 500);
	assert_int_equal(steps_of(app), 30);
	app->now_ms += 40; /* less than a step's time */
	assert_false(mode_idle(app));
	assert_int_equal(steps_of(app), 30);
	app->now_ms += 60000; /* away a minute: no burst of 1,200 steps */
	mode_idle(app);
	assert_int_equal(steps_of(app), 30);
	pace_for(app, 100);
	assert_int_equal(steps_of(app), 32);
	/* slowest and fastest: the key says so */
	slow_to(app, "1 step/s");
	tui_check_keys(app, "-");
	assert_non_null(strstr(app->status, "already 1 step/s"));
	for (int k = 0; k < TRAIN_SPEED_COUNT; k++)
		tui_check_keys(app, "+");
	draw_at(app, 24, 80);
	expect_text("full speed", "the fastest");
	tui_check_close(app);
}

/* The app's model and record, at step `at`, as trained by pacing at
 * speed label `speed` (NULL: '.' presses). */
static struct app *trained(const char *speed, long at)
{
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "G");
	if (!speed) {
		for (long k = 0; k < at; k++)
			tui_check_keys(app, ".");
		return app;
	}
	slow_to(app, speed);
	app->now_ms = 0;
	tui_check_keys(app, " ");
	mode_idle(app);
	while (steps_of(app) < at) {
		app->now_ms += 10; /* a step at a time at 100/s, bunches at 1000/s */
		mode_idle(app);
	}
	tui_check_keys(app, " ");
	return app;
}

static void same_record(const struct train_record *a, const struct train_record *b, long upto)
{
	int n = 0;
	for (int k = 0; k < a->count && a->steps[k] <= upto; k++, n++) {
		assert_int_equal(a->steps[k], b->steps[k]);
		assert_memory_equal(a->dmem + k * a->snap_doubles, b->dmem + k * b->snap_doubles,
		                    a->snap_doubles * sizeof *a->dmem);
		assert_memory_equal(a->pmem + k * a->snap_floats, b->pmem + k * b->snap_floats,
		                    a->snap_floats * sizeof *a->pmem);
	}
	assert_true(n >= 10);
}

static void test_the_pace_never_changes_a_number(void **state)
{
	(void)state;
	enum { AT = 48 };
	struct app *pressed = trained(NULL, AT), *slow = trained("100 steps/s", AT);
	const struct train_view *p = view(pressed), *s = view(slow);
	assert_int_equal(steps_of(slow), AT);
	assert_int_equal(p->m.nparams, s->m.nparams);
	assert_memory_equal(p->m.params, s->m.params, p->m.nparams * sizeof *p->m.params);
	same_record(&p->rec, &s->rec, AT);
	assert_memory_equal(p->rec.loss, s->rec.loss, AT * sizeof *p->rec.loss);
	/* the same run by the training library alone */
	struct train_shape shape = train_task_shape(p->task, 0, 0, 0);
	struct train_model m;
	struct trainer *tr;
	char msg[256];
	assert_int_equal(train_model_alloc(&m, &shape), MHA_OK);
	train_model_init(&m, 1);
	assert_int_equal(trainer_create(&tr, &m, p->task, NULL, 1, msg, sizeof msg), MHA_OK);
	struct train_stats st;
	for (int k = 0; k < AT; k++)
		trainer_step(tr, &st);
	assert_memory_equal(m.params, p->m.params, m.nparams * sizeof *m.params);
	trainer_destroy(tr);
	train_model_free(&m);
	/* full speed trains in slices of time: wherever it stops, its record
	 * up to AT is the same */
	struct app *fast = tui_check_open(NULL);
	tui_check_keys(fast, "G ");
	while (steps_of(fast) < AT)
		mode_idle(fast);
	same_record(&p->rec, &view(fast)->rec, AT);
	tui_check_close(fast);
	tui_check_close(pressed);
	tui_check_close(slow);
}

/* The lines of the screen from the one holding `from` up to (not
 * including) the one holding `to`. */
static void lines_between(const char *from, const char *to, char *out, size_t len)
{
	const char *a = strstr(screen, from), *b = a ? strstr(a, to) : NULL;
	if (!a || !b)
		fail_msg("no '%s' ... '%s' on:\n%s", from, to, screen);
	while (a > screen && a[-1] != '\n')
		a--;
	snprintf(out, len, "%.*s", (int)(b - a), a);
}

static void test_scrubbing_draws_the_recorded_step(void **state)
{
	(void)state;
	struct app *app = trained(NULL, 40);
	char live[4096], held_live[256], recorded[4096], held_rec[256];
	draw_at(app, 24, 80);
	lines_between("head  prev", "prev: token before", live, sizeof live);
	lines_between("held-out:", "loss", held_live, sizeof held_live);
	/* the bytes doc/TRAINING.md gives for the default induction model */
	assert_int_equal(train_record_bytes(&view(app)->rec), 1115136);
	struct train_snap at40 = view(app)->now;
	const struct train_shape *s = &view(app)->m.s;
	size_t probe = (size_t)s->layers * s->h * s->n * s->n;
	float *probe40 = malloc(probe * sizeof *probe40);
	assert_non_null(probe40);
	memcpy(probe40, at40.probe, probe * sizeof *probe40);
	for (int k = 0; k < 20; k++)
		tui_check_keys(app, ".");
	tui_check_keys(app, "[");
	draw_at(app, 24, 80);
	expect_text("step 56 of 60 (recorded)", "the last recorded step before now");
	for (int k = 0; k < 4; k++)
		tui_check_keys(app, "[");
	draw_at(app, 24, 80);
	expect_text("step 40 of 60 (recorded)", "four snapshots back, every 4th step");
	lines_between("head  prev", "prev: token before", recorded, sizeof recorded);
	lines_between("held-out:", "loss", held_rec, sizeof held_rec);
	assert_string_equal(recorded, live);
	assert_string_equal(held_rec, held_live);
	const struct train_snap *seen = train_view_shown(view(app));
	assert_int_equal(seen->step, 40);
	assert_memory_equal(seen->scores, at40.scores, sizeof at40.scores);
	assert_memory_equal(seen->norms, at40.norms, sizeof at40.norms);
	assert_true(seen->held.loss == at40.held.loss);
	assert_memory_equal(seen->probe, probe40, probe * sizeof *probe40);
	free(probe40);
	/* 200x60: the heatmaps are the recorded step's too (titled by its scores) */
	tui_check_keys(app, "]");
	draw_at(app, 24, 80);
	expect_text("step 44 of 60 (recorded)", "one on");
	tui_check_keys(app, "{");
	draw_at(app, 24, 80);
	expect_text("step 0 of 60 (recorded)", "the first snapshot");
	tui_check_keys(app, "}");
	draw_at(app, 24, 80);
	expect_text("step 60 paused", "back to now");
	assert_null(strstr(screen, "(recorded)"));
	tui_check_keys(app, "[[ "); /* Space from a recorded step: now, running */
	assert_int_equal(view(app)->scrub, -1);
	tui_check_close(app);
	(void)at40;
}

/* The column on a log axis of w columns over steps 1..n (the chart's
 * rule, written again here). */
static int log_col(long step, long n, int w)
{
	int c = (int)(w * log((double)step) / log((double)n));
	return c >= w ? w - 1 : c;
}

static void test_log_step_axis_and_the_mark_where_the_head_formed(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "Gc."); /* the previous-token task: a head that forms fast */
	assert_string_equal(view(app)->task->name, "previous");
	draw_at(app, 24, 80);
	expect_text("^ will mark the step each kind of head forms", "the marks' row before any head formed");
	tui_check_keys(app, " ");
	const struct train_record *r = &view(app)->rec;
	while (r->formed[TRAIN_PAT_PREVIOUS] < 0 && steps_of(app) < 400)
		mode_idle(app);
	tui_check_keys(app, " ");
	long formed = r->formed[TRAIN_PAT_PREVIOUS], n = r->last_step;
	assert_true(formed > 0);
	draw_at(app, 24, 80);
	const char *axis = strstr(screen, "\nstep 1 "); /* the axis's line, not the step line */
	assert_non_null(axis);
	axis++;
	int w = 80 - 5; /* the chart's columns after "loss " */
	char last[16];
	snprintf(last, sizeof last, "%ld", n);
	for (long t = 1; t <= n && t < 1000; t *= 10) {
		char label[16];
		snprintf(label, sizeof label, "%ld", t);
		int c = log_col(t, n, w);
		if (c + (int)strlen(label) < w - 1 - (int)strlen(last))
			if (memcmp(axis + 5 + c, label, strlen(label)))
				fail_msg("axis label %s not at column %d (n %ld):\n%s", label, c, n, axis);
	}
	const char *end = strchr(axis, '\n');
	size_t len = end ? (size_t)(end - axis) : strlen(axis);
	while (len > 0 && axis[len - 1] == ' ')
		len--;
	assert_memory_equal(axis + len - strlen(last), last, strlen(last)); /* N at the right end */
	char mark[32];
	/* the mark ^ at the step's column, its label after it or, at the right
	 * edge, before it */
	snprintf(mark, sizeof mark, "^prev %ld", formed);
	const char *marks = tui_check_line_with(screen, mark, NULL, NULL);
	int at = 0;
	if (marks) {
		at = (int)(strstr(marks, mark) - marks);
	} else {
		snprintf(mark, sizeof mark, "prev %ld^", formed);
		marks = tui_check_line_with(screen, mark, NULL, NULL);
		if (!marks)
			fail_msg("no mark for the previous-token head at %ld:\n%s", formed, screen);
		at = (int)(strstr(marks, mark) - marks) + (int)strlen(mark) - 1;
	}
	assert_int_equal(at, 5 + log_col(formed, n, w));
	/* the same screen, scrubbed: the recorded step's column in reverse is
	 * not text; the step line says it */
	tui_check_keys(app, "{]");
	draw_at(app, 24, 80);
	expect_text("step 4 of ", "a recorded step");
	tui_check_close(app);
}

static void test_help_lists_the_screen_keys_and_its_words(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "G?");
	draw_at(app, 60, 200);
	expect_text("training (G or Esc: back)", "the view's heading");
	expect_text("+ -", "the speed keys");
	expect_text("[ ]", "the scrub keys");
	expect_text("Words on this screen", "the glossary");
	expect_text("the probe", "the probe, said in words");
	expect_text("heads apart", "heads apart, said in words");
	expect_text("alone L0", "alone, said in words");
	assert_null(strstr(screen, "nudge the cell")); /* not the workbench's keys */
	assert_null(strstr(screen, "On a shape change"));
	/* at 80x24, the last word is reached by scrolling */
	draw_at(app, 24, 80);
	for (int k = 0; k < 60 && !strstr(screen, "returns to now"); k++) {
		tui_check_press(app, KEY_DOWN);
		draw_at(app, 24, 80);
	}
	expect_text("returns to now", "the glossary's last word at 80x24");
	tui_check_keys(app, "x"); /* any other key closes it */
	tui_check_close(app);
}

static void test_every_key_says_what_it_did(void **state)
{
	(void)state;
	struct app *app = tui_check_open(NULL);
	tui_check_keys(app, "G.");
	app->now_ms = 0;
	tui_check_keys(app, "l");
	assert_non_null(strstr(app->status, "heatmaps of layer L0"));
	tui_check_keys(app, "v");
	assert_non_null(strstr(app->status, "layer by layer first"));
	tui_check_keys(app, "]");
	assert_non_null(strstr(app->status, "this is now"));
	/* 120x40: the heatmaps' line is true there: the rows it names free are
	 * the rows left under it, fewer than those it needs */
	draw_at(app, 40, 120);
	const char *need = strstr(screen, "heatmaps need");
	assert_non_null(need);
	int rows = 0, free_rows = 0;
	assert_int_equal(sscanf(strstr(need, "need"), "need %d rows below, %d free here", &rows, &free_rows), 2);
	assert_true(free_rows < rows);
	int after = 0; /* screen lines after the line, less the two hint lines */
	for (const char *p = strchr(need, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
		after++;
	assert_int_equal(free_rows, after - 2 + 1);
	tui_check_close(app);
}

/* In a lesson the speed is slow enough to watch: the induction head forms
 * seconds after Space at the lesson's speed, not within one. */
static void test_a_lesson_trains_slowly_enough_to_watch(void **state)
{
	(void)state;
	struct app *app = tui_check_open_step(&set, "specialised-heads", "watch");
	tui_check_keys(app, "G");
	assert_ptr_equal(app->mode, &train_mode);
	draw_at(app, 24, 80);
	expect_text("20 steps/s", "the lesson's speed");
	tui_check_keys(app, "++"); /* the learner's choice then holds */
	tui_check_keys(app, "\x1bG");
	draw_at(app, 24, 80);
	expect_text("100 steps/s", "the chosen speed");
	/* where the head forms at full speed, in steps: at 20 steps/s that is
	 * seconds of plateau to watch before the drop */
	app->now_ms = 0;
	tui_check_keys(app, " ");
	mode_idle(app);
	while (view(app)->rec.formed[TRAIN_PAT_INDUCTION] < 0 && steps_of(app) < 600) {
		app->now_ms += 1000; /* a second at a time on the app's clock */
		mode_idle(app);
	}
	long formed = view(app)->rec.formed[TRAIN_PAT_INDUCTION];
	assert_true(formed > 0);
	assert_true(formed / 20.0 >= 4.0);
	tui_check_close(app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_label_and_pace_on_the_clock),
		cmocka_unit_test(test_the_pace_never_changes_a_number),
		cmocka_unit_test(test_scrubbing_draws_the_recorded_step),
		cmocka_unit_test(test_log_step_axis_and_the_mark_where_the_head_formed),
		cmocka_unit_test(test_help_lists_the_screen_keys_and_its_words),
		cmocka_unit_test(test_every_key_says_what_it_did),
		cmocka_unit_test(test_a_lesson_trains_slowly_enough_to_watch),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
