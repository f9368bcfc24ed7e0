/*
 * tui.c - tui_run: open the inputs (--load, the flags, the saved session or
 * the default workbench), open the terminal, and run the loop
 *   draw -> key (100 ms timeout) -> action -> recompute if told -> draw
 * (a mouse event goes to app_mouse with the hit regions the last drawing
 * recorded) until q or a signal, saving the session on the way out (edits are also
 * autosaved beside it as they go: app_edited, written in the pauses between
 * keys by app_autosave_idle). Before the terminal opens,
 * the lessons are looked for and loaded, the progress read, and the
 * lesson the learner was in (or --lesson ID) opened (learn.c). Errors
 * before the terminal opens are printed as they are; after, the terminal
 * is restored first. The loop owns no state of its own beyond the app.
 */
#include "tui.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "frame.h"
#include "input.h"
#include "keys.h"
#include "learn.h"
#include "lesson.h"
#include "mode.h"
#include "modes.h"
#include "prompt.h"
#include "report.h"
#include "session.h"
#include "term.h"

/* One line on stderr, after the terminal is restored; what the message
 * quotes cannot drive the terminal. Returns status. */
static int report(int status, const char *msg)
{
	return report_line(stderr, status, msg);
}

/* A mouse event from curses, as app_mouse takes it: button 1 pressed is a
 * click (mouseinterval(0): no waiting to tell clicks from presses), 4 and
 * 5 are the wheel; anything else (a release) does nothing. */
static unsigned on_mouse(struct app *app)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return 0;
	if (ev.bstate & BUTTON4_PRESSED)
		return app_mouse(app, ev.y, ev.x, HIT_WHEEL_UP);
	if (ev.bstate & BUTTON5_PRESSED)
		return app_mouse(app, ev.y, ev.x, HIT_WHEEL_DOWN);
	if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED))
		return app_mouse(app, ev.y, ev.x, HIT_CLICK);
	return 0;
}

/* The learner's own session, if it has edits no file holds yet, written
 * to its autosave; never over an autosave still waiting to be recovered.
 * 0 written, 1 nothing to write, -1 edits that could not be written. */
static int crash_session(const struct app *app)
{
	char path[4096], msg[MHA_MSG_MAX + 4096];
	if (app->save.owed.edits == 0 && !app->save.owed.due)
		return 1;
	if (app->save.autosave_held || app_autosave_path(app, path, sizeof path) != 0)
		return -1;
	bool other = app->learn.active;
	return session_save(path, other ? &app->learn.other.cfg : &app->cfg, other ? &app->learn.other.w : &app->w,
	                    msg, sizeof msg);
}

/* A crash (term.c), in the child it forks: the session's edits (note 0)
 * and the open lesson step's (note 1), each to its autosave. */
static int crash_autosave(void *ctx)
{
	const struct app *app = ctx;
	int session = crash_session(app), lesson = app_bench_autosave_crash(app);
	return (session == 0 ? 1 : 0) | (lesson == 0 ? 2 : 0) |
	       (session < 0 || lesson < 0 ? TERM_CRASH_LOST : 0);
}

/* An exit note (app_save_exit_notes): one line on stderr. */
static void say_on_exit(const char *line, void *ctx)
{
	(void)ctx;
	report(0, line);
}

static int fail(const char *msg)
{
	return report(1, msg);
}

/* The inputs to open with, in the order tui.h documents. */
static int open_inputs(const struct tui_options *o, struct mha_config *c, struct mha_weights *w,
                       char *msg, size_t len)
{
	const char *path = o->load;
	if (!path && !o->config_given && o->session_path && access(o->session_path, F_OK) == 0)
		path = o->session_path; /* resume where the learner left off */
	if (path)
		return session_load(path, c, w, msg, len) != 0 ? -1 : 0;
	*c = o->config_given ? o->cfg : mha_config_default();
	if (mha_weights_start(w, c) != MHA_OK) {
		snprintf(msg, len, "out of memory for the weights");
		return -1;
	}
	return 0;
}

/* The lessons: found (flag, $MHA_TUI_LESSONS, source tree, installed),
 * loaded (what parses is usable), the progress file's place. When none
 * are found, the pane says where they were looked for; the workbench
 * works all the same. */
static void lessons_open(struct app *app, const struct tui_options *o, struct lesson_set *set,
                         char *progress_path, size_t plen)
{
	char dir[4096], why[LEARN_MSG_MAX] = "", msg[LEARN_MSG_MAX];
	bool found = lesson_find_dir(o->lessons_dir, dir, sizeof dir, why, sizeof why) == 0;
	if (found) {
		struct lesson_errors errs = { 0 };
		if (lesson_set_load(set, dir, &errs) != 0)
			snprintf(why, sizeof why, "%d problem%s in %.1000s (mha-tui --check-lessons lists them), first: %.2000s",
			         errs.count + errs.dropped, errs.count + errs.dropped == 1 ? "" : "s", dir,
			         errs.count ? errs.msg[0] : "?");
		lesson_errors_free(&errs);
	}
	const char *path = progress_default_path(progress_path, plen, msg, sizeof msg) == 0 ? progress_path : NULL;
	learn_attach(app, found ? set : NULL, why, path);
	if (!path)
		app_message(app, true, "progress will not be saved: %s", msg);
}

/* The progress file this run refused (a FIFO, a device, a broken file:
 * left untouched, progress kept in memory only): the reason into msg,
 * read again so that the start and the exit both say it. */
static bool progress_refused(const struct app *app, const char *path, char *msg, size_t len)
{
	if (!app->learn.enabled || app->learn.progress_path || !path[0])
		return false;
	struct progress pr;
	progress_init(&pr);
	bool refused = progress_load(path, &pr, msg, len) != 0;
	progress_free(&pr);
	return refused;
}

int tui_check_terminal(char *msg, size_t len)
{
	return term_check(msg, len);
}

int tui_run(const struct tui_options *o)
{
	char msg[MHA_MSG_MAX + 4096];
	struct mha_config cfg;
	struct mha_weights w;
	/* nothing saved yet: the first run, which opens on the lesson menu */
	bool first_run = !o->config_given && !o->load && !o->lesson &&
	                 !(o->session_path && access(o->session_path, F_OK) == 0);
	/* the file as this run found it, before reading it: a save checks that
	 * nothing else changed it since (app_save) */
	struct claim_stamp disk;
	claim_stamp_read(o->session_path ? o->session_path : "", &disk);
	if (open_inputs(o, &cfg, &w, msg, sizeof msg) != 0)
		return fail(msg);
	struct app app;
	if (app_init(&app, tui_modes, &cfg, &w, msg, sizeof msg) != 0)
		return fail(msg);
	app.save.session_path = o->session_path;
	app.save.disk = disk;
	app.lm_model = o->lm_model;
	app.now_ms = term_now_ms();
	struct lesson_set set;
	memset(&set, 0, sizeof set);
	char progress_path[4096] = "";
	lessons_open(&app, o, &set, progress_path, sizeof progress_path);
	if (o->lesson) {
		int rc = learn_open_id(&app, o->lesson, msg, sizeof msg);
		if (rc != 0) {
			app_free(&app);
			lesson_set_free(&set);
			return report(rc, msg);
		}
	} else if (!o->config_given && !o->load) {
		learn_resume(&app); /* back where the learner left off */
		if (first_run && (!app.learn.progress_path || access(app.learn.progress_path, F_OK) != 0))
			learn_menu_welcome(&app);
	}
	if (o->model && !o->lesson)
		mode_open_id(&app, "model"); /* when it cannot, the status line says why */
	if (progress_refused(&app, progress_path, msg, sizeof msg)) { /* said again: the welcome took the line */
		app_message(&app, true, "progress not saved this run (the file is left untouched): %s", msg);
		app.status_until_ms = app.now_ms + APP_NOTICE_MS;
	}
	if (term_open(o->no_color, o->no_mouse, msg, sizeof msg) != 0) {
		app_free(&app);
		lesson_set_free(&set);
		return fail(msg);
	}
	app.now_ms = term_now_ms();
	if (o->held) /* said on exit too (main.c); where first: it must survive 80 columns */
		app_message(&app, false, "this run saves to %s: %s is open in another mha-tui (pid %d)",
		            o->session_path, o->held, o->holder);
	/* a crashed run's edits: say where, never load them silently (unless
	 * this run is loading them: then they are its own) */
	char own[4096];
	if (!(o->load && app_autosave_path(&app, own, sizeof own) == 0 && strncmp(own, o->load, strlen(own)) == 0))
		modes_recover_check(&app);
	term_on_crash(crash_autosave, &app);
	app_crash_note(&app); /* and again whenever the session moves (app_save) */
	/* a session opened from its own file has nothing to save until an edit */
	const char *from = o->load ? o->load : o->config_given ? NULL : o->session_path;
	app.save.session_dirty = !(from && o->session_path && strcmp(from, o->session_path) == 0 && disk.exists);
	/* a second instance on the other's file, or on none yet (the other
	 * has not saved; a lesson's run never edits the free workbench): a
	 * copy of the default is not worth a session-N.txt until an edit */
	if (o->held && ((from && strcmp(from, o->held) == 0) || (!o->config_given && !o->load))) {
		app.save.only_a_copy = true;
		app.save.session_dirty = false;
	}
	bool dirty = true;
	int sig = 0;
	for (;;) {
		if ((sig = term_signal()) != 0)
			break;
		term_resume(); /* after fg: paste and mouse modes again */
		if (dirty) {
			struct body_layout b = frame_draw(&app, LINES, COLS, &app.hits);
			app.heat_per_page = b.heat_per_page;
			app.learn.scroll_max = b.pane_scroll_max;
			refresh();
		}
		int key = input_key(!o->no_mouse, mode_typing(&app)); /* a paste types into a prompt */
		app.now_ms = term_now_ms();
		unsigned esc_f = 0;
		if (key >= INPUT_KEY_ALT && mode_typing(&app)) {
			/* in a prompt, Esc then a key within ESCDELAY: the Esc closes
			 * the prompt as it would alone, then the key is itself (the
			 * status line under the prompt could not say "Alt-x") */
			esc_f = app_key(&app, PROMPT_ESC);
			key -= INPUT_KEY_ALT;
		} else if (key >= INPUT_KEY_ALT) { /* Alt-x: one key, and none of mha-tui's */
			int ch = key - INPUT_KEY_ALT;
			app_message(&app, false, "Alt-%c is not a key here (%s lists the keys)", ch,
			            mode_key_name(&app, "help"));
			dirty = true;
			continue;
		}
		/* redraw when a message or a change mark has just expired */
		long long until = app.status_until_ms > app.changed_until_ms ? app.status_until_ms : app.changed_until_ms;
		dirty = app.now_ms < until + 250;
		/* an autosave owed is written in a pause of the keys, after the
		 * frame that asked for it (app.h) */
		if (app_autosave_idle(&app, key == ERR))
			dirty = true;
		if (key == ERR && mode_idle(&app)) /* the modes' idle hooks: the training screen trains */
			dirty = true;
		if (key == ERR)
			continue;
		unsigned f = esc_f | (key == KEY_MOUSE ? on_mouse(&app) : app_key(&app, key));
		/* the key says what it changed: a frame only when it changed what
		 * is drawn (a recompute always does); a key that did nothing
		 * draws nothing (tests/tui/test_monkey.c holds every key to it) */
		if (f & (APP_REDRAW | APP_RECOMPUTE))
			dirty = true;
		if (f & APP_RECOMPUTE)
			app_recompute(&app);
		if (f & APP_QUIT)
			break;
	}
	/* q twice after a failed save: the reason, whole, on stderr, status 1 */
	bool saved = !app.quit_armed;
	int rc = saved ? 0 : 1;
	if (sig) {
		saved = app_save(&app) == 0; /* no edit is lost, even on SIGTERM / SIGHUP / SIGINT */
		rc = 128 + sig;
	}
	app_autosave_idle(&app, true); /* the session could not be saved: the autosave owed still is */
	term_on_crash(NULL, NULL);
	term_close();
	if (!saved) {
		char *again = strstr(app.status, "; press q again");
		if (again)
			*again = '\0';
		report(rc, app.status);
	}
	app_save_exit_notes(&app, say_on_exit, NULL);
	if (learn_quit(&app, say_on_exit, NULL) > 0 && rc == 0)
		rc = 1; /* a lesson's edits or the progress lost: never a silent success */
	char kept[4400];
	if (progress_refused(&app, progress_path, msg, sizeof msg)) {
		snprintf(kept, sizeof kept, "progress not saved this run (the file is left untouched): %.4000s", msg);
		report(0, kept);
	}
	app_free(&app);
	lesson_set_free(&set);
	return rc;
}
