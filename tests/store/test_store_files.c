/*
 * test_store_files.c - no file the program reads can hang it or take
 * unbounded memory (doc/RELIABILITY.md): a FIFO with no writer, a device
 * and a directory in the place of a session, a progress file, a lesson
 * and an @include'd asset are each refused at once with a message saying
 * what it is; a symlink to a regular file is read through; a lesson that
 * includes a 1 MB asset 40 times is refused once its assets pass the
 * bound; progress saves merge done steps; session claims lock;
 * a file changed behind a stamp is seen, whatever changed.
 * An alarm turns a hang into a failure instead of a stuck suite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "claim.h"
#include "lesson.h"
#include "progress.h"
#include "readfile.h"
#include "session.h"
#include "tmpdir.h"

enum { HANG_S = 20 };

static void make_fifo(char *path, size_t len, const char *name)
{
	tmpdir_path(path, len, name);
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
}

static void test_readfile_refuses_fifo_device_and_directory_at_once(void **state)
{
	(void)state;
	char fifo[4096], why[256], *text;
	size_t n;
	make_fifo(fifo, sizeof fifo, "fifo");
	alarm(HANG_S);
	assert_int_equal(readfile_all(fifo, 1024, &text, &n, why, sizeof why), -1);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(readfile_all("/dev/zero", 1024, &text, &n, why, sizeof why), -1);
	assert_non_null(strstr(why, "not a regular file"));
	assert_int_equal(readfile_all(tmpdir_get(), 1024, &text, &n, why, sizeof why), -1);
	assert_non_null(strstr(why, "directory"));
	assert_null(readfile_open(fifo, why, sizeof why));
	alarm(0);
}

static void test_readfile_reads_through_a_symlink_and_bounds_the_size(void **state)
{
	(void)state;
	char file[4096], link[4096], why[256], *text;
	size_t n;
	tmpdir_path(file, sizeof file, "plain");
	tmpdir_path(link, sizeof link, "link");
	tmpdir_spit(file, "hello", 5);
	unlink(link);
	assert_int_equal(symlink(file, link), 0);
	assert_int_equal(readfile_all(link, 5, &text, &n, why, sizeof why), 0);
	assert_int_equal(n, 5);
	assert_string_equal(text, "hello");
	free(text);
	assert_int_equal(readfile_all(link, 4, &text, &n, why, sizeof why), -1);
	assert_non_null(strstr(why, "too large"));
}

static void test_a_fifo_session_or_progress_file_is_refused_at_once(void **state)
{
	(void)state;
	char fifo[4096], msg[1024];
	make_fifo(fifo, sizeof fifo, "session-fifo");
	alarm(HANG_S);
	struct mha_config c;
	struct mha_weights w;
	assert_int_equal(session_load(fifo, &c, &w, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "not a regular file"));
	struct progress p;
	assert_int_equal(progress_load(fifo, &p, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "not a regular file"));
	assert_non_null(strstr(msg, "left as it is"));
	progress_free(&p);
	alarm(0);
}

static void test_a_fifo_lesson_or_included_asset_is_refused_at_once(void **state)
{
	(void)state;
	char fifo[4096], lesson[4096];
	make_fifo(fifo, sizeof fifo, "01-fifo.lesson");
	alarm(HANG_S);
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(lesson_load(fifo, tmpdir_get(), &l, &errs), -1);
	assert_true(errs.count >= 1);
	assert_non_null(strstr(errs.msg[0], "not a regular file"));
	lesson_errors_free(&errs);
	/* an @include of a FIFO asset */
	make_fifo(fifo, sizeof fifo, "pipe.txt");
	tmpdir_path(lesson, sizeof lesson, "02-inc.lesson");
	static const char text[] = "mha-tui-lesson 1\n@lesson 2\n@title Inc\n@objective o\n\n"
	                           "@step a A\nSome prose.\n@include pipe\n";
	tmpdir_spit(lesson, text, sizeof text - 1);
	memset(&errs, 0, sizeof errs);
	assert_int_equal(lesson_load(lesson, tmpdir_get(), &l, &errs), -1);
	bool said = false;
	for (int i = 0; i < errs.count; i++)
		said |= strstr(errs.msg[i], "not a regular file") != NULL;
	assert_true(said);
	lesson_errors_free(&errs);
	alarm(0);
}

/* 40 includes of a 1 MB asset would take 40 MB: refused past 32 MB. */
static void test_includes_are_bounded_in_memory(void **state)
{
	(void)state;
	char asset[4096], lesson[4096];
	tmpdir_path(asset, sizeof asset, "big.txt");
	size_t big = 1000 * 1000;
	char *text = malloc(big);
	assert_non_null(text);
	for (size_t i = 0; i < big; i++)
		text[i] = i % 64 == 63 ? '\n' : 'a';
	tmpdir_spit(asset, text, big);
	free(text);
	char src[4096];
	int at = snprintf(src, sizeof src, "mha-tui-lesson 1\n@lesson 3\n@title Big\n@objective o\n\n@step a A\nProse.\n");
	for (int i = 0; i < 40; i++)
		at += snprintf(src + at, sizeof src - (size_t)at, "@include big\n");
	tmpdir_path(lesson, sizeof lesson, "03-big.lesson");
	tmpdir_spit(lesson, src, (size_t)at);
	struct lesson l;
	struct lesson_errors errs = { 0 };
	assert_int_equal(lesson_load(lesson, tmpdir_get(), &l, &errs), -1);
	bool said = false;
	for (int i = 0; i < errs.count; i++)
		said |= strstr(errs.msg[i], "pass 32 MB") != NULL;
	if (!said && errs.count)
		print_message("first: %s\n", errs.msg[0]);
	assert_true(said);
	lesson_errors_free(&errs);
}

/* Two instances saving progress: neither drops the other's done steps. */
static void test_progress_saves_merge_done_steps(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	tmpdir_path(path, sizeof path, "progress.txt");
	struct progress a, b, got;
	progress_init(&a);
	progress_init(&b);
	assert_int_equal(progress_mark_done(&a, "one/look"), 0);
	assert_int_equal(progress_mark_done(&b, "two/split"), 0);
	progress_set_place(&b, "two", "split", true);
	assert_int_equal(progress_save(path, &a, msg, sizeof msg), 0);
	assert_int_equal(progress_save(path, &b, msg, sizeof msg), 0); /* b never saw a's step */
	assert_int_equal(progress_load(path, &got, msg, sizeof msg), 0);
	assert_true(progress_is_done(&got, "one/look"));
	assert_true(progress_is_done(&got, "two/split"));
	assert_string_equal(got.lesson, "two"); /* the place is the last saver's */
	progress_free(&got);
	progress_free(&a);
	progress_free(&b);
}

/* A lock per session: a second claim is told who holds it and gets the
 * next free name (backups: tests/store/test_write_path.c). */
static void test_a_second_claim_gets_another_name_and_the_holder(void **state)
{
	(void)state;
	char path[4096], out[4096], alt[4096];
	tmpdir_path(path, sizeof path, "claimed.txt");
	int holder = -1;
	assert_int_equal(claim_session(path, out, sizeof out, &holder), 0);
	assert_string_equal(out, path);
	/* a new open file description: the lock conflicts as another process's would */
	assert_int_equal(claim_session(path, out, sizeof out, &holder), 1);
	assert_int_equal(holder, (int)getpid());
	tmpdir_path(alt, sizeof alt, "claimed-2.txt");
	assert_string_equal(out, alt);
}

/* A file changed behind a run is seen by what changed: its content at the
 * same size and mtime (the hash), its mtime, its identity (replaced by
 * rename); a file gone, or a stamp never taken, has nothing to lose. The
 * name beside it is a fresh one. */
static void test_a_file_changed_behind_the_stamp_is_seen(void **state)
{
	(void)state;
	char path[4096], tmp[4096], beside[4096], want[4096];
	tmpdir_path(path, sizeof path, "stamped.txt");
	tmpdir_spit(path, "abcdef", 6);
	struct claim_stamp s, never = { 0 };
	claim_stamp_read(path, &s);
	assert_true(s.taken && s.exists);
	assert_false(claim_stamp_changed(&s, path));
	/* the same size and mtime, another content: only the hash tells */
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	tmpdir_spit(path, "abcdeX", 6);
	struct timespec back[2] = { st.st_atim, st.st_mtim };
	assert_int_equal(utimensat(AT_FDCWD, path, back, 0), 0);
	assert_true(claim_stamp_changed(&s, path));
	assert_false(claim_stamp_changed(&never, path));
	/* the same content written again: a new mtime */
	tmpdir_spit(path, "abcdef", 6);
	struct timespec later[2] = { { 0, UTIME_OMIT }, { st.st_mtim.tv_sec + 5, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, path, later, 0), 0);
	assert_true(claim_stamp_changed(&s, path));
	/* replaced by a rename, as an editor saves */
	claim_stamp_read(path, &s);
	tmpdir_path(tmp, sizeof tmp, "stamped.new");
	tmpdir_spit(tmp, "abcdef", 6);
	assert_int_equal(utimensat(AT_FDCWD, tmp, later, 0), 0);
	assert_int_equal(rename(tmp, path), 0);
	assert_true(claim_stamp_changed(&s, path));
	/* gone: nothing to overwrite */
	claim_stamp_read(path, &s);
	unlink(path);
	assert_false(claim_stamp_changed(&s, path));
	/* beside: the first name that does not exist yet */
	tmpdir_path(want, sizeof want, "stamped-2.txt");
	tmpdir_spit(want, "other", 5);
	assert_int_equal(claim_beside(path, beside, sizeof beside), 0);
	tmpdir_path(want, sizeof want, "stamped-3.txt");
	assert_string_equal(beside, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readfile_refuses_fifo_device_and_directory_at_once),
		cmocka_unit_test(test_readfile_reads_through_a_symlink_and_bounds_the_size),
		cmocka_unit_test(test_a_fifo_session_or_progress_file_is_refused_at_once),
		cmocka_unit_test(test_a_fifo_lesson_or_included_asset_is_refused_at_once),
		cmocka_unit_test(test_includes_are_bounded_in_memory),
		cmocka_unit_test(test_progress_saves_merge_done_steps),
		cmocka_unit_test(test_a_second_claim_gets_another_name_and_the_holder),
		cmocka_unit_test(test_a_file_changed_behind_the_stamp_is_seen),
	};
	return cmocka_run_group_tests_name("files the program reads", tests, tmpdir_make, tmpdir_remove);
}
