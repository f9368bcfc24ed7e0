/*
 * value_prompt.c - the value prompt mode: Enter on an input cell opens it,
 * the value is typed on the status line, Enter parses it with the core's
 * parser (mha_parse_value) and sets the cell, Esc cancels. It sets one
 * cell through app_set_cell (undo; the key dispatch counts the edit toward
 * the autosave); it never touches the matrices itself.
 */
#include <curses.h>
#include <stdio.h>

#include "cell_text.h"
#include "draw.h"
#include "fmt.h"
#include "mode.h"
#include "notation.h"
#include "prompt.h"
#include "theme.h"

/* The prompt's own state: what was typed. */
struct value_prompt {
	char edit[APP_EDIT_MAX];
	bool overflow; /* a character did not fit: Enter refuses ("1.000...0e5" must not become 1) */
};

extern const struct mode_ops value_prompt_mode;

static bool value_enter(struct app *app)
{
	struct value_prompt *p = mode_state(app, &value_prompt_mode);
	if (!p || !app_cursor_editable(app, NULL))
		return false;
	*p = (struct value_prompt){ 0 };
	return true;
}

static unsigned value_cancel(struct app *app)
{
	return prompt_cancel(app, "edit cancelled");
}

static unsigned value_set(struct app *app)
{
	struct value_prompt *p = mode_state(app, &value_prompt_mode);
	char msg[MHA_MSG_MAX];
	float v;
	if (!prompt_take(app, &p->overflow, sizeof p->edit))
		return APP_REDRAW;
	if (mha_parse_value(p->edit, &v, msg, sizeof msg) != MHA_OK) {
		app_message(app, true, "not changed: %s", msg);
		return APP_REDRAW;
	}
	unsigned f = app_set_cell(app, v);
	char full[48];
	fmt_full(full, sizeof full, v);
	app_message(app, false, "set to %s; everything downstream recomputed (%s undoes)", full,
	            mode_key_name(app, "undo"));
	return f;
}

static unsigned value_type(struct app *app, int key)
{
	struct value_prompt *p = mode_state(app, &value_prompt_mode);
	prompt_type(p->edit, sizeof p->edit, &p->overflow, key);
	return APP_REDRAW;
}

/* "X[0 the, 3] = 0.5_   (Enter sets, Esc cancels)" */
static bool value_status(const struct app *app, const struct frame *f, struct rect r)
{
	const struct value_prompt *p = mode_state_if(app, &value_prompt_mode);
	char line[APP_STATUS_MAX + 128], name[NOTATION_MAX];
	if (f->has_cursor)
		cell_text_name(app, &f->cursor, true, name, sizeof name);
	else
		snprintf(name, sizeof name, "?");
	snprintf(line, sizeof line, "%s = %s_   (Enter sets, Esc cancels)", name, p ? p->edit : "");
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

static const struct action value_opener = {
	.keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "edit", .help = "type a value; Esc cancels",
	.group = "Edit", .id = "edit",
};

static const struct action value_keys[] = {
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "set", .help = "set the cell to the value typed",
	  .call = value_set, .id = "value-set" },
	{ .keys = { PROMPT_ESC }, .label = "Esc", .name = "cancel", .help = "leave the cell as it was",
	  .call = value_cancel, .id = "value-cancel" },
	{ .keys = { 0 } },
};

const struct mode_ops value_prompt_mode = {
	.name = "value prompt",
	.prompt = true,
	.opener = &value_opener,
	.keys = value_keys,
	.state_size = sizeof(struct value_prompt),
	.enter = value_enter,
	.type = value_type,
	.status = value_status,
};
