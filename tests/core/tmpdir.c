/*
 * tmpdir.c - the temporary directory of a test group: made by mkdtemp,
 * removed whole (depth first, symlinks not followed) at the end.
 */
#include "tmpdir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

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
