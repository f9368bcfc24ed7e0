/*
 * test_train_pty.c - the training screen on the real binary (pty +
 * libvterm) at 80x24 with colour and 200x60 with NO_COLOR (two runs, not
 * four: each trains until a head forms): G opens it at full speed on the
 * free workbench, c the previous-token task (its head forms within some 40
 * steps, seconds even under the sanitizers); - slows it to "20 steps/s"
 * and Space runs it there; + back to full speed until the head forms (its
 * mark on the log-step loss chart, "^prev" or "prev ...^"); [
 * scrubs back ("(recorded)"), } returns to now; ? lists the screen's own
 * words; q quits with status 0. Each waits for the text it needs, never
 * for a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

enum { WAIT_MS = 30000 };

static void wait_for(struct pty *p, const char *text)
{
	if (pty_wait_text(p, text, WAIT_MS) != 0) {
		printf("waited for \"%s\"; screen:\n%s\n", text, pty_screen(p));
		fflush(stdout);
		fail();
	}
}

static void run_at(int rows, int cols, bool mono)
{
	char dir[] = "/tmp/mha-pty-train-XXXXXX", env[96];
	assert_non_null(mkdtemp(dir));
	snprintf(env, sizeof env, "XDG_STATE_HOME=%s", dir);
	assert_int_equal(pty_state_free_workbench(dir), 0);
	const char *argv[] = { getenv("MHA_TUI") ? getenv("MHA_TUI") : "./mha-tui", NULL };
	struct pty *p = pty_start(argv, rows, cols,
	                          (const char *const[]){ env, mono ? "NO_COLOR=1" : "TERM=xterm-256color", NULL });
	assert_non_null(p);
	wait_for(p, "Projection");
	pty_type(p, "G");
	wait_for(p, "Training: induction");
	wait_for(p, "full speed");
	pty_type(p, "c");
	wait_for(p, "Training: previous");
	pty_type(p, "------");
	wait_for(p, "paused  20 steps/s");
	pty_type(p, " ");
	wait_for(p, "running  20 steps/s");
	wait_for(p, "^ will mark the step"); /* it trains: the chart has begun */
	pty_type(p, "++++++");
	wait_for(p, "running  full speed");
	wait_for(p, "previous head formed at step");
	wait_for(p, "^prev "); /* the mark (its label moves right of it as the run grows) */
	pty_type(p, " ");
	wait_for(p, " paused  full speed");
	pty_type(p, "[");
	wait_for(p, "(recorded)");
	pty_type(p, "}");
	wait_for(p, "now: step");
	assert_null(strstr(pty_screen(p), "(recorded)"));
	pty_type(p, "?");
	wait_for(p, "Words on this screen");
	wait_for(p, "the probe");
	pty_type(p, " "); /* closes the help */
	wait_for(p, "Training: previous");
	pty_type(p, "q");
	assert_int_equal(pty_wait_exit(p, WAIT_MS), 0);
	pty_free(p);
	assert_int_equal(pty_state_remove(dir), 0);
}

static void test_small_colour(void **state)
{
	(void)state;
	run_at(24, 80, false);
}

static void test_large_mono(void **state)
{
	(void)state;
	run_at(60, 200, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_colour),
		cmocka_unit_test(test_large_mono),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
