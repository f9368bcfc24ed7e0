/*
 * claim.h - which file a run of the workbench saves to, so that nothing is
 * overwritten that the run did not open (doc/SESSION.md):
 *   - a lock per session file ("<path>.lock", flock, holding the pid), kept
 *     while the process lives and removed at its normal exit: a second
 *     instance is told who holds it and saves to the next free
 *     "<stem>-N<ext>" instead;
 *   - a numbered name ("<path>.~N~", a hard link) to keep an autosave
 *     under (the copies kept before a run replaces a session are
 *     writefile_backup's);
 *   - a stamp of a file (identity, size, mtime, content hash) taken when it
 *     is loaded or saved, so that a save can tell that something else
 *     changed the file meanwhile and save beside it instead of over it.
 */
#ifndef CLAIM_H
#define CLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Lock path for this process. 0: ours (or no lock is possible there,
 * e.g. a read-only directory: nothing to protect against then); 1:
 * another process holds it, *holder its pid (0 when unknown). */
int claim_lock(const char *path, int *holder);

/* Give up the lock this process holds on path (claim_lock), removing its
 * file: a lesson's bench left for another step. Nothing when not held. */
void claim_unlock(const char *path);

/* Does another process hold path's lock right now (a running mha-tui has
 * the file open)? Probed, not kept; this process's own locks: false. */
bool claim_held(const char *path);

/* The first of path, "<stem>-2<ext>", "<stem>-3<ext>", ... (up to 99)
 * this process could lock, into out (the numbered ones only when no file
 * of that name exists: an earlier instance's edits may be in it). Returns 0 when that is path itself,
 * 1 when another was taken (*holder: who holds path), -1 when none
 * (out then holds path: saving there is the best left). */
int claim_session(const char *path, char *out, size_t outlen, int *holder);

/* Give the file at path a second name "<path>.~N~" (first free N from
 * 1), a hard link (then unlinking path moves it there). 0 with out, or -1
 * (no file, or links impossible: out empty). A backup before a session is
 * replaced is a copy: writefile_backup. */
int claim_backup(const char *path, char *out, size_t outlen);

/* Move the file at from to "<base>.~N~" (first free N from 1): linked
 * there, then unlinked, so it is never gone from both names. 0 with out,
 * or -1 (from left where it was). */
int claim_move_aside(const char *from, const char *base, char *out, size_t outlen);

/* The newest numbered backup of path, "<path>.~N~" with the highest N
 * (up to 999) that exists, into out. 0, or -1 when there is none. */
int claim_newest_backup(const char *path, char *out, size_t outlen);

/* The session an autosave belongs to: "X.autosave", or one kept for
 * later, "X.autosave.~N~", belongs to X (its edits are saved there), into
 * out: 1. 0 (out = path) for any other name, and for one with nothing of
 * its own before ".autosave" (".autosave", "dir/.autosave"). */
int claim_autosave_owner(const char *path, char *out, size_t outlen);

/* What a file was when a run read or wrote it. exists false: no file;
 * taken false (a zeroed stamp): never stamped, nothing to compare with. */
struct claim_stamp {
	bool taken;
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t hash; /* FNV-1a (64-bit, 8 bytes a step) of the content */
};

/* Stamp the file at path now (through a symlink, as saves write). A file
 * that cannot be read whole is stamped by its metadata (hash 0). */
void claim_stamp_read(const char *path, struct claim_stamp *s);

/* true when the file at path is no longer the one stamped in was: another
 * file, size, mtime or content (the hash is read only when the rest
 * matches). A file that is gone has nothing to lose, and a stamp never
 * taken nothing to compare with: false. */
bool claim_stamp_changed(const struct claim_stamp *was, const char *path);

/* The first "<stem>-N<ext>" (N = 2..99) beside path that does not exist
 * and that this process could lock, into out: where a save goes instead of
 * over a file changed behind it. 0, or -1 when there is none. */
int claim_beside(const char *path, char *out, size_t outlen);

/* How many names the file (dev, ino), which had nlink names, has besides
 * path and path's own numbered backups ("<path>.~N~", which are links to
 * it on purpose): the hard links a save of path splits off, each keeping
 * the file from before the save. */
int claim_other_names(const char *path, dev_t dev, ino_t ino, nlink_t nlink);

/* An autosave a second instance left ("<stem>-N<ext>.autosave", N =
 * 2..99, its session's lock free: that instance is gone, killed or
 * crashed), into out: 0, or -1 when there is none. */
int claim_orphan_autosave(const char *path, char *out, size_t outlen);

#endif
