/*
 * test_save_safety.c - a save never loses the previous session: not when
 * the disk fills (simulated with RLIMIT_FSIZE, which root cannot ignore),
 * not when the directory is read-only, not when the writer is killed at any
 * moment of a save. Tests session_save, the one writer the workbench's w, q
 * and signal paths call; it does not drive the workbench itself.
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mha.h"
#include "session.h"

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/mha-save-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	return chmod(dir, 0755);
}

static int remove_dir(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A session whose X[0][0] is `mark`, so two saves can be told apart. */
struct bench {
	struct mha_config c;
	struct mha_weights w;
};

static void bench_make(struct bench *b, int d, float mark)
{
	b->c = mha_config_default();
	b->c.n = 8; b->c.d = d; b->c.h = 4; b->c.g = 4; b->c.dk = d / 4;
	assert_int_equal(mha_weights_alloc(&b->w, &b->c), MHA_OK);
	mha_weights_init(&b->w, &b->c, 5);
	mha_weights_default_labels(&b->w, &b->c);
	b->w.x[0] = mark;
}

static float load_mark(const char *path, char *msg, size_t len)
{
	struct mha_config c;
	struct mha_weights w;
	if (session_load(path, &c, &w, msg, len) != 0)
		return -1.0f;
	float mark = w.x[0];
	mha_weights_free(&w);
	return mark;
}

static int leftover_temp_files(bool remove)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!strstr(e->d_name, ".tmp."))
			continue;
		n++;
		if (remove) {
			char p[512];
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
	}
	closedir(d);
	return n;
}

/* Save `b` to path in a child process prepared by `limit`; the child
 * reports session_save's result and message through a pipe. */
static int save_in_child(const char *path, struct bench *b, void (*limit)(void), char *msg, size_t len)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		limit();
		char m[512] = "";
		int rc = session_save(path, &b->c, &b->w, m, sizeof m);
		if (write(fds[1], &rc, sizeof rc) != sizeof rc || write(fds[1], m, sizeof m) != sizeof m)
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	int rc = 99;
	char m[512] = "";
	assert_int_equal(read(fds[0], &rc, sizeof rc), sizeof rc);
	assert_int_equal(read(fds[0], m, sizeof m), sizeof m);
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(msg, len, "%s", m);
	return rc;
}

static void disk_full(void)
{
	/* writes past 4 KiB fail with EFBIG, as ENOSPC would on a full disk */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit r = { 4096, 4096 };
	setrlimit(RLIMIT_FSIZE, &r);
}

static void read_only_dir(void)
{
	/* root writes anywhere: become nobody, for whom dir (root's, 0755) is read-only */
	if (geteuid() == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(4);
	} else {
		chmod(dir, 0555);
	}
}

static void test_full_disk_keeps_the_previous_file_and_says_so(void **state)
{
	(void)state;
	char path[128], msg[512];
	snprintf(path, sizeof path, "%s/session.txt", dir);
	struct bench small, big;
	bench_make(&small, 4, 0.25f);
	bench_make(&big, 64, 0.75f); /* about 60 KB: more than the disk takes */
	assert_int_equal(session_save(path, &small.c, &small.w, msg, sizeof msg), 0);
	assert_int_equal(save_in_child(path, &big, disk_full, msg, sizeof msg), -1);
	print_message("disk full: %s\n", msg);
	assert_non_null(strstr(msg, "session.txt"));
	assert_non_null(strstr(msg, "previous file kept"));
	assert_true(load_mark(path, msg, sizeof msg) == 0.25f);
	assert_int_equal(leftover_temp_files(false), 0);
	mha_weights_free(&small.w);
	mha_weights_free(&big.w);
}

static void test_read_only_directory_keeps_the_previous_file_and_says_so(void **state)
{
	(void)state;
	char path[128], msg[512];
	snprintf(path, sizeof path, "%s/session.txt", dir);
	struct bench a, b;
	bench_make(&a, 4, 0.25f);
	bench_make(&b, 4, 0.75f);
	assert_int_equal(session_save(path, &a.c, &a.w, msg, sizeof msg), 0);
	chmod(path, 0644);
	assert_int_equal(save_in_child(path, &b, read_only_dir, msg, sizeof msg), -1);
	print_message("read-only directory: %s\n", msg);
	assert_non_null(strstr(msg, "session.txt"));
	assert_non_null(strstr(msg, "Permission denied"));
	chmod(dir, 0755);
	assert_true(load_mark(path, msg, sizeof msg) == 0.25f);
	assert_int_equal(leftover_temp_files(false), 0);
	mha_weights_free(&a.w);
	mha_weights_free(&b.w);
}

static void test_missing_directory_is_a_clear_failure(void **state)
{
	(void)state;
	char path[128], msg[512];
	snprintf(path, sizeof path, "%s/no/such/dir/session.txt", dir);
	struct bench a;
	bench_make(&a, 4, 0.25f);
	assert_int_equal(session_save(path, &a.c, &a.w, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "session.txt"));
	assert_non_null(strstr(msg, "No such file"));
	mha_weights_free(&a.w);
}

/* A writer saving two sessions in turn is killed (SIGKILL: no handler
 * runs) at seeded random moments; every time, the file on disk must load
 * and be one of the two, whole. Temporary files left behind are counted:
 * they show that kills landed inside a save. */
static void test_writer_killed_mid_save_never_leaves_a_half_file(void **state)
{
	(void)state;
	enum { KILLS = 30 };
	char path[128], msg[512];
	snprintf(path, sizeof path, "%s/session.txt", dir);
	struct bench a, b;
	bench_make(&a, 128, 0.25f); /* about 1 MB each: a save takes milliseconds */
	bench_make(&b, 128, 0.75f);
	assert_int_equal(session_save(path, &a.c, &a.w, msg, sizeof msg), 0);
	unsigned seed = 2024;
	int inside = 0, saw_a = 0, saw_b = 0;
	float mark = 0.25f;
	for (int k = 0; k < KILLS; k++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) { /* first the session that is not on disk, then turn about */
			for (int i = mark == 0.25f;; i++) {
				struct bench *s = i % 2 ? &b : &a;
				session_save(path, &s->c, &s->w, msg, sizeof msg);
			}
		}
		seed = seed * 1103515245u + 12345u;
		struct timespec t = { 0, (long)(seed >> 8) % 40000000L }; /* 0-40 ms */
		nanosleep(&t, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		mark = load_mark(path, msg, sizeof msg);
		if (mark != 0.25f && mark != 0.75f)
			print_message("after kill %d: %s\n", k, msg);
		assert_true(mark == 0.25f || mark == 0.75f);
		saw_a += mark == 0.25f;
		saw_b += mark == 0.75f;
		inside += leftover_temp_files(true) > 0;
	}
	print_message("%d kills: %d inside a save (temp file left), file whole every time (%d A, %d B)\n",
	              KILLS, inside, saw_a, saw_b);
	assert_true(inside > 0); /* else the test did not test anything */
	mha_weights_free(&a.w);
	mha_weights_free(&b.w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_disk_keeps_the_previous_file_and_says_so,
		                                make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_read_only_directory_keeps_the_previous_file_and_says_so,
		                                make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_missing_directory_is_a_clear_failure, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_writer_killed_mid_save_never_leaves_a_half_file,
		                                make_dir, remove_dir),
	};
	return cmocka_run_group_tests_name("save safety", tests, NULL, NULL);
}
