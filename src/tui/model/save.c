/*
 * save.c - the learner's session on disk: w saves it (app_save), and the
 * edits are autosaved beside it ("<session>.autosave") in the pauses
 * between keys, by a child process so that the keys never wait; an
 * autosave found at start is held and named, whatever its age, never
 * loaded or removed silently: the learner loads it, discards it (moved
 * aside) or leaves it for later (recover_prompt.c asks). The file format
 * is the session library's (session.h); this only decides when and what
 * to write, and what the run says on exit about its files.
 */
#include "save.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "claim.h"
#include "mode.h"
#include "report.h"
#include "session.h"
#include "term.h"

/* The session holds every edit now: the autosave has done its work. */
static void drop_autosave(struct app *app)
{
	char auto_path[4096];
	app->save.owed = (struct autosave_owed){ 0 };
	if (!app->save.autosave_held && app_autosave_path(app, auto_path, sizeof auto_path) == 0)
		unlink(auto_path);
}

/* From now on, saves go to the next free name beside session_path, which
 * another program changed behind the run (said here and on exit). */
static int go_beside(struct app *app)
{
	if (claim_beside(app->save.session_path, app->save.saved_beside, sizeof app->save.saved_beside) != 0) {
		app_message(app, true, "not saved: %s was changed on disk by another program, and no free name "
		            "beside it", app->save.session_path);
		return -1;
	}
	if (!app->save.changed_behind[0])
		snprintf(app->save.changed_behind, sizeof app->save.changed_behind, "%s", app->save.session_path);
	app->save.session_path = app->save.saved_beside;
	app_crash_note(app); /* a crash now names the autosave beside it */
	return 0;
}

/* The status line after a save; the hard links it split are counted for
 * the exit message. */
static void say_saved(struct app *app, const struct statefile_check *chk)
{
	int others = chk->replaced ? claim_other_names(app->save.session_path, chk->dev, chk->ino, chk->nlink) : 0;
	if (others > 0) {
		app->save.links_split += others;
		snprintf(app->save.links_split_path, sizeof app->save.links_split_path, "%s", app->save.session_path);
		/* the warning first: the path may not fit 80 columns */
		app_message(app, false, "saved, but %d other hard link%s still hold%s the session from before: %s",
		            others, others == 1 ? "" : "s", others == 1 ? "s" : "", app->save.session_path);
	} else if (app->save.changed_behind[0])
		app_message(app, false, "saved to %s (%s was changed on disk by another program: left as it is)",
		            app->save.session_path, app->save.changed_behind);
	else
		app_message(app, false, "saved to %s", app->save.session_path);
}

/* Save the learner's session to session_path: only when something changed
 * since it was loaded or saved, and never over a file another program
 * changed meanwhile (claim_stamp_changed, then again up to the rename:
 * session_save_checked): then to the next free name beside it, from then
 * on. */
int app_save(struct app *app)
{
	char msg[MHA_MSG_MAX + 4096];
	if (!app->save.session_path) {
		app_message(app, true, "no session file to save to");
		return -1;
	}
	app_autosave_wait(app); /* a writer still running would land after this save */
	if (app->save.only_a_copy && !app->save.session_dirty) {
		/* a second instance with no edit: session-N.txt would be a copy
		 * of the file the other instance has open (68 MB at the largest shape) */
		app_message(app, false, "nothing changed: nothing saved (%s is not written)", app->save.session_path);
		return 0;
	}
	bool changed = claim_stamp_changed(&app->save.disk, app->save.session_path);
	if (!app->save.session_dirty && app->save.disk.exists && !changed && access(app->save.session_path, F_OK) == 0) {
		/* nothing to write: at the largest shape that is 68 MB spared, and
		 * the file keeps its mtime */
		drop_autosave(app);
		app_message(app, false, "nothing changed since %s was loaded or saved: not rewritten", app->save.session_path);
		return 0;
	}
	if (changed && !app->save.session_dirty) {
		app_message(app, false, "nothing changed here; %s was changed on disk by another program: left as it is",
		            app->save.session_path);
		return 0;
	}
	/* something else changed the file since this run read or wrote it:
	 * never over it (doc/SESSION.md); beside it, said here and on exit */
	if (changed && go_beside(app) != 0)
		return -1;
	/* the learner's own session, never a lesson's workbench */
	const struct mha_config *c = app->learn.active ? &app->learn.other.cfg : &app->cfg;
	const struct mha_weights *w = app->learn.active ? &app->learn.other.w : &app->w;
	struct statefile_check chk = { .expect = changed ? NULL : &app->save.disk };
	int rc = session_save_checked(app->save.session_path, c, w, &chk, msg, sizeof msg);
	if (rc == STATEFILE_CHANGED) { /* changed during this very save: left as it is */
		if (!app->save.session_dirty) {
			app_message(app, false, "nothing changed here; %s was changed on disk by another program: left "
			            "as it is", app->save.session_path);
			return 0;
		}
		if (go_beside(app) != 0)
			return -1;
		chk = (struct statefile_check){ .expect = NULL };
		rc = session_save_checked(app->save.session_path, c, w, &chk, msg, sizeof msg);
	}
	if (rc != 0) {
		app_message(app, true, "not saved: %s", msg);
		return -1;
	}
	claim_stamp_read(app->save.session_path, &app->save.disk);
	app->save.session_dirty = false;
	drop_autosave(app);
	if (app->save.recover_loaded) { /* its edits are in the session now */
		unlink(app->save.recover_path);
		app->save.recover_loaded = false;
		app->save.recover_path[0] = '\0';
	}
	say_saved(app, &chk);
	return 0;
}

int app_autosave_path(const struct app *app, char *buf, size_t len)
{
	if (!app->save.session_path)
		return -1;
	int n = snprintf(buf, len, "%s.autosave", app->save.session_path);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

void app_crash_note(const struct app *app)
{
	char path[4096], word[900], note[1024] = "";
	if (app_autosave_path(app, path, sizeof path) == 0)
		snprintf(note, sizeof note, "mha-tui: crashed; the edits are in the autosave: mha-tui --load %s",
		         report_shell_word(path, word, sizeof word));
	term_crash_note(0, note);
}

/* A writer process that has ended: reaped, and its failure shown (its
 * message stayed in the child; the session itself is still saved on
 * quit). block: wait for it. true when it failed. */
static bool autosave_reap(struct app *app, bool block)
{
	int st;
	if (app->save.autosave_pid <= 0 || waitpid(app->save.autosave_pid, &st, block ? 0 : WNOHANG) != app->save.autosave_pid)
		return false;
	app->save.autosave_pid = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return false;
	if (app->learn.active && app->save.bench.path[0])
		app_message(app, true, "autosave failed: %s could not be written", app->save.bench.path);
	else
		app_message(app, true, "autosave failed: %s.autosave could not be written", app->save.session_path);
	return true;
}

void app_autosave_wait(struct app *app)
{
	(void)autosave_reap(app, true);
}

/* For the tests (tests/pty: Ctrl-Z while an autosave is being written):
 * with MHA_TEST_AUTOSAVE_GATE naming a FIFO, the writer stops once its
 * file is written, before the rename, until a byte comes through the
 * FIFO; the test sees it waiting when the FIFO opens for writing. */
static void autosave_gate(const char *path, int stage)
{
	const char *fifo = getenv("MHA_TEST_AUTOSAVE_GATE");
	char byte;
	(void)path;
	if (stage != 1 || !fifo)
		return;
	int fd = open(fifo, O_RDONLY | O_CLOEXEC); /* until the test opens it */
	if (fd < 0)
		return;
	while (read(fd, &byte, 1) < 0 && errno == EINTR)
		continue;
	close(fd);
}

/* The autosave of the bench on screen: the lesson step's when one is
 * open, else the learner's session. 0 or -1 with msg. */
static int write_autosave(const struct app *app, char *msg, size_t len)
{
	char path[4096];
	const struct app_bench_autosave *b = &app->save.bench;
	if (app->learn.active)
		return lessonbench_save(b->path, b->lesson, b->step, &app->cfg, &app->w, msg, len);
	if (app_autosave_path(app, path, sizeof path) != 0) {
		snprintf(msg, len, "no session file to autosave beside");
		return -1;
	}
	return session_save(path, &app->cfg, &app->w, msg, len);
}

/* What the bench on screen owes (NULL: a lesson step with nowhere to
 * keep its bench). The session's edits are counted even where its
 * autosave cannot be written (held, no path): the crash hook says they
 * were lost. */
static struct autosave_owed *owed_here(struct app *app)
{
	if (app->learn.active)
		return app->save.bench.path[0] ? &app->save.bench.owed : NULL;
	return &app->save.owed;
}

/* Write the autosave in a child process: at d_model 1024 the text of
 * every input takes most of a second to write, and the learner keeps
 * working meanwhile on the parent's copy (fork copies on write). One
 * writer at a time: while one runs the autosave stays owed. Without fork,
 * written here and now. A failure is shown but changes nothing else. */
static bool autosave(struct app *app, struct autosave_owed *owed)
{
	char msg[MHA_MSG_MAX + 4096];
	if (app->save.autosave_pid > 0)
		return false; /* still owed: the next pause tries again */
	*owed = (struct autosave_owed){ 0 };
	if (!app->learn.active && (app->save.autosave_held || !app->save.session_path))
		return false; /* never over an autosave waiting to be recovered */
	if (app->learn.active)
		app->save.bench.written = true; /* removed when the step's bench is saved or left */
	pid_t pid = fork();
	if (pid == 0) {
		term_child_signals(); /* never touches the learner's terminal (term.h) */
		if (getenv("MHA_TEST_AUTOSAVE_GATE"))
			statefile_test_hook = autosave_gate;
		_exit(write_autosave(app, msg, sizeof msg) == 0 ? 0 : 1);
	}
	if (pid > 0) {
		app->save.autosave_pid = pid;
		return true;
	}
	if (write_autosave(app, msg, sizeof msg) != 0)
		app_message(app, true, "autosave failed: %s", msg);
	return true;
}

void app_edited(struct app *app, const struct mha_config *before)
{
	struct autosave_owed *owed = owed_here(app);
	if (!owed)
		return;
	if ((++owed->edits >= APP_AUTOSAVE_EDITS || !app_same_shape(before, &app->cfg)) && !owed->due) {
		owed->due = true;
		owed->due_ms = app->now_ms;
	}
}

bool app_autosave_idle(struct app *app, bool idle)
{
	if (autosave_reap(app, false))
		return true; /* the status line says it failed */
	struct autosave_owed *owed = owed_here(app);
	if (!owed || !owed->due || (!idle && app->now_ms - owed->due_ms < APP_AUTOSAVE_WAIT_MS))
		return false;
	return autosave(app, owed);
}

bool app_autosave_check(struct app *app)
{
	char path[4096], kept[4200], word[8500];
	struct stat as;
	app->save.recover_path[0] = '\0';
	if (app_autosave_path(app, path, sizeof path) != 0)
		return false;
	/* a clean save removes the autosave it covers: one found here holds
	 * edits no save took, whatever its age; kept until loaded or
	 * discarded (doc/SESSION.md), under a numbered name of its own so that
	 * this run autosaves its own edits; where it cannot be renamed, held.
	 * With none, the newest kept one left for later is asked about again. */
	if (stat(path, &as) == 0) {
		if (!(claim_backup(path, kept, sizeof kept) == 0 && unlink(path) == 0)) {
			app->save.autosave_held = true;
			snprintf(kept, sizeof kept, "%s", path);
		}
	} else if (claim_newest_backup(path, kept, sizeof kept) != 0) {
		if (claim_orphan_autosave(app->save.session_path, kept, sizeof kept) != 0)
			return false;
		/* a second instance's, that instance gone: its own command, which
		 * saves to the session it belongs to (session-N.txt) */
		app_message(app, true, "recover: mha-tui --load %s   (unsaved edits of a second mha-tui)",
		            report_shell_word(kept, word, sizeof word));
		app->status_until_ms = app->now_ms + APP_NOTICE_MS;
		app->notice = true;
		return true;
	}
	snprintf(app->save.recover_path, sizeof app->save.recover_path, "%s", kept);
	return true;
}

void app_recover_say(struct app *app)
{
	char word[8500];
	/* the command first: it is what must survive an 80-column status line */
	app_message(app, true, "recover: mha-tui --load %s   (edits a run left unsaved; kept until you load them)",
	            report_shell_word(app->save.recover_path, word, sizeof word));
	app->status_until_ms = app->now_ms + APP_NOTICE_MS;
	app->notice = true;
}

unsigned app_recover_load(struct app *app)
{
	char msg[MHA_MSG_MAX + 4096];
	struct mha_config c;
	struct mha_weights w;
	if (session_load(app->save.recover_path, &c, &w, msg, sizeof msg) != 0) {
		app_message(app, true, "not loaded (kept): %s", msg);
		return APP_REDRAW;
	}
	unsigned f = app_replace(app, &c, &w);
	if (!(f & APP_RECOMPUTE))
		return f; /* out of memory: said, the file kept */
	app->save.recover_loaded = true;
	app_message(app, false, "recovered edits loaded: w or q saves them to %s", app->save.session_path);
	return f;
}

void app_recover_discard(struct app *app)
{
	char base[4200], aside[4300], own[4096];
	bool named = app_autosave_path(app, own, sizeof own) == 0;
	bool own_autosave = named && strcmp(own, app->save.recover_path) == 0;
	snprintf(base, sizeof base, "%.4000s.discarded", named ? own : app->save.recover_path);
	if (claim_move_aside(app->save.recover_path, base, aside, sizeof aside) != 0) {
		app_message(app, true, "not discarded: %s could not be moved aside (it stays)", app->save.recover_path);
		return;
	}
	if (own_autosave)
		app->save.autosave_held = false; /* moved: this run may autosave there now */
	app_message(app, false, "discarded: moved aside to %s (never deleted)", aside);
	app->save.recover_path[0] = '\0';
}

unsigned app_save_quit(struct app *app)
{
	if (app->quit_armed)
		return APP_QUIT;
	if (app_save(app) == 0)
		return APP_QUIT;
	app->quit_armed = true;
	size_t l = strlen(app->status);
	snprintf(app->status + l, sizeof app->status - l, "; press %s again to quit without saving",
	         mode_key_name(app, "quit"));
	return APP_REDRAW;
}

void app_save_exit_notes(const struct app *app, void (*say)(const char *line, void *ctx), void *ctx)
{
	char line[8000];
	if (app->save.changed_behind[0]) {
		snprintf(line, sizeof line, "%.3800s was changed on disk by another program since this run read it: "
		         "left as it is; this run saved to %.3800s", app->save.changed_behind, app->save.saved_beside);
		say(line, ctx);
	}
	if (app->save.links_split > 0) { /* a save replaces the file: other names keep the old one */
		snprintf(line, sizeof line, "%.4000s had %d other hard link%s: %s the session from before this run's "
		         "save", app->save.links_split_path, app->save.links_split, app->save.links_split == 1 ? "" : "s",
		         app->save.links_split == 1 ? "it holds" : "they hold");
		say(line, ctx);
	}
	if (app->save.recover_path[0] && !app->save.recover_loaded) { /* the path whole: the status line may have cut it */
		snprintf(line, sizeof line, "kept for later (asked again at the next start): an autosave with a run's "
		         "unsaved edits, %.4200s", app->save.recover_path);
		say(line, ctx);
	}
}

/* The crash note for a lesson: the command that opens the lesson where it
 * was left, which loads the step's autosave (learn_place.c). */
static void bench_crash_note(const struct app_bench_autosave *b)
{
	char note[1024] = "";
	if (b->path[0]) /* a lesson's name is letters, digits and - . _ (lessonbench_path): one shell word */
		snprintf(note, sizeof note, "mha-tui: crashed; the lesson's edits are in %.400s: mha-tui --lesson %s "
		         "opens them", b->path, b->lesson);
	term_crash_note(1, note);
}

void app_bench_autosave_set(struct app *app, const char *bench, const char *lesson, const char *step)
{
	struct app_bench_autosave *b = &app->save.bench;
	app_bench_autosave_drop(app);
	if (lessonbench_autosave_path(bench, b->path, sizeof b->path) != 0) {
		b->path[0] = '\0';
		return;
	}
	snprintf(b->lesson, sizeof b->lesson, "%s", lesson);
	snprintf(b->step, sizeof b->step, "%s", step);
	bench_crash_note(b);
}

void app_bench_autosave_drop(struct app *app)
{
	struct app_bench_autosave *b = &app->save.bench;
	app_autosave_wait(app); /* a writer still running would land after the unlink */
	if (b->written)
		unlink(b->path);
	memset(b, 0, sizeof *b);
	bench_crash_note(b);
}

int app_bench_autosave_crash(const struct app *app)
{
	const struct app_bench_autosave *b = &app->save.bench;
	char msg[MHA_MSG_MAX + 4096];
	if (!app->learn.active || !b->path[0] || (b->owed.edits == 0 && !b->owed.due))
		return 1;
	return lessonbench_save(b->path, b->lesson, b->step, &app->cfg, &app->w, msg, sizeof msg) == 0 ? 0 : -1;
}
