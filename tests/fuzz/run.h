/*
 * run.h - run the mha-tui binary as a person's shell would, and capture
 * what it says, for the bad-input tests. Deadline-bound: a hang is killed
 * and reported as such, never waited on forever.
 */
#ifndef RUN_H
#define RUN_H

#include <stdbool.h>
#include <stddef.h>

struct run_result {
	int code;       /* exit status, or -1 when killed by a signal */
	int signal;     /* the signal that ended it, 0 if none */
	bool hung;      /* still running at the deadline: killed */
	char *out;      /* stdout, NUL-terminated (free) */
	char *err;      /* stderr, NUL-terminated (free) */
	size_t out_len, err_len;
};

/* Run argv[0] with stdin from /dev/null. as_nobody: drop to uid/gid 65534
 * first when running as root (to test file permissions, which root
 * ignores). Returns 0, or -1 when it could not be started. */
int run_program(const char *const argv[], int deadline_ms, bool as_nobody, struct run_result *r);
void run_free(struct run_result *r);

/* Where the binary under test is: $MHA_TUI (set by tests/meson.build). */
const char *run_mha_tui(void);

#endif
