/*
 * scale_prompt.c - the scale prompt mode (the * key): a factor typed for a
 * block of cells around the cursor (the matrix, the head block, the row or
 * the column: Tab cycles), Enter multiplies them (a leading '=' sets them
 * instead), Esc cancels. The block is computed here; the change goes
 * through app_scale_cells (one undo level, refused past +-MHA_VALUE_MAX).
 */
#include "scale_prompt.h"

#include <stdio.h>

#include "actions.h"
#include "draw.h"
#include "fmt.h"
#include "mode.h"
#include "notation.h"
#include "prompt.h"
#include "theme.h"
#include "workbench.h"

unsigned scale_prompt_open(struct app *app)
{
	if (!workbench_cursor_editable(app))
		return APP_REDRAW;
	mode_enter(app, MODE_SCALE);
	app->scale_scope = 0;
	app->edit[0] = '\0';
	app->typed_overflow = false;
	return APP_REDRAW;
}

bool scale_prompt_block(const struct app *app, struct scale_block *b)
{
	struct cell c;
	if (!app_cursor_input(app, &c))
		return false;
	struct mha_shape s = mha_tensor_shape(&app->cfg, c.t);
	int dk = app->cfg.dk;
	*b = (struct scale_block){ c.t, 0, s.rows, 0, s.cols, "" };
	switch (app->scale_scope) {
	case 1: /* the head block: columns of W^Q, W^K, W^V, rows of W^O */
		if (c.t == MHA_T_WO) {
			b->r0 = c.r / dk * dk;
			b->r1 = b->r0 + dk;
		} else if (c.t != MHA_T_X) {
			b->c0 = c.c / dk * dk;
			b->c1 = b->c0 + dk;
		}
		break;
	case 2: b->r0 = c.r; b->r1 = c.r + 1; break;
	case 3: b->c0 = c.c; b->c1 = c.c + 1; break;
	default: break;
	}
	/* a range that spans the matrix is "*" (notation_rect); the whole
	 * matrix is its name alone */
	struct cell_rect d = { 0, b->r0, b->r1, b->c0, b->c1 };
	if (b->r0 == 0 && b->r1 == s.rows && b->c0 == 0 && b->c1 == s.cols)
		snprintf(b->name, sizeof b->name, "%s", mha_tensor_info(c.t)->name);
	else
		notation_rect(b->name, sizeof b->name, &app->cfg, c.t, &d, theme_utf8());
	return true;
}

static unsigned scale_key_inner(struct app *app, int key)
{
	struct scale_block b;
	if (key == PROMPT_ESC || !scale_prompt_block(app, &b)) {
		mode_leave(app);
		app_message(app, false, "nothing multiplied");
		return APP_REDRAW;
	}
	if (key == '\t') {
		do
			app->scale_scope = (app->scale_scope + 1) % 4;
		while (app->scale_scope == 1 && b.t == MHA_T_X); /* X has no head blocks */
		return APP_REDRAW;
	}
	if (prompt_is_enter(key)) {
		char msg[MHA_MSG_MAX], what[96], fs[48];
		bool set = app->edit[0] == '=';
		float f;
		mode_leave(app);
		if (prompt_refuse_overflow(app, sizeof app->edit))
			return APP_REDRAW;
		if (mha_parse_value(app->edit + set, &f, msg, sizeof msg) != MHA_OK) {
			app_message(app, true, "not changed: %s", msg);
			return APP_REDRAW;
		}
		snprintf(what, sizeof what, "%s %s %s", b.name, set ? "=" : "*=", fmt_full(fs, sizeof fs, f));
		return app_scale_cells(app, b.t, b.r0, b.r1, b.c0, b.c1, f, set, what);
	}
	prompt_type(app, app->edit, sizeof app->edit, key);
	return APP_REDRAW;
}

static unsigned scale_key(struct app *app, int key)
{
	struct mha_config before = app->cfg;
	unsigned f = scale_key_inner(app, key);
	if (f & APP_RECOMPUTE)
		app_edited(app, &before);
	return f;
}

/* "W^Q[*,4..7] *= 2_   (Tab: ...)"; no block (the cursor left the
 * inputs): the next mode's status line. */
static bool scale_status(const struct app *app, struct rect r)
{
	struct scale_block sb;
	if (!scale_prompt_block(app, &sb))
		return false;
	char line[APP_STATUS_MAX + 128];
	snprintf(line, sizeof line, "%s *= %s_   (Tab: matrix, head block, row, column; =v sets; Enter, Esc)",
	         sb.name, app->edit);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

const struct mode_ops scale_prompt_mode = {
	.name = "scale prompt",
	.prompt = true,
	.key = scale_key,
	.status = scale_status,
};
