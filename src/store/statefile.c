/*
 * statefile.c - the state directory and atomic replacement of a file in
 * it: temporary file beside the target, fsync, rename, fsync of the
 * directory; through a symlink the target is replaced, and the new file
 * keeps the old one's mode and owner. A hard link is split by the rename
 * (in-place writing would not be atomic). Knows nothing of what the files
 * hold.
 */
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

int statefile_write(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx,
                    char *msg, size_t len)
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
	if (stat(dest, &old) == 0 && S_ISREG(old.st_mode)) {
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
	if (rename(tmp, dest) != 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		return fail_errno(msg, len, path, "cannot replace");
	}
	sync_dir(dest);
	return 0;
}
