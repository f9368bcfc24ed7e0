/*
 * writefile.c - every file mha-tui writes goes through here (writefile.h):
 * checked before the work starts, then a temporary file beside the
 * target (O_EXCL), fsync, rename (an exchange, checked, for a save that
 * must not replace a file changed behind it), fsync of the directory.
 * Through a symlink the target is replaced, and the new file keeps the
 * old one's mode and owner. A hard link is split by the rename (in-place
 * writing would not be atomic): the caller is told how many names the
 * replaced file had, and says so. Backups are copies made the same way.
 * Knows what each kind of file starts with, nothing more of what they
 * hold; never prints.
 */
#define _GNU_SOURCE /* renameat2 */
#include "writefile.h"

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

void (*statefile_test_hook)(const char *path, int stage);

static void test_hook(const char *path, int stage)
{
	if (statefile_test_hook)
		statefile_test_hook(path, stage);
}

static int fail_errno(char *msg, size_t len, const char *path, const char *what)
{
	int err = errno;
	snprintf(msg, len, "%s: %s: %s", path, what, strerror(err));
	errno = err;
	return -1;
}

static int fail(char *msg, size_t len, const char *path, const char *what)
{
	snprintf(msg, len, "%s: %s", path, what);
	return -1;
}

/* ---- where the bytes land ---- */

/* The last symlink of a chain that ends nowhere (a dangling link: its
 * target is what a save creates), or path itself. Directories on the way
 * are the kernel's to follow. 0, or -1 with errno (ELOOP, ENAMETOOLONG). */
static int resolve_dangling(const char *path, char *out, size_t len)
{
	char cur[PATH_MAX], link[PATH_MAX];
	if (strlen(path) >= sizeof cur) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(cur, path);
	for (int hops = 0; hops < 40; hops++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
			if ((size_t)snprintf(out, len, "%s", cur) >= len) {
				errno = ENAMETOOLONG;
				return -1;
			}
			return 0;
		}
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n < 0)
			return -1;
		link[n] = '\0';
		if (link[0] == '/') {
			strcpy(cur, link);
			continue;
		}
		char *slash = strrchr(cur, '/'); /* relative: from the link's own directory */
		size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;
		if (dir + (size_t)n >= sizeof cur) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memmove(cur + dir, link, (size_t)n + 1);
	}
	errno = ELOOP;
	return -1;
}

/* The first words each kind of file starts with (after a UTF-8 byte-order
 * mark, which some editors add). */
static const char *const kind_magic[][2] = {
	[WRITEFILE_EXPORT] = { NULL, NULL },
	[WRITEFILE_SESSION] = { "mha-tui-session", NULL },
	[WRITEFILE_BENCH] = { "mha-tui-bench", "mha-tui-session" },
	[WRITEFILE_PROGRESS] = { "mha-tui-progress", NULL },
	[WRITEFILE_MODEL] = { "mha-tui model", NULL },
	[WRITEFILE_VOCAB] = { "mha-tui vocab", NULL },
};

static const char *const kind_name[] = {
	[WRITEFILE_EXPORT] = "export",
	[WRITEFILE_SESSION] = "mha-tui session",
	[WRITEFILE_BENCH] = "mha-tui lesson bench",
	[WRITEFILE_PROGRESS] = "mha-tui progress file",
	[WRITEFILE_MODEL] = "mha-tui model file",
	[WRITEFILE_VOCAB] = "mha-tui vocabulary",
};

/* Is the regular file at path one of kind (or empty: nothing to keep)?
 * 0 yes; -1 with msg: another kind, or unreadable (so unknown). */
static int kind_ok(const char *path, const char *shown, enum writefile_kind kind, char *msg, size_t len)
{
	if (!kind_magic[kind][0])
		return 0;
	char head[64];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(msg, len, shown, "cannot be read to check what it is, so it is not replaced");
	ssize_t n = read(fd, head, sizeof head - 1);
	int err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return fail_errno(msg, len, shown, "cannot be read to check what it is, so it is not replaced");
	}
	head[n] = '\0';
	if (n == 0)
		return 0;
	const char *p = strncmp(head, "\xef\xbb\xbf", 3) == 0 ? head + 3 : head;
	for (int i = 0; i < 2 && kind_magic[kind][i]; i++)
		if (strncmp(p, kind_magic[kind][i], strlen(kind_magic[kind][i])) == 0)
			return 0;
	snprintf(msg, len, "%s: is not an %s (it does not start '%s'): not replaced; move it away or choose "
	         "another name", shown, kind_name[kind], kind_magic[kind][0]);
	return -1;
}

/* A file its owner made read-only (no write permission: chmod a-w) is
 * never replaced, not even by root, who may write anything: the rename
 * that replaces it needs only the directory's permission, so this is
 * the one place that asks. */
static int writable(const char *path, const char *shown, const struct stat *st, char *msg, size_t len)
{
	if (geteuid() != 0 && access(path, W_OK) != 0) {
		snprintf(msg, len, "%s: cannot be written by this user (mode %04o): %s: not replaced; choose another name",
		         shown, (unsigned)(st->st_mode & 07777), strerror(errno));
		return -1;
	}
	if ((st->st_mode & 0222) != 0)
		return 0;
	snprintf(msg, len, "%s: is read-only (mode %04o): not replaced; make it writable (chmod u+w) or "
	         "choose another name", shown, (unsigned)(st->st_mode & 07777));
	return -1;
}

/* What is at path, and whether kind may be written there; the directory
 * is not probed (writefile_check does that). */
static int inspect(const char *path, enum writefile_kind kind, struct writefile_target *t, char *msg, size_t len)
{
	memset(t, 0, sizeof *t);
	if (!path || !path[0])
		return fail(msg, len, "''", "no file name given");
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return fail_errno(msg, len, path, "cannot be written");
		/* nothing there, or a dangling symlink: its target is created */
		if (resolve_dangling(path, t->path, sizeof t->path) != 0)
			return fail_errno(msg, len, path, "cannot be written");
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return fail(msg, len, path, "is a directory: give a file name");
	if (!S_ISREG(st.st_mode)) {
		if (kind != WRITEFILE_EXPORT)
			return fail(msg, len, path, "is not a regular file (a pipe, device or socket): not replaced");
		t->stream = true;
		snprintf(t->path, sizeof t->path, "%s", path);
		return 0;
	}
	char real[PATH_MAX];
	if (!realpath(path, real) || (size_t)snprintf(t->path, sizeof t->path, "%s", real) >= sizeof t->path)
		return fail_errno(msg, len, path, "cannot be written");
	t->exists = true;
	if (writable(t->path, path, &st, msg, len) != 0 || kind_ok(t->path, path, kind, msg, len) != 0)
		return -1;
	return 0;
}

/* The directory of path into out ("." for a bare name). */
static void dir_of(const char *path, char *out, size_t len)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	snprintf(out, len, "%s", dirname(buf));
}

int writefile_check(const char *path, enum writefile_kind kind, struct writefile_target *t,
                    char *msg, size_t len)
{
	if (inspect(path, kind, t, msg, len) != 0)
		return -1;
	if (t->stream)
		return 0;
	char dir[4096], probe[4200];
	dir_of(t->path, dir, sizeof dir);
	struct stat st;
	if (stat(dir, &st) != 0)
		return fail_errno(msg, len, path, dir[0] && strcmp(dir, ".") ? "its directory cannot be used" :
		                  "cannot be written");
	if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "%s: %s is not a directory", path, dir);
		return -1;
	}
	/* the one honest test of a directory (read-only filesystems, ACLs,
	 * root's exemptions): make the new file the save will make, and
	 * remove it */
	if ((size_t)snprintf(probe, sizeof probe, "%s.tmp.XXXXXX", t->path) >= sizeof probe)
		return fail(msg, len, path, "path too long");
	int fd = mkstemp(probe);
	if (fd < 0)
		return fail_errno(msg, len, path, "cannot create a file beside it");
	close(fd);
	unlink(probe);
	return 0;
}

/* ---- the write ---- */

/* fsync the directory holding path, so the rename itself is durable. */
static void sync_dir(const char *path)
{
	char dir[4096];
	dir_of(path, dir, sizeof dir);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

/* Fill f and see that every byte reached the disk (a full disk or a file
 * size limit shows at fflush or fsync, not at fprintf). Closes f. 0, or
 * -1 with msg. */
static int fill(FILE *f, const char *path, writefile_fn write, const void *ctx, bool kept, bool sync,
                char *msg, size_t len)
{
	char why[1024] = "";
	int rc = write(f, ctx, why, sizeof why);
	int bad = fflush(f) != 0 || ferror(f) || (sync && fsync(fileno(f)) != 0 && errno != EINVAL);
	int saved = errno;
	bad |= fclose(f) != 0;
	if (rc != 0) {
		snprintf(msg, len, "%s: not written: %s%s", path, why[0] ? why : "stopped",
		         kept ? "; the previous file is kept" : "");
		return -1;
	}
	if (bad) {
		errno = saved ? saved : errno;
		return fail_errno(msg, len, path, kept ? "write failed, previous file kept" : "write failed, no file written");
	}
	return 0;
}

/* A device or pipe an export was pointed at: written into (opened without
 * blocking: a pipe no program reads is refused, not waited on). */
static int write_stream(const char *path, writefile_fn write, const void *ctx, char *msg, size_t len)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENXIO)
			return fail(msg, len, path, "is a pipe no program reads: not written");
		return fail_errno(msg, len, path, "cannot be written");
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return fail_errno(msg, len, path, "cannot be written");
	}
	return fill(f, path, write, ctx, false, false, msg, len);
}

int writefile_write(const char *path, enum writefile_kind kind, writefile_fn write, const void *ctx,
                    struct statefile_check *chk, char *msg, size_t len)
{
	struct writefile_target t;
	if (chk) {
		chk->replaced = false;
		chk->dev = 0;
		chk->ino = 0;
		chk->nlink = 0;
	}
	if (inspect(path, kind, &t, msg, len) != 0)
		return -1;
	if (t.stream)
		return write_stream(path, write, ctx, msg, len);
	const char *dest = t.path;
	remove_stale_temps(dest);
	char tmp[4200];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", dest) >= sizeof tmp)
		return fail(msg, len, path, "path too long");
	int fd = mkstemp(tmp); /* O_EXCL, same directory: rename cannot cross filesystems */
	if (fd < 0)
		return fail_errno(msg, len, path, "cannot create a temporary file beside it");
	/* the new file keeps the old one's mode and owner (best effort: only
	 * root can give a file away) */
	struct stat old;
	bool replaced = stat(dest, &old) == 0 && S_ISREG(old.st_mode);
	if (chk && replaced) {
		chk->replaced = true;
		chk->dev = old.st_dev;
		chk->ino = old.st_ino;
		chk->nlink = old.st_nlink;
	}
	if (replaced) {
		(void)!fchmod(fd, old.st_mode & 07777);
		if (old.st_uid != geteuid() || old.st_gid != getegid())
			(void)!fchown(fd, old.st_uid, old.st_gid);
	} else if (kind == WRITEFILE_EXPORT || kind == WRITEFILE_MODEL || kind == WRITEFILE_VOCAB) {
		/* a new file the user named is made as any program makes one
		 * (0666 less the umask), not private as mkstemp makes it; state
		 * files stay private to the learner */
		mode_t mask = umask(022);
		umask(mask);
		(void)!fchmod(fd, 0666 & ~mask);
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return fail_errno(msg, len, path, "cannot write");
	}
	if (fill(f, path, write, ctx, replaced, true, msg, len) != 0) {
		int saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
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
		int saved = errno;
		if (msg[0]) /* saved, the other version kept aside: said as a failure */
			return -1;
		unlink(tmp);
		errno = saved;
		return fail_errno(msg, len, path, replaced ? "cannot replace it, previous file kept" : "cannot create it");
	}
	sync_dir(dest);
	return 0;
}

/* ---- backups: copies ---- */

/* "<path>.~n~" into out; 0, or -1 when it does not fit. */
static int backup_name(const char *path, int n, char *out, size_t len)
{
	return (size_t)snprintf(out, len, "%s.~%d~", path, n) < len ? 0 : -1;
}

enum { BACKUP_MAX = 999 };

/* Which of "<path>.~1~" .. "<path>.~999~" are regular files: have[n]. */
static int backups_list(const char *path, bool *have)
{
	char name[4200];
	int highest = 0;
	for (int n = 1; n <= BACKUP_MAX; n++) {
		struct stat st;
		have[n] = backup_name(path, n, name, sizeof name) == 0 && lstat(name, &st) == 0 && S_ISREG(st.st_mode);
		if (have[n])
			highest = n;
	}
	return highest;
}

/* Only the newest keep (highest numbers) stay. */
static void backups_prune(const char *path, int keep)
{
	bool have[BACKUP_MAX + 1];
	char name[4200];
	backups_list(path, have);
	int kept = 0;
	for (int n = BACKUP_MAX; n >= 1; n--) {
		if (!have[n] || ++kept <= keep)
			continue;
		if (backup_name(path, n, name, sizeof name) == 0)
			unlink(name);
	}
}

/* The numbers reached 999: the kept ones move down to 1, 2, ... in their
 * order (each only where no file is), so the next is one more again. */
static int backups_renumber(const char *path, bool *have)
{
	char from[4200], to[4200];
	int next = 1;
	for (int n = 1; n <= BACKUP_MAX; n++) {
		if (!have[n])
			continue;
		if (n != next && backup_name(path, n, from, sizeof from) == 0 &&
		    backup_name(path, next, to, sizeof to) == 0 &&
		    renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) != 0)
			return n + 1 <= BACKUP_MAX ? n + 1 : -1; /* cannot move: above the highest, if room */
		next++;
	}
	return next;
}

/* Put the finished copy tmp at name, never over a file (another run may
 * have made that backup meanwhile): a rename that refuses to replace, no
 * hard link needed; where the filesystem has no such rename, a link.
 * 0, -1 with errno (EEXIST: taken). */
static int place_new(const char *tmp, const char *name)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	if (link(tmp, name) == 0) {
		unlink(tmp);
		return 0;
	}
	if (errno == EEXIST)
		return -1;
	if (access(name, F_OK) == 0) { /* neither: a check, then a rename */
		errno = EEXIST;
		return -1;
	}
	return rename(tmp, name);
}

struct copy_src {
	int fd;
};

static int copy_fd(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct copy_src *src = ctx;
	char buf[65536];
	ssize_t n;
	while ((n = read(src->fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, len, "reading the file to copy: %s", strerror(errno));
			return -1;
		}
		if (fwrite(buf, 1, (size_t)n, f) != (size_t)n)
			return 0; /* the flush says why */
	}
	return 0;
}

int writefile_backup(const char *path, struct writefile_backup *b, char *msg, size_t len)
{
	memset(b, 0, sizeof *b);
	int src = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (src < 0) {
		if (errno == ENOENT)
			return 0; /* nothing to keep */
		return fail_errno(msg, len, path, "cannot be read to keep a backup");
	}
	struct stat st;
	if (fstat(src, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(src);
		return fail(msg, len, path, "is not a regular file: no backup can be kept");
	}
	claim_stamp_read(path, &b->was);
	bool have[BACKUP_MAX + 1];
	int next = backups_list(path, have) + 1;
	if (next > BACKUP_MAX) { /* room for this one among the kept, then numbers from 1 again */
		backups_prune(path, WRITEFILE_BACKUPS_KEPT - 1);
		backups_list(path, have);
		next = backups_renumber(path, have);
	}
	char tmp[4200], name[4200];
	int rc = -1;
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= sizeof tmp) {
		close(src);
		return fail(msg, len, path, "path too long for a backup beside it");
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		close(src);
		return fail_errno(msg, len, path, "cannot keep a backup: cannot create a file beside it");
	}
	(void)!fchmod(fd, st.st_mode & 07777);
	FILE *f = fdopen(fd, "w");
	struct copy_src cs = { src };
	if (!f) {
		close(fd);
		fail_errno(msg, len, path, "cannot keep a backup");
	} else if (fill(f, path, copy_fd, &cs, true, true, msg, len) == 0) {
		for (; next > 0 && next <= BACKUP_MAX; next++) {
			if (backup_name(path, next, name, sizeof name) != 0)
				break;
			if (place_new(tmp, name) == 0) {
				rc = 0;
				break;
			}
			if (errno != EEXIST) {
				fail_errno(msg, len, name, "cannot keep the backup there");
				break;
			}
		}
		if (rc != 0 && (next <= 0 || next > BACKUP_MAX))
			snprintf(msg, len, "%s: cannot keep a backup: %d numbered backups are in the way", path, BACKUP_MAX);
	}
	close(src);
	if (rc != 0) {
		unlink(tmp);
		return -1;
	}
	snprintf(b->path, sizeof b->path, "%s", name);
	sync_dir(name);
	backups_prune(path, WRITEFILE_BACKUPS_KEPT);
	return 0;
}

bool writefile_backup_settle(const char *path, struct writefile_backup *b)
{
	if (!b->path[0] || access(b->path, F_OK) != 0)
		return false;
	struct stat st;
	if (stat(path, &st) != 0 || claim_stamp_changed(&b->was, path))
		return true; /* replaced, or gone: the copy is what is left of it */
	unlink(b->path); /* nothing was replaced: no backup needed */
	b->path[0] = '\0';
	return false;
}
