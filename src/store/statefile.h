/*
 * statefile.h - files the program keeps between runs (progress, and fit
 * for the session too): the state directory, and writing a file
 * atomically so that a crash or a full disk leaves the old file whole.
 */
#ifndef STATEFILE_H
#define STATEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "claim.h"

/* $XDG_STATE_HOME/mha-tui (an absolute XDG_STATE_HOME only, as the spec
 * says), else $HOME/.local/state/mha-tui; created (mode 0700) if missing.
 * Returns 0, or -1 with msg. */
int statefile_dir(char *out, size_t outlen, char *msg, size_t len);

/* statefile_dir() + "/" + name: where a file the program keeps lives by
 * default (session.txt, progress.txt). Returns 0, or -1 with msg. */
int statefile_path(const char *name, char *out, size_t outlen, char *msg, size_t len);

/* Write path atomically: write(f, ctx) fills a temporary file in the same
 * directory, which is flushed, fsync'ed and renamed over path; then the
 * directory is fsync'ed. On any failure the temporary file is removed,
 * path is untouched, and -1 comes back with msg ("path: reason"). */
int statefile_write(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx,
                    char *msg, size_t len);

/* statefile_write_checked returns this when the file at path is no longer
 * the one chk->expect stamped: nothing of it was replaced. */
enum { STATEFILE_CHANGED = -2 };

/* A checked write: what the file must still be, and what it replaced. */
struct statefile_check {
	const struct claim_stamp *expect; /* in: NULL, or the file path must still be */
	bool replaced;                    /* out: a file was there and is replaced */
	dev_t dev;                        /* out: the replaced file's identity */
	ino_t ino;
	nlink_t nlink;                    /* out: how many names it had (hard links) */
};

/* statefile_write, and when chk->expect is set, never over a file changed
 * since that stamp (claim_stamp_changed: identity, size, mtime, hash):
 * checked once the new file is written and flushed, immediately before
 * the rename; and the rename itself is an exchange (renameat2
 * RENAME_EXCHANGE, where the filesystem has it) that puts the file it
 * displaced under the temporary name, where it is checked again: when a
 * change came in between, it is exchanged back (the changed file is at
 * path again, as it was) and STATEFILE_CHANGED comes back. Where there is
 * no exchange, a plain rename follows the check (doc/RELIABILITY.md says
 * what window that leaves). A file absent at the stamp is created only if
 * still absent (RENAME_NOREPLACE). chk may be NULL. */
int statefile_write_checked(const char *path, void (*write)(FILE *f, const void *ctx), const void *ctx,
                            struct statefile_check *chk, char *msg, size_t len);

/* For the tests only: called with the path being replaced at stage 0 just
 * before the check that precedes the rename (checked writes only), and at
 * stage 1 once the new file is written and flushed, between that check
 * and the rename (a change made there is what the exchange sees). NULL in
 * the product, except in an autosave writer run with
 * MHA_TEST_AUTOSAVE_GATE (src/tui/model/save.c). */
extern void (*statefile_test_hook)(const char *path, int stage);

#endif
