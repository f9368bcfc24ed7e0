/*
 * readfile.c - whole-file reads that cannot hang or take unbounded
 * memory: open with O_NONBLOCK, fstat the descriptor that was opened (no
 * race between a check and the open), refuse anything but a regular file
 * and anything over the caller's limit. Does not parse: the caller does.
 */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int refuse(char *why, size_t len, const char *reason, int fd, int err)
{
	snprintf(why, len, "%s", reason);
	if (fd >= 0)
		close(fd);
	errno = err;
	return -1;
}

/* A descriptor on path, a regular file (st filled), or -1 with why. */
static int open_regular(const char *path, struct stat *st, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		return refuse(why, len, strerror(err), -1, err);
	}
	if (fstat(fd, st) != 0) {
		int err = errno;
		return refuse(why, len, strerror(err), fd, err);
	}
	if (S_ISDIR(st->st_mode))
		return refuse(why, len, "is a directory", fd, EISDIR);
	if (!S_ISREG(st->st_mode))
		return refuse(why, len, "is not a regular file (a pipe, device or socket): not read", fd, EINVAL);
	return fd;
}

FILE *readfile_open(const char *path, char *why, size_t len)
{
	struct stat st;
	int fd = open_regular(path, &st, why, len);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		int err = errno;
		refuse(why, len, strerror(err), fd, err);
	}
	return f;
}

int readfile_all(const char *path, size_t max, char **text, size_t *size, char *why, size_t len)
{
	*text = NULL;
	*size = 0;
	struct stat st;
	int fd = open_regular(path, &st, why, len);
	if (fd < 0)
		return -1;
	if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
		char r[96];
		snprintf(r, sizeof r, "too large (over %zu bytes)", max);
		return refuse(why, len, r, fd, EFBIG);
	}
	/* the size may change under us: read at most max + 1 to notice */
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return refuse(why, len, "out of memory", fd, ENOMEM);
	for (;;) {
		if (n == cap) {
			if (n > max)
				break;
			size_t more = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *b = realloc(buf, more + 1);
			if (!b) {
				free(buf);
				return refuse(why, len, "out of memory", fd, ENOMEM);
			}
			buf = b;
			cap = more;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;
			free(buf);
			return refuse(why, len, strerror(err), fd, err);
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (n > max) {
		free(buf);
		char r[96];
		snprintf(r, sizeof r, "too large (over %zu bytes)", max);
		return refuse(why, len, r, -1, EFBIG);
	}
	buf[n] = '\0';
	*text = buf;
	*size = n;
	return 0;
}
