/*
 * save.h - the learner's session on disk, saved and autosaved (save.c).
 */
#ifndef SAVE_H
#define SAVE_H

#include <stdbool.h>
#include <stddef.h>

#include "claim.h"
#include "lessonbench.h"
#include "mha.h"

struct app;

/* What an autosave owes (app_edited counts the edits): one every
 * APP_AUTOSAVE_EDITS edits and on every change of shape, written by
 * app_autosave_idle in a pause of the keys. */
struct autosave_owed {
	int edits;        /* edits since the last save or autosave */
	bool due;         /* an autosave is owed */
	long long due_ms; /*   since then */
};

/* The open lesson step's autosave: "<its bench>.autosave", a bench file
 * (lessonbench.h) of that lesson and step, so that a crash or kill -9 in a
 * lesson loses no more than the workbench would. Set by the lessons when
 * a step's bench is claimed (app_bench_autosave_set); "" outside a step. */
struct app_bench_autosave {
	char path[4300];
	char lesson[LESSONBENCH_NAME_MAX];
	char step[LESSONBENCH_NAME_MAX];
	struct autosave_owed owed;
	bool written; /* this run wrote it: removed once the bench is saved or the step left */
};

/* The learner's session file as this run has it (app->save): where it
 * saves, what an autosave owes, what the run must say about its files on
 * exit. save.c reads and writes these; the rest of the program reads
 * session_path (the export key writes beside it). */
struct app_save {
	const char *session_path;     /* where w and q save (not owned) */
	struct autosave_owed owed;    /* by the learner's own session (the free workbench) */
	struct app_bench_autosave bench; /* the open lesson step's */
	int autosave_pid;             /* the process writing the autosave, or 0 */
	bool autosave_held;           /* an autosave newer than the session was found at
	                               * start: this run neither overwrites nor removes it */
	bool session_dirty;           /* an edit since the session was loaded or saved (app_recompute) */
	struct claim_stamp disk;      /* session_path as loaded or last saved (claim.h) */
	char saved_beside[4096];      /* where saves go since session_path was changed behind the run */
	char changed_behind[4096];    /*   the file that was: left as it is (said on exit) */
	bool only_a_copy;             /* a second instance: unedited, a save would only copy the other's file */
	int links_split;              /* hard links of the session saves split off (said on exit) */
	char links_split_path[4096];  /*   the session they were links of */
	char recover_path[4200];      /* an autosave found at start, until answered (recover_prompt.c) */
	bool recover_loaded;          /*   loaded: the next save of the session removes it */
};

/* Save to session_path; 0 or -1 with a message shown. A successful save
 * removes the autosave (unless it is held). */
int app_save(struct app *app);
/* q: save the session and quit; when the save fails, a second q quits
 * anyway. APP_* flags. */
unsigned app_save_quit(struct app *app);
/* At exit, what the run did with its files that the learner must know,
 * each whole (the status line may have cut it): a session changed behind
 * it (saved beside), hard links split, the autosave found at start and
 * left for later. Each line to say(line, ctx). */
void app_save_exit_notes(const struct app *app, void (*say)(const char *line, void *ctx), void *ctx);

/* Autosave: "<session_path>.autosave", written atomically (session_save)
 * so that a crash or kill -9 loses at most APP_AUTOSAVE_EDITS - 1 edits;
 * removed by a clean save. app_autosave_path: 0, or -1 when there is no
 * session path (or it is too long). */
int app_autosave_path(const struct app *app, char *buf, size_t len);
/* Tell term.c what to print after a crash: the command that loads the
 * autosave the crash hook writes, which follows session_path (call it
 * whenever session_path changes). */
void app_crash_note(const struct app *app);
/* One change of the inputs or configuration went through (app_key calls
 * it with the configuration before): counts it toward the autosave of the
 * bench it changed (the session's, or the open lesson step's). */
void app_edited(struct app *app, const struct mha_config *before);
/* Write the autosave owed, if any, when the keys pause (idle: no key came
 * within the loop's timeout), or when it has waited APP_AUTOSAVE_WAIT_MS.
 * At the largest shapes a save takes most of a second: a child process
 * writes it (fork), so the frame of the key that asked for it, and the
 * keys after, come at once. true when a writer started, or one ended in
 * failure (the status line says so). A bench swap and app_save settle it
 * too. app_autosave_wait: until the writer running, if any, is done
 * (app_save and app_free wait too). */
bool app_autosave_idle(struct app *app, bool idle);
void app_autosave_wait(struct app *app);
/* At start: an autosave found (or, with none, the newest one kept for
 * later) is kept as "<autosave>.~N~", never loaded or removed silently:
 * its path into app->save.recover_path, for the recover prompt to ask load /
 * discard / later (modes.c opens it), or, where it cannot (a lesson, the
 * menu), for app_recover_say to name on the status line with the command
 * that opens it (mha-tui --load PATH). A second instance's, that instance
 * gone, is named at once. Returns true when one was found. */
bool app_autosave_check(struct app *app);
void app_recover_say(struct app *app);
/* The answers to it: load app->save.recover_path into the bench (one undo
 * level; the next save of the session removes the file), or move it aside
 * to "<autosave>.discarded.~N~" (never deleted). APP_* flags / nothing;
 * either says what it did on the status line. */
unsigned app_recover_load(struct app *app);
void app_recover_discard(struct app *app);

/* A lesson step's bench file claimed (bench: where this run saves it) or
 * left: its autosave follows, and so does the crash note (said as the
 * command that opens the lesson where it was left: --lesson LESSON).
 * Leaving, an autosave this run wrote is removed: the edits it held are
 * in the bench (saved) or were let go with the step. */
void app_bench_autosave_set(struct app *app, const char *bench, const char *lesson, const char *step);
void app_bench_autosave_drop(struct app *app);
/* The crash hook's half for a lesson (tui.c): the step's edits no file
 * holds yet written to its autosave: 0 written, 1 nothing owed, -1
 * failed. */
int app_bench_autosave_crash(const struct app *app);

#endif
