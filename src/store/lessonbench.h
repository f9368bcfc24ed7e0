/*
 * lessonbench.h - a lesson's workbench kept between runs (doc/SESSION.md,
 * "A lesson's edits"), a kind of file of its own, so that it is never
 * taken for another step's, never put over something it cannot read, and
 * never lost to a second instance or a crash:
 *
 *     mha-tui-bench 1           magic word and version
 *     lesson one-head           the lesson's name
 *     step steer                the step's id
 *     mha-tui-session 1         the bench itself, a session (doc/SESSION.md)
 *     ...
 *     end
 *
 * Kept as "lesson-bench-LESSON-STEP.txt" beside progress.txt (a plain
 * session there, from before this kind, is read as the bench its name
 * says). What the TUI calls, in order:
 *   lessonbench_path      the file for a lesson's step;
 *   lessonbench_claim     this instance's own name for it (a second mha-tui
 *                         at the same step gets "-2"), locked while open;
 *   lessonbench_load      its edits, or none, or a refusal that keeps it;
 *   lessonbench_save      at quit (and lessonbench_autosave_path for the
 *                         edits in between, written with lessonbench_save
 *                         by the autosave writer), a failure said;
 *   lessonbench_release   leaving the step;
 *   lessonbench_prune     after a save: old benches of finished runs;
 *   lessonbench_orphan_autosave  at start: a crashed lesson's edits.
 * No terminal, no lessons: names and files only.
 */
#ifndef LESSONBENCH_H
#define LESSONBENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "mha.h"

enum {
	LESSONBENCH_VERSION = 1,
	LESSONBENCH_NAME_MAX = 64, /* a lesson's name or a step's id, with its NUL */
	LESSONBENCH_KEPT = 8,      /* benches kept in the directory (the newest) */
};

#define LESSONBENCH_MAGIC "mha-tui-bench"

/* "DIR/lesson-bench-LESSON-STEP.txt" into out. 0, or -1 when a name is
 * empty, holds anything but letters, digits, '.', '_' and '-' (it would
 * make another path), or the path does not fit. */
int lessonbench_path(const char *dir, const char *lesson, const char *step, char *out, size_t outlen);

/* This instance's file for the bench at path, locked (claim_lock) until
 * lessonbench_release or exit: path itself (0), or, while another running
 * mha-tui holds path, the first "<stem>-N.txt" that does not exist yet
 * (1, *holder its pid): two instances at one step keep both benches.
 * -1: no name left (out = path). Load from path itself (the other's
 * bench is where the step was left), save to out. */
int lessonbench_claim(const char *path, char *out, size_t outlen, int *holder);
/* Leaving the step: the lock on path (a claimed name) is given up. */
void lessonbench_release(const char *path);

/* The bench of lesson and step at path: 0 loaded (*c, *w allocated:
 * mha_weights_free); 1 no file there (nothing said); -1 refused with msg
 * ("path:line: why; kept") - damaged, a newer version, another kind, or
 * another lesson's or step's - and the file is left as it is (and
 * lessonbench_save will not replace it). */
int lessonbench_load(const char *path, const char *lesson, const char *step, struct mha_config *c,
                     struct mha_weights *w, char *msg, size_t len);

/* The same from text in memory (name in messages): the lesson and step
 * the file says into lesson and step (LESSONBENCH_NAME_MAX each); a plain
 * session (older benches) leaves them "". 0 or -1 with msg. */
int lessonbench_parse(const char *name, const char *text, size_t size, char *lesson, char *step,
                      struct mha_config *c, struct mha_weights *w, char *msg, size_t len);

/* Write the bench of lesson and step to path through the one write path
 * (atomic, through symlinks). What is at path must be a bench this
 * program reads, of this lesson and step (or a plain session, as older
 * runs wrote), or nothing: anything else is kept and the save refused.
 * 0, or -1 with msg (for the TUI to say, on the status line or at exit). */
int lessonbench_save(const char *path, const char *lesson, const char *step, const struct mha_config *c,
                     const struct mha_weights *w, char *msg, size_t len);

/* "<bench>.autosave": where the edits made in the lesson since its last
 * save are written every few edits and by the crash handler. 0 or -1. */
int lessonbench_autosave_path(const char *bench, char *out, size_t outlen);

/* The autosave a crashed or killed run left for the bench at path: its
 * own ("<path>.autosave", newer than the bench, which no other running
 * mha-tui holds) or a second instance's gone ("<stem>-N.txt.autosave",
 * claim_orphan_autosave). 0 with out, or -1 when there is none. */
int lessonbench_crashed_autosave(const char *path, char *out, size_t outlen);

/* The benches in dir ("lesson-bench-*.txt", and "lesson-bench.txt" of
 * older versions) beyond the LESSONBENCH_KEPT newest, removed; never
 * keep, never one another running mha-tui holds, never an autosave. */
void lessonbench_prune(const char *dir, const char *keep);

/* The newest bench autosave in dir whose bench no running mha-tui holds:
 * a lesson's edits a crash or kill -9 left (its bench's path is the name
 * without ".autosave"). 0 with out, or -1 when there is none. */
int lessonbench_orphan_autosave(const char *dir, char *out, size_t outlen);

#endif
