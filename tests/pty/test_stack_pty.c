/*
 * test_stack_pty.c - layers and positions on the real workbench (pty +
 * libvterm), at 80x24 and 200x60, with and without NO_COLOR: y shows
 * layer 1, which reads the stream x_1; v on Projection shows RoPE's
 * rotated Q and K; @ shifts every position and the screen says the scores
 * moved by float rounding only; O back to no positions and ~ shuffles
 * the tokens, the screen saying the output rows only moved; q saves a
 * session that loads back with its layers. Each waits for the text it
 * needs, never for a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "mha.h"
#include "session.h"

enum { WAIT_MS = 10000 };

/* A state directory of its own, not the first run (progress with no
 * lesson: the free workbench). */
static void make_state(char *dir, size_t len, char *env, size_t elen)
{
	snprintf(dir, len, "/tmp/mha-pty-stack-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(env, elen, "XDG_STATE_HOME=%s", dir);
	assert_int_equal(pty_state_free_workbench(dir), 0);
}

static void wait_for(struct pty *p, const char *text)
{
	if (pty_wait_text(p, text, WAIT_MS) != 0) {
		printf("waited for \"%s\"; screen:\n%s\n", text, pty_screen(p));
		fflush(stdout);
		fail();
	}
}

/* The number on screen after `after`. */
static double number_after(struct pty *p, const char *after)
{
	const char *s = strstr(pty_screen(p), after);
	assert_non_null(s);
	return strtod(s + strlen(after), NULL);
}

static void run_at(int rows, int cols, bool mono)
{
	char dir[64], env[96], path[160], msg[MHA_MSG_MAX];
	make_state(dir, sizeof dir, env, sizeof env);
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", "--layers", "2", "--pos", "rope",
	                       "--seed", "2", NULL };
	struct pty *p = pty_start(argv, rows, cols,
	                          (const char *const[]){ env, mono ? "NO_COLOR=1" : "TERM=xterm-256color", NULL });
	assert_non_null(p);
	wait_for(p, "layer 0: Q 6x16 = X 6x16");
	pty_type(p, "y");
	wait_for(p, "layer 1: Q 6x16 = x");
	pty_type(p, "vvv");
	wait_for(p, "RoPE: Q_rot");
	pty_type(p, "@");
	wait_for(p, "scores moved ");
	assert_true(number_after(p, "scores moved ") < 1e-5);
	pty_type(p, "O"); /* RoPE -> none */
	wait_for(p, "positions none");
	pty_type(p, "~");
	wait_for(p, "old row by ");
	assert_true(number_after(p, "old row by ") < 1e-5);
	pty_type(p, "q");
	assert_int_equal(pty_wait_exit(p, WAIT_MS), 0);
	pty_free(p);
	snprintf(path, sizeof path, "%s/mha-tui/session.txt", dir);
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), 0);
	assert_int_equal(c.layers, 2);
	assert_int_equal(c.pos, MHA_POS_NONE);
	mha_weights_free(&w);
	assert_int_equal(pty_state_remove(dir), 0);
}

static void test_80x24(void **state)
{
	(void)state;
	run_at(24, 80, false);
}

static void test_200x60_no_color(void **state)
{
	(void)state;
	run_at(60, 200, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_80x24),
		cmocka_unit_test(test_200x60_no_color),
	};
	return cmocka_run_group_tests_name("stack_pty", tests, NULL, NULL);
}
