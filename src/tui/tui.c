/*
 * tui.c - tui_run: open the inputs (--load, the flags, the saved session or
 * the default workbench), open the terminal, and run the loop
 *   draw -> key (100 ms timeout) -> action -> recompute if told -> draw
 * until q or a signal, saving the session on the way out (edits are also
 * autosaved beside it as they go: app_edited). Errors before the
 * terminal opens are printed as they are; after, the terminal is restored
 * first. The loop owns no state of its own beyond the app.
 */
#include "tui.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "app.h"
#include "draw.h"
#include "session.h"
#include "term.h"

static int fail(const char *msg)
{
	fprintf(stderr, "mha-tui: %s\n", msg);
	return 1;
}

/* The inputs to open with, in the order tui.h documents. */
static int open_inputs(const struct tui_options *o, struct mha_config *c, struct mha_weights *w,
                       char *msg, size_t len)
{
	const char *path = o->load;
	if (!path && !o->config_given && o->session_path && access(o->session_path, F_OK) == 0)
		path = o->session_path; /* resume where the learner left off */
	if (path)
		return session_load(path, c, w, msg, len);
	*c = o->config_given ? o->cfg : mha_config_default();
	if (mha_weights_alloc(w, c) != MHA_OK) {
		snprintf(msg, len, "out of memory for the weights");
		return -1;
	}
	mha_weights_init(w, c, c->seed);
	mha_weights_default_labels(w, c);
	return 0;
}

int tui_run(const struct tui_options *o)
{
	char msg[MHA_MSG_MAX + 4096];
	struct mha_config cfg;
	struct mha_weights w;
	if (open_inputs(o, &cfg, &w, msg, sizeof msg) != 0)
		return fail(msg);
	struct app app;
	if (app_init(&app, &cfg, &w, msg, sizeof msg) != 0)
		return fail(msg);
	app.session_path = o->session_path;
	if (term_open(o->no_color, msg, sizeof msg) != 0) {
		app_free(&app);
		return fail(msg);
	}
	app.now_ms = term_now_ms();
	app_autosave_check(&app); /* a crashed run's edits: say where, never load them silently */
	bool dirty = true;
	int sig = 0;
	for (;;) {
		if ((sig = term_signal()) != 0)
			break;
		if (dirty) {
			struct body_layout b = draw_screen(&app, LINES, COLS);
			app.heat_per_page = b.heat_per_page;
			refresh();
		}
		int key = getch();
		app.now_ms = term_now_ms();
		/* redraw when a message or a change mark has just expired */
		long long until = app.status_until_ms > app.changed_until_ms ? app.status_until_ms : app.changed_until_ms;
		dirty = key != ERR || (app.now_ms < until + 250);
		if (key == ERR)
			continue;
		unsigned f = app_key(&app, key);
		if (f & APP_RECOMPUTE)
			app_recompute(&app);
		if (f & APP_QUIT)
			break;
	}
	int rc = 0;
	bool saved = true;
	if (sig) {
		saved = app_save(&app) == 0; /* no edit is lost, even on SIGTERM / SIGHUP / SIGINT */
		rc = 128 + sig;
	}
	term_close();
	if (!saved)
		fprintf(stderr, "mha-tui: %s\n", app.status);
	app_free(&app);
	return rc;
}
