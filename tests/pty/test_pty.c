/*
 * test_pty.c - the real mha-tui binary on a pseudo-terminal, read through
 * libvterm: what a person at a terminal sees, and the state the terminal is
 * left in. The harness is checked first against /bin/sh, so that a broken
 * harness cannot pass the program's tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

static const char *program(void)
{
	const char *p = getenv("MHA_TUI");
	return p ? p : "./mha-tui";
}

static int exit_code(int status)
{
	return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- the harness itself ---- */

static void test_harness_sees_termios_left_raw(void **state)
{
	(void)state;
	const char *argv[] = { "/bin/sh", "-c", "stty -echo -icanon; printf done", NULL };
	struct pty *p = pty_start(argv, 24, 80, NULL);
	assert_non_null(p);
	assert_int_equal(exit_code(pty_wait_exit(p, 5000)), 0);
	assert_non_null(strstr(pty_screen(p), "done"));
	assert_false(pty_termios_restored(p));
	pty_free(p);
}

static void test_harness_sees_alternate_screen_left_on(void **state)
{
	(void)state;
	const char *argv[] = { "/bin/sh", "-c", "printf 'main'; printf '\\033[?1049h\\033[?25lalt'", NULL };
	struct pty *p = pty_start(argv, 24, 80, NULL);
	assert_non_null(p);
	assert_int_equal(exit_code(pty_wait_exit(p, 5000)), 0);
	assert_true(pty_altscreen(p));
	assert_false(pty_cursor_visible(p));
	assert_string_equal(pty_row(p, 0), "    alt"); /* 1049 keeps the cursor where it was */
	assert_true(pty_termios_restored(p));
	pty_free(p);
}

static void test_harness_passes_keys_and_size(void **state)
{
	(void)state;
	const char *argv[] = { "/bin/sh", "-c", "stty size; read line; echo \"got $line\"", NULL };
	struct pty *p = pty_start(argv, 30, 100, (const char *const[]){ "LINES=5", NULL });
	assert_non_null(p);
	assert_int_equal(pty_wait_text(p, "30 100", 5000), 0);
	pty_type(p, "abc\n");
	assert_int_equal(exit_code(pty_wait_exit(p, 5000)), 0);
	assert_non_null(strstr(pty_screen(p), "got abc"));
	pty_free(p);
}

/* ---- mha-tui without a usable terminal ---- */

/* The program must refuse with one clear line and a non-zero status,
 * leave the terminal as it found it, and never claim success. */
static void check_refuses_terminal(const char *term_setting)
{
	const char *argv[] = { program(), NULL };
	struct pty *p = pty_start(argv, 24, 80, (const char *const[]){ term_setting, NULL });
	assert_non_null(p);
	int code = exit_code(pty_wait_exit(p, 5000));
	const char *screen = pty_screen(p);
	print_message("TERM setting '%s': exit %d, screen:\n%s", term_setting, code, screen);
	assert_true(code > 0);
	assert_true(strncmp(screen, "mha-tui: ", 9) == 0);
	assert_non_null(strstr(screen, "TERM")); /* names the cause */
	assert_non_null(strstr(pty_output(p, NULL), "--dump json")); /* and the way out */
	assert_false(pty_altscreen(p));
	assert_true(pty_cursor_visible(p));
	assert_true(pty_termios_restored(p));
	assert_null(strstr(pty_output(p, NULL), "Sanitizer"));
	pty_free(p);
}

static void test_term_unset_is_refused_clearly(void **state)
{
	(void)state;
	check_refuses_terminal("TERM");
}

static void test_term_dumb_is_refused_clearly(void **state)
{
	(void)state;
	check_refuses_terminal("TERM=dumb");
}

static void test_term_unknown_is_refused_clearly(void **state)
{
	(void)state;
	check_refuses_terminal("TERM=no-such-terminal-xyz");
}

/* ---- headless modes on a terminal ---- */

static void test_help_prints_usage_and_exits_zero(void **state)
{
	(void)state;
	const char *argv[] = { program(), "--help", NULL };
	/* rows enough for the whole text (62 lines), so its first line is still on screen */
	struct pty *p = pty_start(argv, 80, 100, NULL);
	assert_non_null(p);
	assert_int_equal(exit_code(pty_wait_exit(p, 5000)), 0);
	assert_non_null(strstr(pty_screen(p), "usage: mha-tui"));
	assert_int_equal(pty_altscreen_entries(p), 0);
	assert_true(pty_termios_restored(p));
	pty_free(p);
}

static void test_dump_on_a_terminal_is_plain_json(void **state)
{
	(void)state;
	const char *argv[] = { program(), "--dump", "json", "--tokens", "2", "--d-model", "4",
	                       "--heads", "2", NULL };
	struct pty *p = pty_start(argv, 24, 80, NULL);
	assert_non_null(p);
	assert_int_equal(exit_code(pty_wait_exit(p, 5000)), 0);
	const char *out = pty_output(p, NULL);
	assert_non_null(strstr(out, "\"output\": [["));
	assert_null(strstr(out, "\033[")); /* no escape sequence: the dump never draws */
	assert_null(strstr(out, "null"));
	assert_null(strstr(out, "nan"));
	assert_int_equal(pty_altscreen_entries(p), 0);
	pty_free(p);
}

static void test_bad_flag_on_a_terminal_exits_2_with_one_line(void **state)
{
	(void)state;
	const char *argv[] = { program(), "--heads", "-3", NULL };
	struct pty *p = pty_start(argv, 24, 80, NULL);
	assert_non_null(p);
	assert_int_equal(exit_code(pty_wait_exit(p, 5000)), 2);
	const char *first = pty_row(p, 0);
	assert_true(strncmp(first, "mha-tui: --heads", 16) == 0 && strstr(first, "-3"));
	assert_int_equal(strspn(pty_screen(p) + strcspn(pty_screen(p), "\n"), "\n"), 24);
	assert_int_equal(pty_altscreen_entries(p), 0);
	pty_free(p);
}

/* --check-lessons draws each question step headless (never on the
 * terminal) and refuses a lesson whose answer is on the step's own screen,
 * naming the file, the line, the step and the answer; the shipped lessons
 * pass. */
static void test_check_lessons_refuses_an_answer_shown_on_its_own_screen(void **state)
{
	(void)state;
	static const char lesson[] =
		"mha-tui-lesson 1\n@lesson 1\n@title Shown\n@objective An answer in plain sight.\n"
		"@config tokens=4 d_model=16 heads=4 seed=3\n"
		"@step width Width\n@question How wide is d_model?\n@answer 16\n@hint h1\n@hint h2\n@hint h3\n"
		"@focus Reshape\n@step end The end\nDone.\n";
	char dir[] = "/tmp/mha-test-shown-XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/01-shown.lesson", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(lesson, f);
	assert_int_equal(fclose(f), 0);
	const char *argv[] = { program(), "--check-lessons", dir, NULL };
	struct pty *p = pty_start(argv, 24, 200, NULL);
	assert_non_null(p);
	assert_int_equal(exit_code(pty_wait_exit(p, 20000)), 1);
	const char *screen = pty_screen(p);
	assert_non_null(strstr(screen, "01-shown.lesson:7: step 'width': its screen shows the answer 16 before the "
	                               "learner answers: @hide what shows it"));
	assert_non_null(strstr(screen, "1 error"));
	assert_int_equal(pty_altscreen_entries(p), 0); /* drawn headless, never here */
	assert_true(pty_termios_restored(p));
	pty_free(p);
	unlink(path);
	rmdir(dir);
	const char *shipped[] = { program(), "--check-lessons", NULL };
	p = pty_start(shipped, 24, 200, NULL);
	assert_non_null(p);
	assert_int_equal(exit_code(pty_wait_exit(p, 20000)), 0);
	assert_non_null(strstr(pty_screen(p), "exercises: ok"));
	assert_int_equal(pty_altscreen_entries(p), 0);
	pty_free(p);
}

/* --lesson 2 where lesson 2's @include asset is a FIFO: the message
 * names the lesson file and why it did not load, not "no such lesson"
 * (the adversary's M13); exit 1, a file problem. */
static void test_a_lesson_whose_asset_is_unreadable_says_why(void **state)
{
	(void)state;
	static const char one[] = "mha-tui-lesson 1\n@lesson 1\n@title One\n@objective o.\n"
	                          "@config tokens=4 d_model=16 heads=4 seed=3\n@step end The end\nDone.\n";
	static const char two[] = "mha-tui-lesson 1\n@lesson 2\n@title Two\n@objective o.\n"
	                          "@config tokens=4 d_model=16 heads=4 seed=3\n@step end The end\n@include pipe\n";
	char dir[] = "/tmp/mha-test-fifo-XXXXXX", path[3][160], state_env[160];
	assert_non_null(mkdtemp(dir));
	snprintf(path[0], sizeof path[0], "%s/01-one.lesson", dir);
	snprintf(path[1], sizeof path[1], "%s/02-two.lesson", dir);
	snprintf(path[2], sizeof path[2], "%s/assets", dir);
	const char *texts[] = { one, two };
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(path[i], "w");
		assert_non_null(f);
		fputs(texts[i], f);
		assert_int_equal(fclose(f), 0);
	}
	assert_int_equal(mkdir(path[2], 0700), 0);
	char fifo[200];
	snprintf(fifo, sizeof fifo, "%s/pipe.txt", path[2]); /* @include NAME reads NAME.txt */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s", dir);
	const char *argv[] = { program(), "--lessons-dir", dir, "--lesson", "2", NULL };
	struct pty *p = pty_start(argv, 24, 200, (const char *const[]){ state_env, NULL });
	assert_non_null(p);
	int code = exit_code(pty_wait_exit(p, 20000));
	const char *screen = pty_output(p, NULL); /* the line whole, not as wrapped */
	assert_int_equal(code, 1);
	assert_null(strstr(screen, "no such lesson"));
	assert_non_null(strstr(screen, "02-two.lesson"));
	assert_non_null(strstr(screen, "not a regular file"));
	assert_true(pty_termios_restored(p));
	pty_free(p);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A FIFO in the place of progress.txt is refused and left alone; the run
 * says that its progress is not saved, on the status line at the start
 * and on stderr at exit (it said nothing: the adversary's M15). */
static void test_a_fifo_progress_file_is_said_not_saved(void **state)
{
	(void)state;
	char dir[] = "/tmp/mha-test-pfifo-XXXXXX", sub[160], fifo[200], state_env[160];
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/mha-tui", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(fifo, sizeof fifo, "%s/progress.txt", sub);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s", dir);
	const char *argv[] = { program(), "--tokens", "4", NULL };
	struct pty *p = pty_start(argv, 24, 80, (const char *const[]){ state_env, NULL });
	assert_non_null(p);
	assert_int_equal(pty_wait_text(p, "progress not saved this run", 20000), 0);
	pty_char(p, 'q');
	assert_int_equal(exit_code(pty_wait_exit(p, 20000)), 0);
	const char *out = pty_output(p, NULL);
	assert_non_null(strstr(out, "mha-tui: progress not saved this run (the file is left untouched): "));
	assert_non_null(strstr(out, "progress.txt: is not a regular file"));
	assert_true(pty_termios_restored(p));
	pty_free(p);
	struct stat st;
	assert_int_equal(stat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode)); /* left as it was */
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* --dump into /dev/full: exit 1 and the message P1 promises (it said only
 * "writing the dump failed"). */
static void test_a_dump_into_a_full_disk_says_so(void **state)
{
	(void)state;
	char cmd[4200], line[512] = "";
	snprintf(cmd, sizeof cmd, "'%s' --dump json --tokens 2 --d-model 4 --heads 2 2>&1 >/dev/full; echo \"rc=$?\"",
	         program());
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	char all[2048] = "";
	while (fgets(line, sizeof line, f))
		strncat(all, line, sizeof all - strlen(all) - 1);
	assert_int_equal(pclose(f), 0);
	assert_non_null(strstr(all, "mha-tui: cannot write to standard output: No space left on device\n"));
	assert_non_null(strstr(all, "rc=1\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness_sees_termios_left_raw),
		cmocka_unit_test(test_harness_sees_alternate_screen_left_on),
		cmocka_unit_test(test_harness_passes_keys_and_size),
		cmocka_unit_test(test_term_unset_is_refused_clearly),
		cmocka_unit_test(test_term_dumb_is_refused_clearly),
		cmocka_unit_test(test_term_unknown_is_refused_clearly),
		cmocka_unit_test(test_help_prints_usage_and_exits_zero),
		cmocka_unit_test(test_dump_on_a_terminal_is_plain_json),
		cmocka_unit_test(test_bad_flag_on_a_terminal_exits_2_with_one_line),
		cmocka_unit_test(test_check_lessons_refuses_an_answer_shown_on_its_own_screen),
		cmocka_unit_test(test_a_dump_into_a_full_disk_says_so),
		cmocka_unit_test(test_a_lesson_whose_asset_is_unreadable_says_why),
		cmocka_unit_test(test_a_fifo_progress_file_is_said_not_saved),
	};
	return cmocka_run_group_tests_name("pty", tests, NULL, NULL);
}
