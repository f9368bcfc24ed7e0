/*
 * test_progress.c - the learner's progress file: a save and load round
 * trip, a first run without a file, the default place under
 * $XDG_STATE_HOME, and a corrupt or foreign file refused with file:line
 * and left exactly as it was.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pipeline.h"
#include "progress.h"

static char dir[256];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/mha-progress-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void test_progress_survives_a_round_trip(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "progress.txt");
	struct progress p, q;
	progress_init(&p);
	assert_int_equal(progress_mark_done(&p, "one-head/look"), 0);
	assert_int_equal(progress_mark_done(&p, "reshape/split"), 0);
	assert_int_equal(progress_mark_done(&p, "one-head/look"), 0); /* once only */
	progress_set_place(&p, "reshape", "split", true);
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	assert_string_equal(read_file(path), "mha-tui-progress 1\nplace reshape split\nmode lesson\n"
	                                     "done one-head/look\ndone reshape/split\n");
	assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
	assert_string_equal(q.lesson, "reshape");
	assert_string_equal(q.step, "split");
	assert_true(q.in_lesson);
	assert_int_equal(q.ndone, 2);
	assert_true(progress_is_done(&q, "reshape/split"));
	assert_false(progress_is_done(&q, "reshape/other"));
	progress_free(&p);
	progress_free(&q);
}

/* A right answer is kept with its step; a file without any loads as before,
 * and a save merges another instance's answers as it does done steps. */
static void test_answers_given_survive_a_round_trip_and_merge(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "answers.txt");
	write_file(path, "mha-tui-progress 1\nplace a b\nmode lesson\nanswered other/q B\n");
	struct progress p, q;
	progress_init(&p);
	progress_set_place(&p, "one-head", "predict-self", true);
	assert_int_equal(progress_set_answer(&p, "one-head/predict-self", "0.3"), 0);
	assert_int_equal(progress_set_answer(&p, "one-head/predict-self", "0.35"), 0); /* replaces */
	assert_int_equal(progress_set_answer(&p, "one-head/x", "two words"), -1);
	assert_int_equal(progress_set_answer(&p, "one-head/x", ""), -1);
	assert_int_equal(p.nanswered, 1);
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	assert_string_equal(read_file(path), "mha-tui-progress 1\nplace one-head predict-self\nmode lesson\n"
	                                     "answered one-head/predict-self 0.35\nanswered other/q B\n");
	assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
	assert_string_equal(progress_answer(&q, "one-head/predict-self"), "0.35");
	assert_string_equal(progress_answer(&q, "other/q"), "B");
	assert_null(progress_answer(&q, "one-head/predict"));
	assert_null(progress_answer(&q, "other"));
	progress_free(&p);
	progress_free(&q);
}

/* A step solved with the solution is kept apart from done: it round-trips
 * as 'shown', merges with another instance's, and a step both done and
 * shown is shown: shown is for good. A file without 'shown' lines loads as before. */
static void test_steps_shown_survive_a_round_trip_apart_from_done(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "shown.txt");
	write_file(path, "mha-tui-progress 1\nplace a b\nmode lesson\ndone a/b\nshown other/q\n");
	struct progress p, q;
	progress_init(&p);
	progress_set_place(&p, "one-head", "steer", true);
	assert_int_equal(progress_mark_shown(&p, "one-head/steer"), 0);
	assert_int_equal(progress_mark_shown(&p, "one-head/steer"), 0); /* idempotent */
	assert_int_equal(progress_mark_shown(&p, "two words"), -1);
	assert_int_equal(p.nshown, 1);
	assert_true(progress_is_shown(&p, "one-head/steer"));
	assert_false(progress_is_done(&p, "one-head/steer"));
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	assert_string_equal(read_file(path), "mha-tui-progress 1\nplace one-head steer\nmode lesson\n"
	                                     "done a/b\nshown one-head/steer\nshown other/q\n");
	assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
	assert_true(progress_is_shown(&q, "one-head/steer"));
	assert_true(progress_is_shown(&q, "other/q"));
	assert_false(progress_is_done(&q, "other/q"));
	assert_int_equal(progress_mark_done(&q, "other/q"), 0); /* met later: still shown, not done */
	assert_true(progress_is_shown(&q, "other/q"));
	assert_false(progress_is_done(&q, "other/q"));
	assert_int_equal(q.ndone, 1); /* no 'done' line for it */
	progress_free(&q);
	static const char both[] = "mha-tui-progress 1\nplace - -\nmode free\ndone a/b\nshown a/b\n";
	assert_int_equal(progress_parse("both", both, sizeof both - 1, &q, msg, sizeof msg), 0);
	assert_true(progress_is_shown(&q, "a/b")); /* an older file's "done after shown": shown */
	assert_false(progress_is_done(&q, "a/b"));
	progress_free(&p);
	progress_free(&q);
}

/* The open step's state (stage, cursor, hints, a wrong answer) round-trips;
 * a 'tried' line for another step than the 'at' line's is refused. */
static void test_the_step_state_survives_a_round_trip(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "at.txt");
	struct progress p, q;
	progress_init(&p);
	p.has_at = true;
	p.at = (struct progress_at){ .key = "one-head/steer", .stage = 4, .panel = 1, .row = 5, .col = 2,
	                             .hints = 2, .tried = "0.5" };
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	assert_non_null(strstr(read_file(path), "\nat one-head/steer stage=Weighted-sum panel=1 row=5 col=2 hints=2\n"
	                                        "tried one-head/steer 0.5\n"));
	assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
	assert_true(q.has_at);
	assert_string_equal(q.at.key, "one-head/steer");
	assert_int_equal(q.at.stage, 4);
	assert_int_equal(q.at.row, 5);
	assert_int_equal(q.at.hints, 2);
	assert_string_equal(q.at.tried, "0.5");
	progress_free(&p);
	progress_free(&q);
	write_file(path, "mha-tui-progress 1\nplace a b\nmode lesson\nat a/b stage=1 panel=0 row=0 col=0 hints=0\n"
	                 "tried a/c 3\n");
	assert_int_equal(progress_load(path, &q, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, ":5: expected 'tried LESSON/STEP ANSWER' after its 'at' line"));
}

/* A stage is saved by its label (a stage added to the pipeline moves no
 * saved place): any case, '-' for a space; a number, as files before
 * labels wrote it, still loads; a label no stage has loads as no place
 * (PIPELINE_STAGE_COUNT), the rest of the file with it. */
static void test_a_stage_is_saved_by_its_label_and_old_numbers_still_load(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "stages.txt");
	struct progress q;
	const struct { const char *text; int stage; } cases[] = {
		{ "Weighted-sum", PIPELINE_WEIGHTED_SUM }, { "softmax", PIPELINE_SOFTMAX }, { "W^O", PIPELINE_OUTPUT },
		{ "3", 3 }, { "0", 0 }, { "Attention", PIPELINE_STAGE_COUNT },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[300];
		snprintf(text, sizeof text, "mha-tui-progress 1\nplace a b\nmode lesson\ndone a/x\n"
		         "at a/b stage=%s panel=0 row=1 col=0 hints=0\nview stage=%s panel=1 row=0 col=0 layout=0\n",
		         cases[i].text, cases[i].text);
		write_file(path, text);
		assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
		assert_int_equal(q.at.stage, cases[i].stage);
		assert_int_equal(q.view.stage, cases[i].stage);
		assert_true(progress_is_done(&q, "a/x"));
		progress_free(&q);
	}
	/* each label saved is read back as its stage */
	for (int s = 0; s < PIPELINE_STAGE_COUNT; s++) {
		struct progress p;
		progress_init(&p);
		p.has_view = true;
		p.view = (struct progress_view){ .stage = s };
		assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
		assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
		assert_int_equal(q.view.stage, s);
		char label[32], want[64];
		snprintf(label, sizeof label, "%s", pipeline_stage_label((enum pipeline_stage)s));
		for (char *c = label; *c; c++)
			*c = *c == ' ' ? '-' : *c;
		snprintf(want, sizeof want, "\nview stage=%s panel=", label);
		assert_non_null(strstr(read_file(path), want));
		progress_free(&p);
		progress_free(&q);
	}
}

/* The free workbench's view round-trips; a run that set none keeps the file's. */
static void test_the_view_survives_a_round_trip(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "view.txt");
	struct progress p, q;
	progress_init(&p);
	p.has_view = true;
	p.view = (struct progress_view){ .stage = 4, .panel = 2, .row = 3, .col = 1, .layout = 1 };
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	assert_non_null(strstr(read_file(path), "\nview stage=Weighted-sum panel=2 row=3 col=1 layout=1\n"));
	progress_free(&p);
	progress_init(&p);
	assert_int_equal(progress_mark_done(&p, "a/b"), 0);
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
	assert_true(q.has_view);
	assert_int_equal(q.view.stage, 4);
	assert_int_equal(q.view.panel, 2);
	assert_int_equal(q.view.row, 3);
	assert_int_equal(q.view.col, 1);
	assert_int_equal(q.view.layout, 1);
	progress_free(&p);
	progress_free(&q);
}

static void test_leaving_for_the_free_workbench_keeps_the_place(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "free.txt");
	struct progress p, q;
	progress_init(&p);
	progress_set_place(&p, "gqa", "kv-cache", false);
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	assert_int_equal(progress_load(path, &q, msg, sizeof msg), 0);
	assert_false(q.in_lesson);
	assert_string_equal(q.lesson, "gqa");
	progress_free(&p);
	progress_free(&q);
}

static void test_a_missing_file_is_a_first_run(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "none.txt");
	struct progress p;
	assert_int_equal(progress_load(path, &p, msg, sizeof msg), 0);
	assert_int_equal(p.ndone, 0);
	assert_string_equal(p.lesson, "");
	assert_false(p.in_lesson);
	progress_free(&p);
}

/* An empty file holds nothing to keep: a first run, and saving works
 * (adversary: every run said "progress not saved" until it was deleted). */
static void test_an_empty_file_is_a_first_run(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "empty.txt");
	write_file(path, "");
	struct progress p;
	assert_int_equal(progress_load(path, &p, msg, sizeof msg), 0);
	assert_int_equal(p.ndone, 0);
	assert_string_equal(p.lesson, "");
	progress_free(&p);
}

static void refused_and_untouched(const char *name, const char *text, const char *want_suffix)
{
	char path[300], msg[512], want[700];
	path_of(path, sizeof path, name);
	write_file(path, text);
	struct progress p;
	assert_int_equal(progress_load(path, &p, msg, sizeof msg), -1);
	snprintf(want, sizeof want, "%s:%s", path, want_suffix);
	assert_string_equal(msg, want);
	assert_int_equal(p.ndone, 0);
	assert_string_equal(read_file(path), text);
}

static void test_a_corrupt_file_is_refused_with_its_line(void **state)
{
	(void)state;
	refused_and_untouched("bad-line.txt", "mha-tui-progress 1\nplace a b\nmode lesson\nbanana\n",
	                      "4: unexpected line: expected place, mode, done, shown, answered, wrong, at, tried or view");
	refused_and_untouched("bad-done.txt", "mha-tui-progress 1\nplace a b\nmode free\ndone \n",
	                      "4: expected 'done LESSON/STEP'");
	refused_and_untouched("bad-answer.txt", "mha-tui-progress 1\nplace a b\nmode free\nanswered a/b\n",
	                      "4: expected 'answered LESSON/STEP ANSWER'");
	refused_and_untouched("extra-answer.txt", "mha-tui-progress 1\nplace a b\nmode free\nanswered a/b 1 2\n",
	                      "4: expected 'answered LESSON/STEP ANSWER'");
	refused_and_untouched("long-answer.txt", "mha-tui-progress 1\nplace a b\nmode free\n"
	                      "answered a/b 0123456789012345678901234567890123\n",
	                      "4: expected 'answered LESSON/STEP ANSWER'");
	refused_and_untouched("bad-view.txt", "mha-tui-progress 1\nplace a b\nmode free\n"
	                      "view stage=1 panel=0 row=0 col=0 layout=2\n",
	                      "4: expected 'view stage=NAME panel=N row=N col=N layout=0|1'");
	refused_and_untouched("negative-view.txt", "mha-tui-progress 1\nplace a b\nmode free\n"
	                      "view stage=-1 panel=0 row=0 col=0 layout=0\n",
	                      "4: expected 'view stage=NAME panel=N row=N col=N layout=0|1'");
	refused_and_untouched("short-view.txt", "mha-tui-progress 1\nplace a b\nmode free\nview stage=1\n",
	                      "4: expected 'view stage=NAME panel=N row=N col=N layout=0|1'");
	refused_and_untouched("truncated.txt", "mha-tui-progress 1\nplace a b\n",
	                      "2: file ends early: 'place' and 'mode' lines expected");
	refused_and_untouched("half-place.txt", "mha-tui-progress 1\nplace a\n",
	                      "2: expected 'place LESSON STEP'");
}

static void test_a_foreign_file_is_refused(void **state)
{
	(void)state;
	refused_and_untouched("foreign.txt", "mha-tui-session 1\ntokens 6\n",
	                      "1: not an mha-tui progress file (first line must be 'mha-tui-progress 1'): "
	                      "left as it is");
	refused_and_untouched("future.txt", "mha-tui-progress 2\n", "1: unsupported progress version");
}

static void test_saving_leaves_no_temporary_files(void **state)
{
	(void)state;
	char sub[300], path[400], msg[512];
	path_of(sub, sizeof sub, "clean");
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(path, sizeof path, "%s/progress.txt", sub);
	struct progress p;
	progress_init(&p);
	for (int i = 0; i < 3; i++)
		assert_int_equal(progress_save(path, &p, msg, sizeof msg), 0);
	DIR *d = opendir(sub);
	int files = 0;
	for (struct dirent *e; (e = readdir(d));)
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1);
	progress_free(&p);
}

static void test_saving_into_a_missing_directory_fails_cleanly(void **state)
{
	(void)state;
	char path[300], msg[512];
	path_of(path, sizeof path, "no/such/dir/progress.txt");
	struct progress p;
	progress_init(&p);
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "cannot create a temporary file beside it"));
}

static void test_the_default_path_is_under_xdg_state_home(void **state)
{
	(void)state;
	char path[600], want[600], msg[512];
	setenv("XDG_STATE_HOME", dir, 1);
	assert_int_equal(progress_default_path(path, sizeof path, msg, sizeof msg), 0);
	snprintf(want, sizeof want, "%s/mha-tui/progress.txt", dir);
	assert_string_equal(path, want);
	setenv("XDG_STATE_HOME", "relative/is/ignored", 1);
	setenv("HOME", dir, 1);
	assert_int_equal(progress_default_path(path, sizeof path, msg, sizeof msg), 0);
	snprintf(want, sizeof want, "%s/.local/state/mha-tui/progress.txt", dir);
	assert_string_equal(path, want);
}

static void test_keys_that_cannot_be_stored_are_refused(void **state)
{
	(void)state;
	struct progress p;
	progress_init(&p);
	assert_int_equal(progress_mark_done(&p, ""), -1);
	assert_int_equal(progress_mark_done(&p, "has space"), -1);
	assert_int_equal(progress_mark_done(&p, "new\nline"), -1);
	assert_int_equal(p.ndone, 0);
	progress_set_place(&p, "bad name", "x", true);
	assert_string_equal(p.lesson, "");
	assert_false(p.in_lesson);
	progress_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_survives_a_round_trip),
		cmocka_unit_test(test_answers_given_survive_a_round_trip_and_merge),
		cmocka_unit_test(test_steps_shown_survive_a_round_trip_apart_from_done),
		cmocka_unit_test(test_the_step_state_survives_a_round_trip),
		cmocka_unit_test(test_the_view_survives_a_round_trip),
		cmocka_unit_test(test_a_stage_is_saved_by_its_label_and_old_numbers_still_load),
		cmocka_unit_test(test_leaving_for_the_free_workbench_keeps_the_place),
		cmocka_unit_test(test_a_missing_file_is_a_first_run),
		cmocka_unit_test(test_an_empty_file_is_a_first_run),
		cmocka_unit_test(test_a_corrupt_file_is_refused_with_its_line),
		cmocka_unit_test(test_a_foreign_file_is_refused),
		cmocka_unit_test(test_saving_leaves_no_temporary_files),
		cmocka_unit_test(test_saving_into_a_missing_directory_fails_cleanly),
		cmocka_unit_test(test_the_default_path_is_under_xdg_state_home),
		cmocka_unit_test(test_keys_that_cannot_be_stored_are_refused),
	};
	return cmocka_run_group_tests_name("lesson progress", tests, make_dir, remove_dir);
}
