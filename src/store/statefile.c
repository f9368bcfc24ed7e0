/*
 * statefile.c - the state directory and atomic replacement of a file in
 * it: temporary file beside the target, fsync, rename, fsync of the
 * directory; through a symlink the target is replaced, and the new file
 * keeps the old one's mode and owner. A hard link is split by the rename
 * (in-place writing would not be atomic): the caller is told how many
 * names the replaced file had, and says so. A checked write never
 * replaces a file changed since a stamp, not even in the rename's own
 * window (an exchange, checked after). Knows nothing of what the files
 * hold.
 */
#define _GNU_SOURCE /* renameat2 */
#include "statefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int fail_errno(char *msg, size_t len, const char *path, const char *what)
{
	snprintf(msg, len, "%s: %s: %s", path, what, strerror(errno));
	return -1;
}

/* mkdir -p; fine if it exists. */
static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(path, 0700);
		*p = '/';
		if (rc != 0 && errno != EEXIST)
			return -1;
	}
	return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

int statefile_dir(char *out, size_t outlen, char *msg, size_t len)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char dir[4096];
	if (state && state[0] == '/')
		snprintf(dir, sizeof dir, "%s/mha-tui", state);
	else if (home && home[0] == '/')
		snprintf(dir, sizeof dir, "%s/.local/state/mha-tui", home);
	else {
		/* say what is wrong with what is there, not that it is missing */
		if (home && home[0])
			snprintf(msg, len, "HOME is '%.200s', not an absolute path (nor is XDG_STATE_HOME set to one): "
			         "nowhere to keep state", home);
		else
			snprintf(msg, len, "neither XDG_STATE_HOME nor HOME is set: nowhere to keep state");
		return -1;
	}
	if (make_dirs(dir) != 0)
		return fail_errno(msg, len, dir, "cannot create directory");
	if ((size_t)snprintf(out, outlen, "%s", dir) >= outlen) {
		snprintf(msg, len, "%.200s: path too long", dir);
		return -1;
	}
	return 0;
}

int statefile_path(const char *name, char *out, size_t outlen, char *msg, size_t len)
{
	char dir[4096];
	if (statefile_dir(dir, sizeof dir, msg, len) != 0)
		return -1;
	if ((size_t)snprintf(out, outlen, "%s/%s", dir, name) >= outlen) {
		snprintf(msg, len, "%.200s: path too long", dir);
		return -1;
	}
	return 0;
}

/* fsync the directory holding path, so the rename itself is durable. */
static void sync_dir(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	int fd = open(dirname(buf), O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return; /* best effort: the data is already safe in the new file */
	fsync(fd);
	close(fd);
}

/* Remove "<path>.tmp.XXXXXX" files that a writer killed mid-save left
 * behind. Only those older than a minute: a younger one may belong to
 * another mha-tui saving the same file right now. Best effort. */
static void remove_stale_temps(const char *path)
{
	char dirbuf[4096], basebuf[4096];
	snprintf(dirbuf, sizeof dirbuf, "%s", path);
	snprintf(basebuf, sizeof basebuf, "%s", path);
	const char *dir = dirname(dirbuf), *base = basename(basebuf);
	char prefix[4200];
	snprintf(prefix, sizeof prefix, "%s.tmp.", base);
	DIR *d = opendir(dir);
	if (!d)
		return;
	time_t now = time(NULL);
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 ||
		    strlen(e->d_name) != strlen(prefix) + 6)
			continue;
		char full[8400];
		struct stat st;
		snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > 60)
			unlink(full);
	}
	closedir(d);
}

/* Where a save of path lands: through a symlink, the link's target (as
 * editors do: the link stays a link, the target gets the new text). */
static const char *save_target(const char *path, char *buf, size_t len)
{
	struct stat st;
	char real[PATH_MAX];
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real) &&
	    (size_t)snprintf(buf, len, "%s", real) < len)
		return buf;
	return path;
}

void (*statefile_test_hook)(const char *path, int stage);

static void test_hook(const char *path, int stage)
{
	if (statefile_test_hook)
		statefile_test_hook(path, stage);
}

/* The file that was at dest is now at tmp (an exchange): it is the one
 * stamped, or a change came in between and it goes back. 0: ours is at
 * dest, the old file removed; 1: changed, theirs at dest again and ours
 * at tmp; -1 (errno): it could not go back, theirs is kept aside (msg). */
static int settle_exchange(const char *tmp, const char *dest, const struct claim_stamp *expect,
                           char *msg, size_t len)
{
	char aside[4300], base[4200];
	if (!claim_stamp_changed(expect, tmp)) {
		unlink(tmp);
		return 0;
	}
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_EXCHANGE) == 0)
		return 1;
	int saved = errno;
	snprintf(base, sizeof base, "%.4000s.changed", dest);
	if (claim_move_aside(tmp, base, aside, sizeof aside) != 0)
		snprintf(aside, sizeof aside, "%.4000s", tmp);
	snprintf(msg, len, "%s: saved, but another program changed it during the save: its version is kept as %s",
	         dest, aside);
	errno = saved;
	return -1;
}

/* Put tmp in dest's place. Unchecked: a rename. Checked against expect:
 * the stamp compared immediately before, then an exchange compared after
 * (settle_exchange); a file absent at the stamp is created only if still
 * absent. 0 done; 1 changed (nothing replaced, tmp still ours); -1 with
 * errno (msg set when it is more than the rename failing). */
static int replace(const char *tmp, const char *dest, const struct claim_stamp *expect, char *msg, size_t len)
{
	if (!expect || !expect->taken) {
		test_hook(dest, 1);
		return rename(tmp, dest) == 0 ? 0 : -1;
	}
	test_hook(dest, 0);
	if (claim_stamp_changed(expect, dest))
		return 1;
	test_hook(dest, 1);
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_EXCHANGE) == 0)
		return settle_exchange(tmp, dest, expect, msg, len);
	if (errno == ENOENT) { /* nothing there now: only if nothing comes meanwhile */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EEXIST)
			return 1;
	}
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != ENOENT)
		return -1;
	/* no exchange on this filesystem: the check above is the last word */
	return rename(tmp, dest) == 0 ? 0 : -1;
}

int statefile_write(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx,
                    char *msg, size_t len)
{
	return statefile_write_checked(path, write, ctx, NULL, msg, len);
}

int statefile_write_checked(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx,
                            struct statefile_check *chk, char *msg, size_t len)
{
	char target[4096];
	const char *dest = save_target(path, target, sizeof target);
	remove_stale_temps(dest);
	char tmp[4200];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", dest) >= sizeof tmp) {
		snprintf(msg, len, "%.200s: path too long", path);
		return -1;
	}
	int fd = mkstemp(tmp); /* same directory: rename cannot cross filesystems */
	if (fd < 0)
		return fail_errno(msg, len, path, "cannot create a temporary file beside it");
	/* the new file keeps the old one's mode and owner (best effort: only
	 * root can give a file away) */
	struct stat old;
	bool replaced = stat(dest, &old) == 0 && S_ISREG(old.st_mode);
	if (chk) {
		chk->replaced = replaced;
		chk->dev = replaced ? old.st_dev : 0;
		chk->ino = replaced ? old.st_ino : 0;
		chk->nlink = replaced ? old.st_nlink : 0;
	}
	if (replaced) {
		(void)!fchmod(fd, old.st_mode & 07777);
		if (old.st_uid != geteuid() || old.st_gid != getegid())
			(void)!fchown(fd, old.st_uid, old.st_gid);
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return fail_errno(msg, len, path, "cannot write");
	}
	write(f, ctx);
	/* a full disk shows at fflush or fsync, not at fprintf */
	int bad = fflush(f) != 0 || ferror(f) || fsync(fd) != 0;
	int saved = errno;
	bad |= fclose(f) != 0;
	if (bad) {
		unlink(tmp);
		errno = saved ? saved : errno;
		return fail_errno(msg, len, path, "write failed, previous file kept");
	}
	msg[0] = '\0';
	int rc = replace(tmp, dest, chk ? chk->expect : NULL, msg, len);
	if (rc == 1) {
		unlink(tmp);
		if (chk)
			chk->replaced = false;
		snprintf(msg, len, "%s: not saved: another program changed it since it was read or saved", path);
		return STATEFILE_CHANGED;
	}
	if (rc != 0) {
		saved = errno;
		if (msg[0]) /* saved, the other version kept aside: said as a failure */
			return -1;
		unlink(tmp);
		errno = saved;
		return fail_errno(msg, len, path, "cannot replace");
	}
	sync_dir(dest);
	return 0;
}
