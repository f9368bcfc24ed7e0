/*
 * tmpdir.h - one fresh temporary directory per test group, for the tests
 * that write files (sessions). Use make/remove as the group's setup and
 * teardown: cmocka_run_group_tests_name(name, tests, tmpdir_make, tmpdir_remove).
 * And a whole file read or written in one call, failing the test when the
 * file system refuses.
 */
#ifndef TMPDIR_H
#define TMPDIR_H

#include <stddef.h>

int tmpdir_make(void **state);   /* mkdtemp under $TMPDIR or /tmp */
int tmpdir_remove(void **state); /* rm -r of the directory */
/* "DIR/name" into out. */
void tmpdir_path(char *out, size_t len, const char *name);
/* The directory itself. */
const char *tmpdir_get(void);
/* The whole file at path, NUL-terminated, malloc'd (the caller frees);
 * *size its length. */
char *tmpdir_slurp(const char *path, size_t *size);
/* path (created or truncated) holds exactly size bytes of text. */
void tmpdir_spit(const char *path, const char *text, size_t size);

#endif
