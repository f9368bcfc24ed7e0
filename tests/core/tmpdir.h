/*
 * tmpdir.h - one fresh temporary directory per test group, for the tests
 * that write files (sessions). Use make/remove as the group's setup and
 * teardown: cmocka_run_group_tests_name(name, tests, tmpdir_make, tmpdir_remove).
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

#endif
