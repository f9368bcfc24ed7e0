/*
 * value_prompt.c - the value prompt mode: Enter on an input cell opens it,
 * the value is typed on the status line, Enter parses it with the core's
 * parser (mha_parse_value) and sets the cell, Esc cancels. It sets one
 * cell through app_set_cell (undo, autosave); it never touches the
 * matrices itself.
 */
#include "value_prompt.h"

#include <stdio.h>

#include "actions.h"
#include "cell_text.h"
#include "draw.h"
#include "fmt.h"
#include "notation.h"
#include "mode.h"
#include "prompt.h"
#include "theme.h"
#include "workbench.h"

unsigned value_prompt_open(struct app *app)
{
	if (!workbench_cursor_editable(app))
		return APP_REDRAW;
	mode_enter(app, MODE_VALUE);
	app->edit[0] = '\0';
	app->typed_overflow = false;
	return APP_REDRAW;
}

static unsigned value_key(struct app *app, int key)
{
	if (key == PROMPT_ESC) {
		mode_leave(app);
		app_message(app, false, "edit cancelled");
		return APP_REDRAW;
	}
	if (prompt_is_enter(key)) {
		char msg[MHA_MSG_MAX];
		float v;
		mode_leave(app);
		if (prompt_refuse_overflow(app, sizeof app->edit))
			return APP_REDRAW;
		if (mha_parse_value(app->edit, &v, msg, sizeof msg) != MHA_OK) {
			app_message(app, true, "not changed: %s", msg);
			return APP_REDRAW;
		}
		struct mha_config before = app->cfg;
		unsigned f = app_set_cell(app, v);
		if (f & APP_RECOMPUTE)
			app_edited(app, &before);
		char full[48];
		fmt_full(full, sizeof full, v);
		app_message(app, false, "set to %s; everything downstream recomputed (%s undoes)", full,
		            actions_key_name("undo"));
		return f;
	}
	prompt_type(app, app->edit, sizeof app->edit, key);
	return APP_REDRAW;
}

/* "X[0 the, 3] = 0.5_   (Enter sets, Esc cancels)" */
static bool value_status(const struct app *app, struct rect r)
{
	char line[APP_STATUS_MAX + 128], name[NOTATION_MAX];
	struct stage_view v;
	struct cell c;
	if (app_cursor_cell(app, &c, NULL, &v))
		cell_text_name(app, &c, true, name, sizeof name);
	else
		snprintf(name, sizeof name, "?");
	snprintf(line, sizeof line, "%s = %s_   (Enter sets, Esc cancels)", name, app->edit);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

const struct mode_ops value_prompt_mode = {
	.name = "value prompt",
	.prompt = true,
	.key = value_key,
	.status = value_status,
};
