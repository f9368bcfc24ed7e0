/*
 * progress.h - what the learner has done and where they are, kept in
 * $XDG_STATE_HOME/mha-tui/progress.txt (else ~/.local/state/mha-tui/).
 * Steps are keyed "lesson-name/step-id" (lesson_step_key), so inserting a
 * lesson or a step never shifts what was done. Saving is atomic; a corrupt
 * file is refused with "path:line: message" and never overwritten by a load.
 *
 * File format (text, one fact a line):
 *     mha-tui-progress 1
 *     place reshape split       the lesson and step the learner is on (or "place - -")
 *     mode lesson               "lesson", or "free" (in the free workbench, can come back)
 *     done one-head/look        one line per completed step
 *     shown one-head/steer      a step passed with its solution shown (S), not
 *                               earned: not counted as done (optional; a step
 *                               both done and shown is shown: shown is for good)
 *     wrong one-head/predict-self 2   wrong answers given at that step (optional;
 *                               its tries: a choice one, a number 3)
 *     answered one-head/predict-self 0.35   a right answer given at that step (optional;
 *                               files without these lines load as before)
 *     at one-head/steer stage=Softmax panel=0 row=5 col=2 hints=1   the open step as
 *                               left at quit: its stage (by its label, '-' for a space;
 *                               a number in files before: still read), cursor and
 *                               hints shown (optional)
 *     tried one-head/steer 0.5  the wrong answer last given there (optional, with 'at')
 *     view stage=Weighted-sum panel=2 row=3 col=1 layout=1   where the free workbench
 *                               was left (optional: stage as for 'at', matrix panel,
 *                               cursor cell, the # layout)
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

enum { PROGRESS_VERSION = 1, PROGRESS_KEY_MAX = 96, PROGRESS_DONE_MAX = 10000, PROGRESS_ANSWER_MAX = 32 };

/* Where the learner looked in the free workbench (the stage as its index
 * in the pipeline, PIPELINE_STAGE_COUNT for one the file names and the
 * pipeline no longer has; the TUI checks them against its stages and
 * shapes). */
struct progress_view {
	int stage, panel, row, col;
	int layout;       /* 0, or 1: the counts in the lesson pane's place (the # key) */
};

struct progress {
	char lesson[64];  /* name of the lesson the learner is on, "" for none */
	char step[48];    /* id of the step there */
	bool in_lesson;   /* false: out in the free workbench (lesson/step: where to come back) */
	char **done;      /* keys of completed steps */
	int ndone, cap;
	char **answered;  /* "KEY ANSWER": the right answer given at step KEY */
	int nanswered, acap;
	char **wrong;     /* "KEY N": N wrong answers given at step KEY */
	int nwrong, wcap;
	char **shown;     /* keys of steps passed with the solution shown, not earned */
	int nshown, scap;
	bool has_at;      /* an 'at' line was read or set: */
	struct progress_at {
		char key[PROGRESS_KEY_MAX];      /* the step (lesson_step_key) */
		int stage, panel, row, col, hints;
		char tried[PROGRESS_ANSWER_MAX]; /* a wrong answer last given there, or "" */
	} at;
	bool has_view;    /* a 'view' line was read or set */
	struct progress_view view;
};

void progress_init(struct progress *p);
void progress_free(struct progress *p);

/* The default file: statefile_dir() + "/progress.txt". 0, or -1 with msg. */
int progress_default_path(char *out, size_t outlen, char *msg, size_t len);
/* Load path into *p (initialised here). A missing file is a first run:
 * empty progress, returns 0. Returns -1 with msg "path:line: message" on a
 * corrupt or foreign file (which is left untouched; *p is then empty). */
int progress_load(const char *path, struct progress *p, char *msg, size_t len);
int progress_parse(const char *name, const char *text, size_t size, struct progress *p,
                   char *msg, size_t len);
/* Atomic (writefile_write), under an flock of its directory: the done
 * steps already in the file are kept (another instance's), merged with
 * p's (answers too); place and mode are p's, the view p's or else the
 * file's. A file there that does not load (damaged or changed by another
 * program since) is kept and the save refused. 0, or -1 with msg; the old
 * file is then intact. */
int progress_save(const char *path, const struct progress *p, char *msg, size_t len);

/* Was key earned: listed done, and not shown (a shown step stays shown)? */
bool progress_is_done(const struct progress *p, const char *key);
/* Mark key done (idempotent; nothing for a key already shown: shown is
 * never upgraded to done). 0, or -1 for a key that cannot be stored
 * (empty, too long, blanks or control characters) or out of memory. */
int progress_mark_done(struct progress *p, const char *key);
/* Was key passed with its solution shown (then it is not done, for good)? */
bool progress_is_shown(const struct progress *p, const char *key);
/* Record key as passed with the solution shown (idempotent; kept apart
 * from done). 0, or -1 as progress_mark_done. */
int progress_mark_shown(struct progress *p, const char *key);
/* The right answer recorded for step key, or NULL. */
const char *progress_answer(const struct progress *p, const char *key);
/* Record answer (printable, no blanks, under 32 bytes) as given at step key,
 * replacing an older one. 0, or -1 when it cannot be stored. */
int progress_set_answer(struct progress *p, const char *key, const char *answer);
/* Wrong answers recorded for step key (0 when none). */
int progress_wrong(const struct progress *p, const char *key);
/* Record n (1..99) wrong answers given at step key, replacing an older
 * count. 0, or -1 when it cannot be stored. */
int progress_set_wrong(struct progress *p, const char *key, int n);
void progress_set_place(struct progress *p, const char *lesson, const char *step, bool in_lesson);

#endif
