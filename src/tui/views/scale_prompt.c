/*
 * scale_prompt.c - the scale prompt mode (the * key): a factor typed for a
 * block of cells around the cursor (the matrix, the head block, the row or
 * the column: Tab cycles), Enter multiplies them (a leading '=' sets them
 * instead), Esc cancels. The block is computed here; the change goes
 * through app_scale_cells (one undo level, refused past +-MHA_VALUE_MAX;
 * the key dispatch counts it toward the autosave).
 */
#include <curses.h>
#include <stdio.h>

#include "draw.h"
#include "fmt.h"
#include "mode.h"
#include "notation.h"
#include "prompt.h"
#include "theme.h"

/* The prompt's own state: the block and what was typed. */
struct scale_prompt {
	int scope;     /* its block: 0 the matrix, 1 the head block, 2 the row, 3 the column */
	char edit[APP_EDIT_MAX];
	bool overflow; /* a character did not fit: Enter refuses the line */
};

extern const struct mode_ops scale_prompt_mode;

static bool scale_enter(struct app *app)
{
	struct scale_prompt *p = mode_state(app, &scale_prompt_mode);
	if (!p || !app_cursor_editable(app, NULL))
		return false;
	*p = (struct scale_prompt){ 0 };
	return true;
}

/* The block of cells the * key works on, per the prompt's scope: rows
 * [r0, r1) x columns [c0, c1) of input t around the cursor, and its name
 * ("W^Q[*,4..7]"). false when the cursor is not on an input. */
struct scale_block {
	enum mha_tensor t;
	int r0, r1, c0, c1;
	char name[48];
};

static bool scale_block(const struct app *app, struct scale_block *b)
{
	const struct scale_prompt *p = mode_state_if(app, &scale_prompt_mode);
	struct cell c;
	if (!p || !app_cursor_input(app, &c))
		return false;
	struct mha_shape s = mha_tensor_shape(&app->cfg, c.t);
	int dk = app->cfg.dk;
	*b = (struct scale_block){ c.t, 0, s.rows, 0, s.cols, "" };
	switch (p->scope) {
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

static unsigned scale_cancel(struct app *app)
{
	return prompt_cancel(app, "nothing multiplied");
}

static unsigned scale_scope_next(struct app *app)
{
	struct scale_prompt *p = mode_state(app, &scale_prompt_mode);
	struct scale_block b;
	if (!scale_block(app, &b))
		return scale_cancel(app);
	do
		p->scope = (p->scope + 1) % 4;
	while (p->scope == 1 && b.t == MHA_T_X); /* X has no head blocks */
	return APP_REDRAW;
}

static unsigned scale_apply(struct app *app)
{
	struct scale_prompt *p = mode_state(app, &scale_prompt_mode);
	struct scale_block b;
	if (!scale_block(app, &b))
		return scale_cancel(app);
	char msg[MHA_MSG_MAX], what[96], fs[48];
	bool set = p->edit[0] == '=';
	float f;
	if (!prompt_take(app, &p->overflow, sizeof p->edit))
		return APP_REDRAW;
	if (mha_parse_value(p->edit + set, &f, msg, sizeof msg) != MHA_OK) {
		app_message(app, true, "not changed: %s", msg);
		return APP_REDRAW;
	}
	snprintf(what, sizeof what, "%s %s %s", b.name, set ? "=" : "*=", fmt_full(fs, sizeof fs, f));
	return app_scale_cells(app, b.t, b.r0, b.r1, b.c0, b.c1, f, set, what);
}

static unsigned scale_type(struct app *app, int key)
{
	struct scale_prompt *p = mode_state(app, &scale_prompt_mode);
	struct scale_block b;
	if (!scale_block(app, &b))
		return scale_cancel(app);
	prompt_type(p->edit, sizeof p->edit, &p->overflow, key);
	return APP_REDRAW;
}

/* "W^Q[*,4..7] *= 2_   (Tab: ...)"; no block (the cursor left the
 * inputs): the next mode's status line. */
static bool scale_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	struct scale_block sb;
	const struct scale_prompt *p = mode_state_if(app, &scale_prompt_mode);
	if (!p || !scale_block(app, &sb))
		return false;
	char line[APP_STATUS_MAX + 128];
	snprintf(line, sizeof line, "%s *= %s_   (Tab: matrix, head block, row, column; =v sets; Enter, Esc)",
	         sb.name, p->edit);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_SELECTED));
	return true;
}

static const struct action scale_opener = {
	.keys = { '*' }, .label = "*", .name = "scale", .help = "multiply a block of cells", .group = "Edit",
	.id = "matrix-scale",
};

static const struct action scale_keys[] = {
	{ .keys = { '\t' }, .label = "Tab", .name = "block", .help = "the block: matrix, head block, row, column",
	  .call = scale_scope_next, .id = "scale-block" },
	{ .keys = { '\n', '\r', KEY_ENTER }, .label = "Enter", .name = "multiply",
	  .help = "multiply the block by the factor (=v sets it)", .call = scale_apply, .id = "scale-apply" },
	{ .keys = { PROMPT_ESC }, .label = "Esc", .name = "cancel", .help = "multiply nothing", .call = scale_cancel,
	  .id = "scale-cancel" },
	{ .keys = { 0 } },
};

const struct mode_ops scale_prompt_mode = {
	.name = "scale prompt",
	.prompt = true,
	.opener = &scale_opener,
	.keys = scale_keys,
	.state_size = sizeof(struct scale_prompt),
	.enter = scale_enter,
	.type = scale_type,
	.status = scale_status,
};
