/*
 * test_write_path.c - the one write path (src/store/writefile.c): what it
 * checks before the work starts (a name, a directory that takes a file,
 * nothing of another kind in the way, no loop of symlinks), what it keeps
 * (a read-only file, a file of another kind, a directory, a device or a
 * pipe for a state file), where it writes (through a symlink to its
 * target, a dangling one's target created, into /dev/null or a pipe for
 * an export), and its backups: copies, through symlinks, kept only when
 * the file was replaced, ten at the most, made even with 999 in the way.
 * The real binary's use of them is tests/pty/test_files.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mha.h"
#include "progress.h"
#include "session.h"
#include "fixture.h"
#include "writefile.h"


static int text_fill(FILE *f, const void *ctx, char *why, size_t len)
{
	(void)why;
	(void)len;
	fputs(ctx, f);
	return 0;
}

static char *slurp(const char *path)
{
	size_t n;
	return tmpdir_slurp(path, &n);
}

static void assert_text(const char *path, const char *want)
{
	char *got = slurp(path);
	assert_string_equal(got, want);
	free(got);
}

/* A backup is a copy (its own inode, a regular file), removed again when
 * the file was not replaced, kept when it was, holding the old text. */
static void test_a_backup_is_a_copy_kept_only_when_the_file_was_replaced(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	struct writefile_backup b;
	tmpdir_path(path, sizeof path, "kept.txt");
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), 0);
	char *old = slurp(path);
	assert_int_equal(writefile_backup(path, &b, msg, sizeof msg), 0);
	assert_non_null(strstr(b.path, "kept.txt.~1~"));
	struct stat a, c;
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(lstat(b.path, &c), 0);
	assert_true(S_ISREG(c.st_mode));
	assert_true(a.st_ino != c.st_ino);
	assert_false(writefile_backup_settle(path, &b)); /* not replaced: removed */
	assert_int_not_equal(access(path, F_OK) == 0 && access(b.path, F_OK) == 0, 1);
	assert_int_equal(writefile_backup(path, &b, msg, sizeof msg), 0);
	wts.x[0] += 1.0f;
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), 0);
	wts.x[0] -= 1.0f;
	assert_true(writefile_backup_settle(path, &b));
	assert_text(b.path, old);
	free(old);
	/* nothing there: nothing to keep, and nothing said */
	tmpdir_path(path, sizeof path, "never.txt");
	assert_int_equal(writefile_backup(path, &b, msg, sizeof msg), 0);
	assert_string_equal(b.path, "");
	assert_false(writefile_backup_settle(path, &b));
}

/* The session kept through a symlink (doc/SESSION.md): the backup is a
 * copy of the target, the save replaces the target and the link stays a
 * link, and the backup survives the settle (it was a link to the symlink,
 * which then led to the new file, and was thrown away: the adversary's 1). */
static void test_a_backup_through_a_symlink_survives_the_save(void **state)
{
	(void)state;
	char link[4096], target[4096], msg[1024];
	struct writefile_backup b;
	tmpdir_path(link, sizeof link, "linked.txt");
	tmpdir_path(target, sizeof target, "real-session.txt");
	assert_int_equal(session_save(target, &cfg, &wts, msg, sizeof msg), 0);
	char *old = slurp(target);
	assert_int_equal(symlink("real-session.txt", link), 0);
	assert_int_equal(writefile_backup(link, &b, msg, sizeof msg), 0);
	struct stat st;
	assert_int_equal(lstat(b.path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	wts.x[1] += 2.0f;
	assert_int_equal(session_save(link, &cfg, &wts, msg, sizeof msg), 0);
	wts.x[1] -= 2.0f;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_true(writefile_backup_settle(link, &b));
	assert_text(b.path, old);
	char *now = slurp(target);
	assert_string_not_equal(now, old);
	free(now);
	free(old);
}

/* 999 numbered backups in the way (never pruned before): one is still
 * made (the numbers start again from 1, in order), and only the newest
 * ten are left (the adversary's 10: the run replaced the session with no
 * backup, and said nothing). */
static void test_999_backups_in_the_way_still_make_one_and_ten_are_kept(void **state)
{
	(void)state;
	char path[4096], name[4200], msg[1024];
	struct writefile_backup b;
	tmpdir_path(path, sizeof path, "many.txt");
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), 0);
	for (int n = 1; n <= 999; n++) {
		snprintf(name, sizeof name, "%s.~%d~", path, n);
		char text[32];
		snprintf(text, sizeof text, "%d\n", n);
		tmpdir_spit(name, text, strlen(text));
	}
	assert_int_equal(writefile_backup(path, &b, msg, sizeof msg), 0);
	int left = 0;
	for (int n = 1; n <= 999; n++) {
		snprintf(name, sizeof name, "%s.~%d~", path, n);
		left += access(name, F_OK) == 0;
	}
	assert_int_equal(left, WRITEFILE_BACKUPS_KEPT);
	/* the nine newest before it, now 1..9, and the new one, 10 */
	snprintf(name, sizeof name, "%s.~1~", path);
	assert_text(name, "991\n");
	snprintf(name, sizeof name, "%s.~10~", path);
	assert_string_equal(b.path, name);
	/* and the next one is 11, the oldest (991) pruned */
	assert_int_equal(writefile_backup(path, &b, msg, sizeof msg), 0);
	assert_non_null(strstr(b.path, ".~11~"));
	snprintf(name, sizeof name, "%s.~1~", path);
	assert_int_not_equal(access(name, F_OK), 0);
}

/* A file its owner made read-only is never replaced, not even by root
 * (the rename needs only the directory): refused, said, kept (the
 * adversary's 11). */
static void test_a_read_only_file_is_never_replaced(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	tmpdir_path(path, sizeof path, "ro.txt");
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), 0);
	char *old = slurp(path);
	assert_int_equal(chmod(path, 0444), 0);
	wts.x[0] += 1.0f;
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), -1);
	wts.x[0] -= 1.0f;
	assert_non_null(strstr(msg, "is read-only (mode 0444): not replaced"));
	assert_text(path, old);
	struct writefile_target t;
	assert_int_equal(writefile_check(path, WRITEFILE_EXPORT, &t, msg, sizeof msg), -1);
	free(old);
}

/* What is in the way and of another kind is kept: text where a session
 * goes, a session where a model or the progress goes; an empty file holds
 * nothing and is replaced; an export replaces any regular file. */
static void test_a_file_of_another_kind_is_kept(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	struct progress p;
	progress_init(&p);
	tmpdir_path(path, sizeof path, "notes.txt");
	tmpdir_spit(path, "my own notes\n", 13);
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "is not an mha-tui session"));
	assert_int_equal(writefile_write(path, WRITEFILE_MODEL, text_fill, "mha-tui model 1\n", NULL, msg, sizeof msg),
	                 -1);
	assert_non_null(strstr(msg, "is not an mha-tui model file"));
	assert_int_equal(progress_save(path, &p, msg, sizeof msg), -1);
	assert_text(path, "my own notes\n");
	/* a session where the progress goes */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), 0);
	assert_int_equal(writefile_write(path, WRITEFILE_PROGRESS, text_fill, "x", NULL, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "is not an mha-tui progress file"));
	/* empty: nothing to keep */
	tmpdir_spit(path, "", 0);
	assert_int_equal(writefile_write(path, WRITEFILE_MODEL, text_fill, "mha-tui model 1\n", NULL, msg, sizeof msg),
	                 0);
	/* an export is the user's named output: whatever regular file is there */
	assert_int_equal(writefile_write(path, WRITEFILE_EXPORT, text_fill, "<svg/>\n", NULL, msg, sizeof msg), 0);
	assert_text(path, "<svg/>\n");
	progress_free(&p);
}

/* Checked before any work: an empty name, a directory, a directory that
 * does not exist, a loop of symlinks, a file where a directory must be;
 * each refused with the path and the reason. */
static void test_what_cannot_be_written_is_refused_before_the_work(void **state)
{
	(void)state;
	char path[4096], a[4096], msg[1024];
	struct writefile_target t;
	assert_int_equal(writefile_check("", WRITEFILE_MODEL, &t, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "no file name given"));
	assert_int_equal(writefile_check(tmpdir_get(), WRITEFILE_EXPORT, &t, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "is a directory"));
	tmpdir_path(path, sizeof path, "no/such/dir/out.svg");
	assert_int_equal(writefile_check(path, WRITEFILE_EXPORT, &t, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "No such file or directory"));
	assert_non_null(strstr(msg, path));
	tmpdir_path(a, sizeof a, "loop-a");
	tmpdir_path(path, sizeof path, "loop-b");
	assert_int_equal(symlink("loop-b", a), 0);
	assert_int_equal(symlink("loop-a", path), 0);
	assert_int_equal(writefile_check(a, WRITEFILE_SESSION, &t, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "symbolic links"));
	tmpdir_path(a, sizeof a, "plain-file");
	tmpdir_spit(a, "x", 1);
	tmpdir_path(path, sizeof path, "plain-file/inside.txt");
	assert_int_equal(writefile_check(path, WRITEFILE_EXPORT, &t, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "Not a directory"));
	/* and a name that works: nothing left behind by the check */
	tmpdir_path(path, sizeof path, "fine.svg");
	assert_int_equal(writefile_check(path, WRITEFILE_EXPORT, &t, msg, sizeof msg), 0);
	assert_false(t.exists);
	assert_int_not_equal(access(path, F_OK), 0);
}

/* A dangling symlink's target is created (the link stays); a symlink to a
 * file in another directory writes there, keeping its mode. */
static void test_a_symlink_is_followed_to_its_target(void **state)
{
	(void)state;
	char link[4096], target[4096], sub[4096], msg[1024];
	tmpdir_path(sub, sizeof sub, "elsewhere");
	assert_int_equal(mkdir(sub, 0700), 0);
	tmpdir_path(link, sizeof link, "dangling.model");
	tmpdir_path(target, sizeof target, "elsewhere/made.model");
	assert_int_equal(symlink("elsewhere/made.model", link), 0);
	assert_int_equal(writefile_write(link, WRITEFILE_MODEL, text_fill, "mha-tui model 1\n", NULL, msg, sizeof msg),
	                 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_text(target, "mha-tui model 1\n");
	assert_int_equal(chmod(target, 0640), 0);
	assert_int_equal(writefile_write(link, WRITEFILE_MODEL, text_fill, "mha-tui model 1\nmore\n", NULL, msg,
	                                 sizeof msg), 0);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_text(target, "mha-tui model 1\nmore\n");
}

/* An export into a device or a pipe is written into it (nothing there to
 * replace); a pipe no program reads is refused at once, never waited on;
 * a state file never goes into either. /dev/full says why. */
static void test_an_export_writes_into_a_device_or_pipe(void **state)
{
	(void)state;
	char fifo[4096], msg[1024];
	struct writefile_target t;
	assert_int_equal(writefile_write("/dev/null", WRITEFILE_EXPORT, text_fill, "x\n", NULL, msg, sizeof msg), 0);
	assert_int_equal(writefile_check("/dev/null", WRITEFILE_SESSION, &t, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "not a regular file"));
	assert_int_equal(writefile_write("/dev/full", WRITEFILE_EXPORT, text_fill, "x\n", NULL, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "No space left on device"));
	tmpdir_path(fifo, sizeof fifo, "pipe");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(20); /* a hang fails the test */
	assert_int_equal(writefile_write(fifo, WRITEFILE_EXPORT, text_fill, "x\n", NULL, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "no program reads"));
	pid_t pid = fork();
	if (pid == 0) { /* a reader: what comes through the pipe, checked */
		char buf[16] = "";
		int fd = open(fifo, O_RDONLY);
		ssize_t n = read(fd, buf, sizeof buf - 1);
		_exit(n == 6 && !strcmp(buf, "piped\n") ? 0 : 1);
	}
	int st, rc = -1;
	for (int tries = 0; tries < 2000 && rc != 0; tries++) { /* until the reader has it open */
		rc = writefile_write(fifo, WRITEFILE_EXPORT, text_fill, "piped\n", NULL, msg, sizeof msg);
		if (rc != 0)
			usleep(5000);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	alarm(0);
}

/* A write that fails where nothing was says so (no "previous file kept"
 * for a file that never existed: the adversary's 16); where a file was,
 * it is kept and said. The callback's own refusal is said too. */
static int refuse_fill(FILE *f, const void *ctx, char *why, size_t len)
{
	(void)ctx;
	fputs("half", f);
	snprintf(why, len, "the picture could not be drawn");
	return -1;
}

static void test_a_failed_write_says_what_is_left(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	tmpdir_path(path, sizeof path, "failed.svg");
	assert_int_equal(writefile_write(path, WRITEFILE_EXPORT, refuse_fill, NULL, NULL, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "not written: the picture could not be drawn"));
	assert_null(strstr(msg, "previous"));
	assert_int_not_equal(access(path, F_OK), 0);
	tmpdir_spit(path, "old\n", 4);
	assert_int_equal(writefile_write(path, WRITEFILE_EXPORT, refuse_fill, NULL, NULL, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "the previous file is kept"));
	assert_text(path, "old\n");
}

/* A new export or model is made 0666 less the umask, as any program
 * makes a file (mkstemp's 0600 left a picture no web server could read);
 * the state files stay the learner's own (0600). */
static void test_new_files_get_the_modes_people_expect(void **state)
{
	(void)state;
	char path[4096], msg[1024];
	struct stat st;
	mode_t old = umask(022);
	tmpdir_path(path, sizeof path, "new.svg");
	assert_int_equal(writefile_write(path, WRITEFILE_EXPORT, text_fill, "<svg/>\n", NULL, msg, sizeof msg), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	tmpdir_path(path, sizeof path, "new-session.txt");
	assert_int_equal(session_save(path, &cfg, &wts, msg, sizeof msg), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	umask(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_backup_is_a_copy_kept_only_when_the_file_was_replaced),
		cmocka_unit_test(test_a_backup_through_a_symlink_survives_the_save),
		cmocka_unit_test(test_999_backups_in_the_way_still_make_one_and_ten_are_kept),
		cmocka_unit_test(test_a_read_only_file_is_never_replaced),
		cmocka_unit_test(test_a_file_of_another_kind_is_kept),
		cmocka_unit_test(test_what_cannot_be_written_is_refused_before_the_work),
		cmocka_unit_test(test_a_symlink_is_followed_to_its_target),
		cmocka_unit_test(test_an_export_writes_into_a_device_or_pipe),
		cmocka_unit_test(test_a_failed_write_says_what_is_left),
		cmocka_unit_test(test_new_files_get_the_modes_people_expect),
	};
	return cmocka_run_group_tests_name("the write path", tests, fixture_setup, fixture_teardown);
}
