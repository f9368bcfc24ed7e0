/*
 * recover_prompt.c - the recover question, a prompt mode: an autosave a
 * run left unsaved was found at start (app_autosave_check), and the
 * status line asks until it is answered: Enter loads it now (its edits
 * go to this run's session at the next save, which then removes it), d
 * discards it (moved aside to a numbered "<session>.autosave.discarded.~N~",
 * never deleted), Esc leaves it for later (kept, asked again at the next
 * start). Other keys do nothing meanwhile. The files are save.c's
 * (app_recover_load, app_recover_discard); this only asks.
 */
#include "recover_prompt.h"

#include <stdio.h>

#include "draw.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"

bool recover_prompt_open(struct app *app)
{
	if (!app->recover_path[0] || app->learn.active || app->mode != MODE_WORKBENCH)
		return false;
	mode_enter(app, MODE_RECOVER);
	return true;
}

static unsigned recover_key(struct app *app, int key)
{
	if (prompt_is_enter(key)) {
		mode_leave(app);
		return app_recover_load(app) | APP_REDRAW;
	}
	if (key == 'd' || key == 'D') {
		mode_leave(app);
		app_recover_discard(app);
		return APP_REDRAW;
	}
	if (key == PROMPT_ESC) {
		mode_leave(app);
		app_message(app, false, "kept for later: %s (asked again at the next start)", app->recover_path);
		return APP_REDRAW;
	}
	return APP_REDRAW; /* the question stays until answered */
}

/* "recover? Enter loads, d discards, Esc later: PATH" (the keys first:
 * they must survive an 80-column line) */
static bool recover_status(const struct app *app, struct rect r)
{
	char line[APP_STATUS_MAX + 4300];
	snprintf(line, sizeof line, "recover a run's unsaved edits? Enter loads, d discards, Esc later: %s", app->recover_path);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

const struct mode_ops recover_prompt_mode = {
	.name = "recover prompt",
	.prompt = true,
	.key = recover_key,
	.status = recover_status,
};
