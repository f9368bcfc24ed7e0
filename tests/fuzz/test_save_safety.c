/*
 * test_save_safety.c - a save never loses the previous file: not when the
 * disk fills (simulated with RLIMIT_FSIZE, which root cannot ignore), not
 * when the directory is read-only, not when the writer is killed at any
 * moment of a save. Both files the program keeps are checked the same way:
 * the session (session_save, called by the workbench's w, q and signal
 * paths) and the lesson progress (progress_save). It does not drive the
 * workbench itself.
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
#include "progress.h"
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

/* ---- the two writers, each with two contents A (small) and B (large,
 * so that a save takes milliseconds) that a load tells apart ---- */

struct writer {
	const char *file;
	int (*save)(const char *path, int which, char *msg, size_t len);
	int (*which)(const char *path, char *msg, size_t len); /* 0 A, 1 B, -1 neither */
};

static struct mha_config sess_c[2];
static struct mha_weights sess_w[2];

static int session_write(const char *path, int which, char *msg, size_t len)
{
	return session_save(path, &sess_c[which], &sess_w[which], msg, len);
}

static int session_which(const char *path, char *msg, size_t len)
{
	struct mha_config c;
	struct mha_weights w;
	if (session_load(path, &c, &w, msg, len) != 0)
		return -1;
	int which = w.x[0] == 0.25f ? 0 : w.x[0] == 0.75f ? 1 : -1;
	mha_weights_free(&w);
	return which;
}

enum { PROGRESS_B_KEYS = 9000 }; /* about 200 KB */
static struct progress prog[2];

static int progress_write(const char *path, int which, char *msg, size_t len)
{
	return progress_save(path, &prog[which], msg, len);
}

static int progress_which(const char *path, char *msg, size_t len)
{
	struct progress p;
	if (progress_load(path, &p, msg, len) != 0)
		return -1;
	int which = p.ndone == 1 ? 0 : p.ndone == PROGRESS_B_KEYS ? 1 : -1;
	progress_free(&p);
	return which;
}

static const struct writer writers[] = {
	{ "session.txt", session_write, session_which },
	{ "progress.txt", progress_write, progress_which },
};

static int make_contents(void **state)
{
	for (int i = 0; i < 2; i++) {
		struct mha_config *c = &sess_c[i];
		*c = mha_config_default();
		c->n = 8; c->d = i ? 128 : 4; c->h = 4; c->g = 4; c->dk = c->d / 4;
		if (mha_weights_alloc(&sess_w[i], c) != MHA_OK)
			return -1;
		mha_weights_init(&sess_w[i], c, 5);
		mha_weights_default_labels(&sess_w[i], c);
		sess_w[i].x[0] = i ? 0.75f : 0.25f;
		progress_init(&prog[i]);
		progress_set_place(&prog[i], "reshape", "split", true);
		for (int k = 0; k < (i ? PROGRESS_B_KEYS : 1); k++) {
			char key[64];
			snprintf(key, sizeof key, "lesson-%02d/step-number-%05d", k % 13, k);
			if (progress_mark_done(&prog[i], key) != 0)
				return -1;
		}
	}
	return make_dir(state);
}

static int free_contents(void **state)
{
	for (int i = 0; i < 2; i++) {
		mha_weights_free(&sess_w[i]);
		progress_free(&prog[i]);
	}
	return remove_dir(state);
}

static int leftover_temp_files(bool remove)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!strstr(e->d_name, ".tmp"))
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

/* Save B in a child process prepared by `limit`; the child reports the
 * writer's result and message through a pipe. */
static int save_in_child(const struct writer *wr, const char *path, void (*limit)(void),
                         char *msg, size_t len)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		limit();
		char m[512] = "";
		int rc = wr->save(path, 1, m, sizeof m);
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

/* A failing save of B over A: -1, a message naming the file and `why`,
 * A still whole, no temporary file left. */
static void check_failed_save(void (*limit)(void), const char *why)
{
	for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
		const struct writer *wr = &writers[i];
		char path[128], msg[512];
		snprintf(path, sizeof path, "%s/%s", dir, wr->file);
		assert_int_equal(wr->save(path, 0, msg, sizeof msg), 0);
		chmod(path, 0644);
		assert_int_equal(save_in_child(wr, path, limit, msg, sizeof msg), -1);
		print_message("%s: %s\n", wr->file, msg);
		assert_non_null(strstr(msg, wr->file));
		assert_non_null(strstr(msg, why));
		chmod(dir, 0755);
		assert_int_equal(wr->which(path, msg, sizeof msg), 0);
		assert_int_equal(leftover_temp_files(false), 0);
	}
}

static void test_full_disk_keeps_the_previous_file_and_says_so(void **state)
{
	(void)state;
	check_failed_save(disk_full, "File too large");
}

static void test_read_only_directory_keeps_the_previous_file_and_says_so(void **state)
{
	(void)state;
	check_failed_save(read_only_dir, "Permission denied");
}

static void test_missing_directory_is_a_clear_failure(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
		char path[128], msg[512];
		snprintf(path, sizeof path, "%s/no/such/dir/%s", dir, writers[i].file);
		assert_int_equal(writers[i].save(path, 0, msg, sizeof msg), -1);
		assert_non_null(strstr(msg, writers[i].file));
		assert_non_null(strstr(msg, "No such file"));
	}
}

/* A writer saving A and B in turn is killed (SIGKILL: no handler runs) at
 * seeded random moments; every time, the file on disk must load and be A
 * or B, whole. Each kill waits until the child is inside a save (its
 * temporary file exists), then a random moment. Temporary files left
 * behind are counted: they show that kills landed inside a save. */
static void test_writer_killed_mid_save_never_leaves_a_half_file(void **state)
{
	(void)state;
	enum { KILLS = 30 };
	for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
		const struct writer *wr = &writers[i];
		char path[128], msg[512];
		snprintf(path, sizeof path, "%s/%s", dir, wr->file);
		assert_int_equal(wr->save(path, 0, msg, sizeof msg), 0);
		unsigned seed = 2024;
		int inside = 0, seen[2] = { 0, 0 }, on_disk = 0;
		for (int k = 0; k < KILLS; k++) {
			pid_t pid = fork();
			assert_true(pid >= 0);
			if (pid == 0) /* first the content that is not on disk, then turn about */
				for (int n = !on_disk;; n = !n)
					wr->save(path, n, msg, sizeof msg);
			/* a state, not a time: the child is saving (its temporary
			 * file is there), however long a busy machine took to start
			 * it; then a random moment, none at all every third kill, so
			 * that some kills land inside a save on any machine */
			for (int ms = 0; ms < 20000 && leftover_temp_files(false) == 0; ms++) {
				struct timespec tick = { 0, 1000000L };
				nanosleep(&tick, NULL);
			}
			seed = seed * 1103515245u + 12345u;
			struct timespec t = { 0, k % 3 == 0 ? 0 : (long)(seed >> 8) % 40000000L }; /* 0-40 ms */
			nanosleep(&t, NULL);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			on_disk = wr->which(path, msg, sizeof msg);
			if (on_disk < 0)
				print_message("%s after kill %d: %s\n", wr->file, k, msg);
			assert_true(on_disk == 0 || on_disk == 1);
			seen[on_disk]++;
			inside += leftover_temp_files(true) > 0;
		}
		print_message("%s: %d kills, %d inside a save (temp file left), whole every time (%d A, %d B)\n",
		              wr->file, KILLS, inside, seen[0], seen[1]);
		assert_true(inside > 0); /* else the test did not test anything */
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_contents, free_contents)
	const struct CMUnitTest tests[] = {
		T(test_full_disk_keeps_the_previous_file_and_says_so),
		T(test_read_only_directory_keeps_the_previous_file_and_says_so),
		T(test_missing_directory_is_a_clear_failure),
		T(test_writer_killed_mid_save_never_leaves_a_half_file),
	};
#undef T
	return cmocka_run_group_tests_name("save safety", tests, NULL, NULL);
}
