/*
 * writefile.h - the one way mha-tui writes a file: sessions, lesson
 * benches, progress, trained models and the language model's vocabulary,
 * exports (doc/RELIABILITY.md, P8).
 *
 *   - validated before the work that fills it starts (writefile_check):
 *     a name, a directory that takes a new file, nothing in the way that
 *     is not the kind of file the caller writes;
 *   - atomic: a new file beside the target (created with O_EXCL), flushed
 *     to disk, renamed over it, the directory flushed: a reader, a crash or
 *     a full disk sees the old file or the new one, never a mix;
 *   - through symlinks: the link's target is written (a dangling link's
 *     target is created), the link stays a link; the file keeps its mode
 *     and owner;
 *   - keeping what it cannot read: a file of another kind (a session where
 *     a model goes, a text of the user's where a session goes), a file
 *     with no write permission (mode 0444), a directory, a device or a
 *     pipe is refused and left as it is (an export, which people point at
 *     /dev/null or a pipe, is written into a device or a pipe instead);
 *   - a backup that is a real copy (writefile_backup): never a hard link,
 *     which a symlink or a filesystem without links defeats;
 *   - every failure one message, "PATH: what went wrong: reason", for the
 *     caller to print as one line (report_line) and exit 1.
 */
#ifndef WRITEFILE_H
#define WRITEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "claim.h"

/* What a write puts at its path, and so what it may replace there. */
enum writefile_kind {
	WRITEFILE_EXPORT,   /* a file the user named for output (a script, a picture, a screen):
	                     * any regular file is replaced; a device or pipe is written into */
	WRITEFILE_SESSION,  /* a session ("mha-tui-session"), also an autosave */
	WRITEFILE_BENCH,    /* a lesson bench ("mha-tui-bench", or a session: older benches) */
	WRITEFILE_PROGRESS, /* the progress file ("mha-tui-progress") */
	WRITEFILE_MODEL,    /* a trained model ("mha-tui model") */
	WRITEFILE_VOCAB,    /* the language model's vocabulary ("mha-tui vocab"), beside its model */
};

/* Where a write of a path lands, found by writefile_check. */
struct writefile_target {
	char path[4096];   /* the file written: path through every symlink */
	bool exists;       /* a regular file is there now: the write replaces it */
	bool stream;       /* a device or pipe (exports only): written into, nothing replaced */
};

/* Everything that can be known before the work starts: path is not
 * empty; its symlinks lead somewhere (no loop); what is there is absent,
 * empty, or a regular file of kind with write permission (or, for an
 * export, a device or pipe); its directory exists and takes a new file
 * (one is created there and removed). 0 with *t, or -1 with msg. */
int writefile_check(const char *path, enum writefile_kind kind, struct writefile_target *t,
                    char *msg, size_t len);

/* statefile_write_checked returns this when the file at path is no longer
 * the one chk->expect stamped: nothing of it was replaced. (The name is
 * the state files' from before this module; every writer shares it.) */
enum { STATEFILE_CHANGED = -2 };

/* A checked write: what the file must still be, and what it replaced. */
struct statefile_check {
	const struct claim_stamp *expect; /* in: NULL, or the file path must still be */
	bool replaced;                    /* out: a file was there and is replaced */
	dev_t dev;                        /* out: the replaced file's identity */
	ino_t ino;
	nlink_t nlink;                    /* out: how many names it had (hard links) */
};

/* What fills the file: writes to f; 0, or -1 with why (then nothing is
 * replaced: "PATH: not written: WHY"). Write errors of f need no return:
 * writefile sees them at the flush. */
typedef int (*writefile_fn)(FILE *f, const void *ctx, char *why, size_t len);

/* Write path atomically (above) with write(f, ctx). chk (may be NULL):
 * when chk->expect is set, never over a file changed since that stamp
 * (claim_stamp_changed: identity, size, mtime, hash): checked once the
 * new file is written and flushed, immediately before the rename; and the
 * rename itself is an exchange (renameat2 RENAME_EXCHANGE, where the
 * filesystem has it) that puts the file it displaced under the temporary
 * name, where it is checked again: when a change came in between, it is
 * exchanged back (the changed file is at path again, as it was) and
 * STATEFILE_CHANGED comes back. Where there is no exchange, a plain
 * rename follows the check (doc/RELIABILITY.md says what window that
 * leaves). A file absent at the stamp is created only if still absent
 * (RENAME_NOREPLACE). On any failure the new file is removed, what was at
 * path is untouched, and -1 comes back with msg. */
int writefile_write(const char *path, enum writefile_kind kind, writefile_fn write, const void *ctx,
                    struct statefile_check *chk, char *msg, size_t len);

/* How many numbered backups of one file are kept: making one removes the
 * oldest beyond these. */
enum { WRITEFILE_BACKUPS_KEPT = 10 };

/* A copy of a file kept before a run replaces it. */
struct writefile_backup {
	char path[4200];        /* "<file>.~N~", or "" when none was made */
	struct claim_stamp was; /* the file when it was copied */
};

/* Copy the file at path (through its symlinks) to "<path>.~N~", N one
 * more than the highest there (renumbered from 1 when that passes 999),
 * written as writefile_write writes and created only where no file is;
 * then only the newest WRITEFILE_BACKUPS_KEPT backups of path are kept.
 * 0 with *b (b->path "" when there is no file at path: nothing to keep),
 * or -1 with msg (nothing made). */
int writefile_backup(const char *path, struct writefile_backup *b, char *msg, size_t len);

/* After the run: true when the file at path is no longer the one copied
 * (a save replaced it: the backup holds it from before); false when it
 * still is, and then the backup, a copy of it, is removed. */
bool writefile_backup_settle(const char *path, struct writefile_backup *b);

/* For the tests only: called with the path being replaced at stage 0 just
 * before the check that precedes the rename (checked writes only), and at
 * stage 1 once the new file is written and flushed, between that check
 * and the rename (a change made there is what the exchange sees). NULL in
 * the product, except in an autosave writer run with
 * MHA_TEST_AUTOSAVE_GATE (src/tui/model/save.c). */
extern void (*statefile_test_hook)(const char *path, int stage);

#endif
