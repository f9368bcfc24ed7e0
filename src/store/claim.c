/*
 * claim.c - locks and numbered backups for the session files (claim.h).
 * A lock is an flock on "<path>.lock", which holds the pid of its owner
 * for the message a second instance gives; the descriptor stays open (and
 * the lock held) until the process ends, so a crash or kill -9 frees it.
 * Also stamps a file (claim_stamp_read) so a save can see it was changed
 * behind it. Knows nothing of what the files hold.
 */
#include "claim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The locks this process holds, removed at its normal exit (a lock file
 * beside a user's --load file is clutter); a crash or kill -9 leaves the
 * file, and the kernel frees the lock all the same. */
enum { HELD_MAX = 16 };
static struct held_lock {
	int fd;
	char path[4200];
} held_locks[HELD_MAX];
static int nheld;

static void release_all(void)
{
	for (int i = 0; i < nheld; i++) {
		unlink(held_locks[i].path); /* still locked: a process waiting on this file sees the name gone (claim_lock) */
		close(held_locks[i].fd);
	}
	nheld = 0;
}

static void remember(int fd, const char *lock)
{
	if (nheld == HELD_MAX)
		return; /* kept to the end all the same, only not removed */
	if (nheld == 0)
		atexit(release_all);
	held_locks[nheld].fd = fd;
	snprintf(held_locks[nheld].path, sizeof held_locks[nheld].path, "%s", lock);
	nheld++;
}

int claim_lock(const char *path, int *holder)
{
	char lock[4200];
	*holder = 0;
	if ((size_t)snprintf(lock, sizeof lock, "%s.lock", path) >= sizeof lock)
		return 0;
	for (int tries = 0; tries < 10; tries++) {
		int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return 0; /* nowhere to lock: the save will say what is wrong */
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int err = errno;
			char buf[32] = "";
			ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
			buf[n > 0 ? n : 0] = '\0';
			*holder = atoi(buf);
			close(fd);
			return err == EWOULDBLOCK || err == EAGAIN ? 1 : 0; /* else: no locks here (NFS): none */
		}
		/* the file locked must still be the one of that name: its last
		 * holder removes it at exit (release_all), and then a lock on the
		 * removed file would guard nothing */
		struct stat mine, named;
		if (fstat(fd, &mine) != 0 || stat(lock, &named) != 0 || mine.st_dev != named.st_dev ||
		    mine.st_ino != named.st_ino) {
			close(fd);
			continue;
		}
		char pid[32];
		int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
		if (ftruncate(fd, 0) == 0)
			(void)!pwrite(fd, pid, (size_t)n, 0); /* the pid is for messages only */
		remember(fd, lock);
		return 0; /* fd stays open: the lock lives as long as the process */
	}
	return 0;
}

/* "<stem>-i<ext>" of path into out; 0, or -1 when it does not fit. */
static int numbered(const char *path, int i, char *out, size_t outlen)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	if (!dot || (slash && dot < slash))
		dot = path + strlen(path);
	return (size_t)snprintf(out, outlen, "%.*s-%d%s", (int)(dot - path), path, i, dot) < outlen ? 0 : -1;
}

/* The first "<stem>-N<ext>" (N = 2..99) this process could lock and,
 * when fresh, that does not exist yet, into out. 0 or -1. */
static int claim_next(const char *path, bool fresh, char *out, size_t outlen)
{
	for (int i = 2; i < 100; i++) {
		int other;
		char alt[4200];
		if (numbered(path, i, alt, sizeof alt) != 0 || strlen(alt) >= outlen)
			break;
		if (fresh && access(alt, F_OK) == 0)
			continue;
		if (claim_lock(alt, &other) == 0) {
			snprintf(out, outlen, "%s", alt);
			return 0;
		}
	}
	return -1;
}

int claim_session(const char *path, char *out, size_t outlen, int *holder)
{
	snprintf(out, outlen, "%s", path);
	if (claim_lock(path, holder) == 0)
		return 0;
	/* a name that does not exist yet: an unlocked session-2.txt holds the
	 * edits of an earlier second instance, never to be saved over */
	return claim_next(path, true, out, outlen) == 0 ? 1 : -1;
}

int claim_beside(const char *path, char *out, size_t outlen)
{
	return claim_next(path, true, out, outlen);
}

/* FNV-1a over the file behind fd, 8 bytes a step (a byte a step took
 * 0.2-0.3 s for a 68 MB session), the tail a byte a step; 0 when it
 * cannot be read. A short read only moves where the steps fall: the same
 * file always hashes the same. */
static uint64_t hash_fd(int fd)
{
	unsigned char buf[65536];
	uint64_t h = 14695981039346656037ull;
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		ssize_t i = 0;
		for (; i + 8 <= n; i += 8) {
			uint64_t word;
			memcpy(&word, buf + i, 8);
			h = (h ^ word) * 1099511628211ull;
		}
		for (; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
	}
	return h;
}

static void stamp_meta(const char *path, struct claim_stamp *s)
{
	struct stat st;
	memset(s, 0, sizeof *s);
	s->taken = true;
	if (stat(path, &st) != 0)
		return;
	s->exists = true;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtime = st.st_mtim;
}

static uint64_t stamp_hash(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return 0;
	uint64_t h = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? hash_fd(fd) : 0;
	close(fd);
	return h;
}

void claim_stamp_read(const char *path, struct claim_stamp *s)
{
	stamp_meta(path, s);
	if (s->exists)
		s->hash = stamp_hash(path);
}

bool claim_stamp_changed(const struct claim_stamp *was, const char *path)
{
	struct claim_stamp now;
	stamp_meta(path, &now);
	if (!now.exists || !was->taken)
		return false; /* nothing there to overwrite, or nothing known of it */
	if (!was->exists || now.dev != was->dev || now.ino != was->ino || now.size != was->size ||
	    now.mtime.tv_sec != was->mtime.tv_sec || now.mtime.tv_nsec != was->mtime.tv_nsec)
		return true;
	return stamp_hash(path) != was->hash;
}

/* Link from as the first free "<base>.~N~". 0 with out, or -1. */
static int link_numbered(const char *from, const char *base, char *out, size_t outlen)
{
	out[0] = '\0';
	for (int i = 1; i < 1000; i++) {
		if ((size_t)snprintf(out, outlen, "%s.~%d~", base, i) >= outlen)
			break;
		if (link(from, out) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	out[0] = '\0';
	return -1;
}

int claim_backup(const char *path, char *out, size_t outlen)
{
	return link_numbered(path, path, out, outlen);
}

int claim_move_aside(const char *from, const char *base, char *out, size_t outlen)
{
	if (link_numbered(from, base, out, outlen) != 0)
		return -1;
	if (unlink(from) != 0) {
		unlink(out);
		out[0] = '\0';
		return -1;
	}
	return 0;
}

int claim_newest_backup(const char *path, char *out, size_t outlen)
{
	for (int i = 999; i >= 1; i--)
		if ((size_t)snprintf(out, outlen, "%s.~%d~", path, i) < outlen && access(out, F_OK) == 0)
			return 0;
	out[0] = '\0';
	return -1;
}

int claim_autosave_owner(const char *path, char *out, size_t outlen)
{
	snprintf(out, outlen, "%s", path);
	const char *at = strstr(path, ".autosave");
	while (at && strstr(at + 1, ".autosave"))
		at = strstr(at + 1, ".autosave");
	if (!at || at == path || at[-1] == '/' || (size_t)(at - path) >= outlen)
		return 0; /* ".autosave" alone, or "dir/.autosave": a name, not an autosave of one */
	const char *rest = at + strlen(".autosave");
	int n = 0;
	if (*rest && !(sscanf(rest, ".~%*d~%n", &n) == 0 && n > 0 && rest[n] == '\0'))
		return 0;
	snprintf(out, outlen, "%.*s", (int)(at - path), path);
	return 1;
}

int claim_other_names(const char *path, dev_t dev, ino_t ino, nlink_t nlink)
{
	int others = nlink > 1 ? (int)nlink - 1 : 0;
	char name[4200];
	struct stat st;
	for (int n = 1; n <= 999 && others > 0; n++) {
		snprintf(name, sizeof name, "%.4000s.~%d~", path, n);
		if (lstat(name, &st) == 0 && st.st_dev == dev && st.st_ino == ino)
			others--;
	}
	return others;
}

void claim_unlock(const char *path)
{
	char lock[4200];
	if ((size_t)snprintf(lock, sizeof lock, "%s.lock", path) >= sizeof lock)
		return;
	for (int i = 0; i < nheld; i++) {
		if (strcmp(held_locks[i].path, lock) != 0)
			continue;
		unlink(held_locks[i].path); /* still locked: a process waiting on it sees the name gone */
		close(held_locks[i].fd);
		held_locks[i] = held_locks[--nheld];
		return;
	}
}

/* Another process holds path's lock now (probed: not kept). */
bool claim_held(const char *path)
{
	char lock[4200];
	if ((size_t)snprintf(lock, sizeof lock, "%s.lock", path) >= sizeof lock)
		return false;
	for (int i = 0; i < nheld; i++)
		if (strcmp(held_locks[i].path, lock) == 0)
			return false; /* this process's own */
	int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && (errno == EWOULDBLOCK || errno == EAGAIN);
	close(fd); /* a lock taken here goes with it */
	return held;
}

int claim_orphan_autosave(const char *path, char *out, size_t outlen)
{
	for (int i = 2; i < 100; i++) {
		char alt[4200], autosave[4300];
		if (numbered(path, i, alt, sizeof alt) != 0)
			return -1;
		snprintf(autosave, sizeof autosave, "%s.autosave", alt);
		if (access(autosave, F_OK) == 0 && !claim_held(alt) &&
		    (size_t)snprintf(out, outlen, "%s", autosave) < outlen)
			return 0;
	}
	return -1;
}
