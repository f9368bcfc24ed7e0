/*
 * tmpdir.c - the temporary directory of a test group: made by mkdtemp,
 * removed whole (depth first, symlinks not followed) at the end; whole
 * files read and written for the tests.
 */
#include "tmpdir.h"

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

static char dir[256];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

int tmpdir_make(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/mha-test-XXXXXX", base && base[0] ? base : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

int tmpdir_remove(void **state)
{
	(void)state;
	return nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

void tmpdir_path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

const char *tmpdir_get(void)
{
	return dir;
}

char *tmpdir_slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot read %s", path);
	char *buf = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = 2 * cap + 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t got = fread(buf + len, 1, 4096, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	*size = len;
	return buf;
}

void tmpdir_spit(const char *path, const char *text, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		fail_msg("cannot write %s", path);
	assert_int_equal(fwrite(text, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}
