/*
 * test_save_window.c - a save never replaces a file another program
 * changed, not even between the save's last check and its rename (a test
 * hook of statefile.c makes the change right there, no timing); and a
 * save that splits hard links says so (status line; the exit message is
 * tui.c's, from the count checked here); a second instance never takes
 * a name that exists. Deliberately not here: the
 * checks made before the save starts (tests/store/test_store_files.c,
 * tests/tui/test_app.c).
 */
#define _GNU_SOURCE /* renameat2, to probe the filesystem */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "app.h"
#include "claim.h"
#include "readfile.h"
#include "save.h"
#include "session.h"
#include "statefile.h"
#include "tmpdir.h"
#include "tui_check.h"

/* Another program writes the file in place. */
static void write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

/* The file's text, into buf (cut to len - 1 bytes). */
static char *read_text(const char *path, char *buf, size_t len)
{
	char *text, why[256];
	size_t size;
	assert_int_equal(readfile_all(path, 1 << 20, &text, &size, why, sizeof why), 0);
	snprintf(buf, len, "%s", text);
	free(text);
	return buf;
}

/* What the other program does, and at which stage of the save. */
static int hook_stage;
static int hook_kind; /* 0 write in place, 1 replace by a rename, 2 create */
static int hook_calls;

static void other_program(const char *path, int stage)
{
	char tmp[4200];
	if (stage != hook_stage)
		return;
	hook_stage = -1; /* once: a save that then goes beside is left alone */
	hook_calls++;
	if (hook_kind == 1) {
		snprintf(tmp, sizeof tmp, "%s.editor", path);
		write_text(tmp, "changed by hand\n");
		assert_int_equal(rename(tmp, path), 0);
	} else {
		write_text(path, "changed by hand\n");
	}
}

/* Does the filesystem of the test directory exchange names (renameat2
 * RENAME_EXCHANGE)? Without it the save's last word is the check before
 * a plain rename, and a change made after that check is not seen
 * (doc/RELIABILITY.md): those cases are then left out, and said. */
static bool exchange_works(void)
{
	char a[4096], b[4096];
	tmpdir_path(a, sizeof a, "probe-a");
	tmpdir_path(b, sizeof b, "probe-b");
	write_text(a, "a");
	write_text(b, "b");
	bool works = renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0;
	unlink(a);
	unlink(b);
	return works;
}

/* No temporary file is left beside path. */
static void assert_no_temporary(void)
{
	char cmd[4300];
	snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '\\.tmp\\.'", tmpdir_get());
	assert_int_not_equal(system(cmd), 0);
}

/* The other program writes in place, or renames a new file in, or creates
 * the file that was absent; just before the check that precedes the
 * rename (stage 0) or between that check and the rename (stage 1: only
 * the exchange sees it): every time the save refuses, the changed file is
 * at its name whole, and nothing is left behind. */
static void test_a_change_up_to_the_rename_is_never_replaced(void **state)
{
	(void)state;
	char path[4096], buf[256], msg[MHA_MSG_MAX + 4096];
	struct mha_weights w;
	struct mha_config c = tui_check_default_weights(&w);
	tmpdir_path(path, sizeof path, "window.txt");
	bool exchange = exchange_works();
	if (!exchange)
		print_message("no RENAME_EXCHANGE on this filesystem: changes after the last check not tried\n");
	for (int kind = 0; kind < 3; kind++)
		for (int stage = 0; stage < (exchange ? 2 : 1); stage++) {
			statefile_test_hook = NULL;
			unlink(path);
			if (kind != 2)
				assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
			struct claim_stamp s;
			claim_stamp_read(path, &s);
			statefile_test_hook = other_program;
			hook_kind = kind;
			hook_stage = stage;
			hook_calls = 0;
			struct statefile_check chk = { .expect = &s };
			assert_int_equal(session_save_checked(path, &c, &w, &chk, msg, sizeof msg), STATEFILE_CHANGED);
			assert_int_equal(hook_calls, 1);
			assert_non_null(strstr(msg, "another program changed it"));
			assert_string_equal(read_text(path, buf, sizeof buf), "changed by hand\n");
			assert_no_temporary();
		}
	/* with nothing changed, the checked save replaces the file (the text
	 * left by hand is no session: the save would keep it, refused) */
	hook_stage = -1;
	unlink(path);
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	struct claim_stamp s;
	claim_stamp_read(path, &s);
	struct statefile_check chk = { .expect = &s };
	assert_int_equal(session_save_checked(path, &c, &w, &chk, msg, sizeof msg), 0);
	assert_true(chk.replaced);
	struct mha_config back;
	struct mha_weights bw;
	assert_int_equal(session_load(path, &back, &bw, msg, sizeof msg), 0);
	mha_weights_free(&bw);
	assert_no_temporary();
	statefile_test_hook = NULL;
	mha_weights_free(&w);
	unlink(path);
}

/* Through the workbench: w after an edit, while another program changes
 * the file inside the save's rename window: the edits go to the next
 * free name beside it, said on the status line, and later saves go there. */
static void test_a_change_in_the_rename_window_sends_the_save_beside(void **state)
{
	(void)state;
	if (!exchange_works())
		skip();
	char path[4096], beside[4096], buf[256];
	tmpdir_path(path, sizeof path, "s.txt");
	tmpdir_path(beside, sizeof beside, "s-2.txt");
	struct app *app = tui_check_open(NULL);
	app->save.session_path = path;
	tui_check_keys(app, "+w");
	assert_false(app->status_error);
	statefile_test_hook = other_program;
	hook_kind = 0;
	hook_stage = 1;
	hook_calls = 0;
	tui_check_keys(app, "+w");
	statefile_test_hook = NULL;
	assert_int_equal(hook_calls, 1);
	assert_false(app->status_error);
	assert_string_equal(read_text(path, buf, sizeof buf), "changed by hand\n");
	assert_string_equal(app->save.session_path, beside);
	assert_non_null(strstr(app->status, "changed on disk"));
	assert_string_equal(app->save.changed_behind, path);
	struct mha_config c;
	struct mha_weights w;
	char msg[MHA_MSG_MAX + 4096];
	assert_int_equal(session_load(beside, &c, &w, msg, sizeof msg), 0);
	assert_memory_equal(w.x, app->w.x, (size_t)c.n * (size_t)c.d * sizeof *w.x);
	mha_weights_free(&w);
	/* the crash note follows: the autosave beside the new name */
	char autop[4200];
	assert_int_equal(app_autosave_path(app, autop, sizeof autop), 0);
	assert_non_null(strstr(autop, "s-2.txt.autosave"));
	tui_check_close(app);
	unlink(path);
	unlink(beside);
}

/* A session with another hard link: a save replaces the file (atomic), so
 * the other name keeps the session from before; the status line says so,
 * and the count is kept for the exit message. Its own numbered backup (a
 * link on purpose, a run from flags) is not counted. */
static void test_a_save_that_splits_a_hard_link_says_so(void **state)
{
	(void)state;
	char path[4096], other[4096], backup[4096], before[8192], buf[8192];
	tmpdir_path(path, sizeof path, "linked.txt");
	tmpdir_path(other, sizeof other, "other-name.txt");
	tmpdir_path(backup, sizeof backup, "linked.txt.~1~");
	struct app *app = tui_check_open(NULL);
	app->save.session_path = path;
	tui_check_keys(app, "+w");
	assert_int_equal(link(path, backup), 0);
	tui_check_keys(app, "+w"); /* only its backup: nothing said */
	assert_int_equal(app->save.links_split, 0);
	assert_null(strstr(app->status, "hard link"));
	assert_int_equal(link(path, other), 0);
	read_text(path, before, sizeof before);
	tui_check_keys(app, "+w");
	assert_false(app->status_error);
	assert_int_equal(app->save.links_split, 1);
	assert_string_equal(app->save.links_split_path, path);
	assert_non_null(strstr(app->status, "saved, but 1 other hard link still holds the session from before"));
	assert_string_equal(read_text(other, buf, sizeof buf), before);
	assert_string_not_equal(read_text(path, buf, sizeof buf), before);
	tui_check_close(app);
	unlink(path);
	unlink(other);
	unlink(backup);
}

/* A second instance while the first holds the session: it saves to the
 * first -N name that does not exist, never to an earlier second
 * instance's session-2.txt (unlocked once that one quit, with its edits
 * in it: the adversary's N1). */
static void test_a_second_instance_never_takes_a_name_that_exists(void **state)
{
	(void)state;
	char path[4096], two[4096], out[4096], buf[256];
	int holder = -1;
	tmpdir_path(path, sizeof path, "claimed.txt");
	tmpdir_path(two, sizeof two, "claimed-2.txt");
	write_text(path, "first\n");
	assert_int_equal(claim_session(path, out, sizeof out, &holder), 0); /* the first instance: this process */
	write_text(two, "an earlier second instance's edits\n");
	assert_int_equal(claim_session(path, out, sizeof out, &holder), 1); /* flock: per open file */
	assert_int_equal(holder, (int)getpid());
	assert_non_null(strstr(out, "claimed-3.txt"));
	assert_string_equal(read_text(two, buf, sizeof buf), "an earlier second instance's edits\n");
}

/* A NUL byte after 'end' (then junk) is refused like any text after it:
 * it hid the junk, and the file loaded (the adversary's M9). */
static void test_a_nul_byte_after_end_is_refused(void **state)
{
	(void)state;
	char path[4096], msg[MHA_MSG_MAX + 4096];
	struct mha_weights w;
	struct mha_config c = tui_check_default_weights(&w);
	tmpdir_path(path, sizeof path, "nul.txt");
	assert_int_equal(session_save(path, &c, &w, msg, sizeof msg), 0);
	mha_weights_free(&w);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	assert_int_equal(fwrite("\0\nmore\n", 1, 6, f), 6);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(session_load(path, &c, &w, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "a NUL byte"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_change_up_to_the_rename_is_never_replaced),
		cmocka_unit_test(test_a_change_in_the_rename_window_sends_the_save_beside),
		cmocka_unit_test(test_a_save_that_splits_a_hard_link_says_so),
		cmocka_unit_test(test_a_second_instance_never_takes_a_name_that_exists),
		cmocka_unit_test(test_a_nul_byte_after_end_is_refused),
	};
	return cmocka_run_group_tests_name("save_window", tests, tmpdir_make, tmpdir_remove);
}
