/*
 * workbench_keys.c - the workbench's keys, in one table
 * (workbench_keys[]), and what each does to the app: move, edit, page,
 * save, and the lessons' keys (learn.c does their work), the shape tweaks
 * (shape.c) and the mouse (workbench_mouse). The views' openers are
 * theirs (each view's mode_ops); the `use` rows here only place them in
 * the help and the hint line. No drawing.
 */
#include "workbench.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "heat_strip.h"
#include "learn.h"
#include "mha.h"
#include "order.h"
#include "shape.h"

#define NUDGE 0.1f

static unsigned act_help(struct app *app)
{
	app->help_open = !app->help_open;
	app->help_scroll = 0;
	return APP_REDRAW;
}

static unsigned act_save(struct app *app)
{
	/* in a lesson the session is the free workbench's, not the lesson's
	 * numbers (those are kept with the progress at quit): say which */
	if (app_save(app) == 0 && app->learn.active && !strncmp(app->status, "saved to ", 9))
		app_message(app, false, "saved the free workbench to %s (this lesson's numbers are kept "
		            "with your progress)", app->save.session_path);
	return APP_REDRAW;
}

static unsigned act_stage(struct app *app, int arg)
{
	app->stage = (enum pipeline_stage)((app->stage + arg + PIPELINE_STAGE_COUNT) % PIPELINE_STAGE_COUNT);
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_stage_jump(struct app *app, int arg, int key)
{
	(void)arg;
	app->stage = (enum pipeline_stage)(key - '1');
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_move(struct app *app, int arg)
{
	struct app_cursor *cu = &app->cur[app->stage];
	/* arg: 0 left, 1 down, 2 up, 3 right */
	cu->col += arg == 0 ? -1 : arg == 3 ? 1 : 0;
	cu->row += arg == 2 ? -1 : arg == 1 ? 1 : 0;
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_panel(struct app *app, int arg)
{
	struct stage_view v;
	app_view(app, &v);
	struct app_cursor *cu = &app->cur[app->stage];
	cu->panel = (cu->panel + arg + v.count) % v.count;
	app_clamp(app);
	app_message(app, false, "cursor in %s", v.p[cu->panel].title);
	return APP_REDRAW;
}

static unsigned act_head(struct app *app, int arg)
{
	app->head = (app->head + arg + app->cfg.h) % app->cfg.h;
	if (app->heat_per_page > 0)
		app->heat_page = app->head / app->heat_per_page;
	app_clamp(app);
	return APP_REDRAW;
}

/* The layer the stage screens show (a stack: --layers, Z z): wraps, as
 * heads do, and says what that layer reads. */
static unsigned act_layer(struct app *app, int arg)
{
	int layers = app->cfg.layers > 1 ? app->cfg.layers : 1;
	if (layers == 1) {
		app_message(app, false, "one layer (%s adds one: a stack on the residual stream)",
		            mode_key_name(app, "layers-more"));
		return APP_REDRAW;
	}
	app_layer_set(app, (app->layer + arg + layers) % layers);
	if (app->layer == 0)
		app_message(app, false, "layer 0 of %d: reads x_0 = X%s", layers,
		            app->cfg.pos == MHA_POS_SINUSOIDAL || app->cfg.pos == MHA_POS_LEARNED ? " + PE" : "");
	else
		app_message(app, false, "layer %d of %d: reads x_%d = x_%d + Y of layer %d (the residual stream)",
		            app->layer, layers, app->layer, app->layer - 1, app->layer - 1);
	return APP_REDRAW;
}

static unsigned act_proj(struct app *app)
{
	/* Q, K, V, then where order enters when this layer shows it */
	int count = PROJ_COUNT + (stage_pos_shown(&app->cfg, app->layer) ? 1 : 0);
	app->proj = (enum proj)((app->proj + 1) % count);
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_page(struct app *app, int arg)
{
	int per = app->heat_per_page > 0 ? app->heat_per_page : app->cfg.h;
	int pages = (app->cfg.h + per - 1) / per;
	app->heat_page = (app->heat_page + arg + pages) % pages;
	return APP_REDRAW;
}

/* One stage view a nudge: the cursor's input cell, its value, set. */
static unsigned act_nudge(struct app *app, int arg)
{
	struct cell c;
	if (!app_cursor_editable(app, &c))
		return APP_REDRAW;
	float now = app_tensor(app, c.t)[(size_t)c.r * mha_tensor_shape(&app->cfg, c.t).cols + c.c];
	float next = now + (float)arg * NUDGE;
	if (next > MHA_VALUE_MAX || next < -MHA_VALUE_MAX) {
		app_message(app, true, "not changed: values must be within +-1e6");
		return APP_REDRAW;
	}
	return app_set_input(app, &c, next);
}

static unsigned act_reseed(struct app *app, int arg)
{
	char what[96];
	unsigned long long seed = app->cfg.seed + (unsigned long long)arg;
	if (arg)
		snprintf(what, sizeof what, "new seed %llu: every input drawn again (%s undoes)", seed,
		         mode_key_name(app, "undo"));
	else
		snprintf(what, sizeof what, "reset to seed %llu: edits dropped (%s undoes)", seed,
		         mode_key_name(app, "undo"));
	return app_reseed(app, seed, what);
}

/* Ctrl-L, as in every terminal program: the next refresh repaints every
 * cell (after another program or a line noise scribbled on the screen). */
static unsigned act_redraw(struct app *app)
{
	(void)app;
	if (curscr)
		clearok(curscr, TRUE);
	return APP_REDRAW;
}

/* The table. help_keys: NULL, the label; "", shown on the line above.
 * bar: F the free workbench's hint line, L a lesson's. A `use` row is a
 * view's opener, placed here. */
enum { F = ACTION_BAR_FREE, L = ACTION_BAR_LESSON, FL = ACTION_BAR_BOTH };
const struct action workbench_keys[] = {
	{ .keys = { '?' }, .label = "?", .name = "help", .help = "this help", .group = "General", .bar = FL,
	  .call = act_help, .id = "help" },
	{ .keys = { 'q' }, .label = "q", .name = "quit", .help = "save the session and quit", .group = "General",
	  .bar = FL, .call = app_save_quit, .id = "quit" },
	{ .keys = { 'w' }, .label = "w", .name = "save", .help = "save the session", .group = "General",
	  .call = act_save, .id = "save" },
	{ .keys = { 'L' - '@' }, .label = "C-l", .name = "redraw", .help = "redraw the whole screen",
	  .group = "General", .call = act_redraw, .id = "redraw" },
	{ .keys = { 'E' }, .label = "E", .name = "export", .help = "write .py check and .svg", .group = "General",
	  .shows = MODE_SHOWS_ALL, .fn = workbench_export, .id = "export" },
	{ .use = "decode" },
	{ .use = "masks" },
	{ .use = "sentence" },
	{ .use = "kv-cache" },
	{ .keys = { '\t' }, .label = "Tab", .name = "stage", .help = "next / previous stage", .help_keys = "Tab S-Tab",
	  .group = "Move", .bar = F, .call_arg = act_stage, .arg = 1, .id = "stage-next" },
	{ .keys = { KEY_BTAB }, .label = "S-Tab", .name = "prev stage", .help = "previous stage", .help_keys = "",
	  .group = "Move", .call_arg = act_stage, .arg = -1, .id = "stage-prev" },
	{ .keys = { '1', '2', '3', '4', '5', '6', '7' }, .label = "1-7", .name = "jump", .help = "jump to a stage",
	  .group = "Move", .fn = act_stage_jump, .id = "stage-jump" },
	{ .keys = { KEY_LEFT, 'h' }, .label = "Left h", .name = "left", .help = "move the cursor",
	  .help_keys = "arrows hjkl", .group = "Move", .call_arg = act_move, .arg = 0, .id = "left" },
	{ .keys = { KEY_DOWN, 'j' }, .label = "Down j", .name = "down", .help = "cursor down", .help_keys = "",
	  .group = "Move", .call_arg = act_move, .arg = 1, .id = "down" },
	{ .keys = { KEY_UP, 'k' }, .label = "Up k", .name = "up", .help = "cursor up", .help_keys = "",
	  .group = "Move", .call_arg = act_move, .arg = 2, .id = "up" },
	{ .keys = { KEY_RIGHT, 'l' }, .label = "Right l", .name = "right", .help = "cursor right", .help_keys = "",
	  .group = "Move", .call_arg = act_move, .arg = 3, .id = "right" },
	{ .keys = { 'c' }, .label = "c", .name = "matrix", .help = "next / previous matrix", .help_keys = "c C",
	  .group = "Move", .bar = F, .call_arg = act_panel, .arg = 1, .id = "matrix-next" },
	{ .keys = { 'C' }, .label = "C", .name = "prev matrix", .help = "previous matrix", .help_keys = "",
	  .group = "Move", .call_arg = act_panel, .arg = -1, .id = "matrix-prev" },
	{ .keys = { 'L' }, .label = "L", .name = "next head", .help = "next / previous head", .help_keys = "L H",
	  .group = "Move", .call_arg = act_head, .arg = 1, .id = "head-next" },
	{ .keys = { 'H' }, .label = "H", .name = "prev head", .help = "previous head", .help_keys = "",
	  .group = "Move", .call_arg = act_head, .arg = -1, .id = "head-prev" },
	{ .keys = { 'y' }, .label = "y", .name = "layer", .help = "next / previous layer", .help_keys = "y Y",
	  .group = "Move", .call_arg = act_layer, .arg = 1, .id = "layer-next" },
	{ .keys = { 'Y' }, .label = "Y", .name = "prev layer", .help = "previous layer", .help_keys = "",
	  .group = "Move", .call_arg = act_layer, .arg = -1, .id = "layer-prev" },
	{ .keys = { 'v' }, .label = "v", .name = "Q/K/V", .help = "Q, K, V (stages 1, 2), positions", .group = "Move",
	  .call = act_proj, .id = "qkv" },
	{ .keys = { KEY_NPAGE }, .label = "PgDn", .name = "page", .help = "page the heatmaps",
	  .help_keys = "PgDn PgUp", .group = "Move", .call_arg = act_page, .arg = 1, .id = "page-next" },
	{ .keys = { KEY_PPAGE }, .label = "PgUp", .name = "page", .help = "previous heatmaps", .help_keys = "",
	  .group = "Move", .call_arg = act_page, .arg = -1, .id = "page-prev" },
	{ .keys = { 'e' }, .label = "e", .name = "heat scale", .help = "heatmap scale (cycles)", .group = "Move",
	  .fn = heat_strip_scale_next, .id = "heat-scale" },
	{ .use = "flash" },
	{ .keys = { KEY_MOUSE }, .label = "mouse", .name = "mouse", .help = "click goes, wheel scrolls",
	  .group = "Move", .call = workbench_mouse, .id = "mouse" },
	{ .use = "edit", .bar = FL },
	{ .keys = { '+', '=' }, .label = "+", .name = "nudge", .help = "nudge the cell by +-0.1", .help_keys = "+ -",
	  .group = "Edit", .bar = F, .call_arg = act_nudge, .arg = 1, .id = "nudge-up" },
	{ .keys = { '-', '_' }, .label = "-", .name = "nudge", .help = "subtract 0.1", .help_keys = "",
	  .group = "Edit", .call_arg = act_nudge, .arg = -1, .id = "nudge-down" },
	{ .use = "matrix-scale" },
	{ .keys = { 'u' }, .label = "u", .name = "undo", .help = "undo (up to 64 levels)", .group = "Edit", .bar = F,
	  .call = app_undo, .id = "undo" },
	{ .keys = { 'r' }, .label = "r", .name = "reseed", .help = "new seed, new inputs", .group = "Edit",
	  .call_arg = act_reseed, .arg = 1, .id = "reseed" },
	{ .keys = { 'R' }, .label = "R", .name = "reset", .help = "inputs back to the seed", .group = "Edit",
	  .call_arg = act_reseed, .arg = 0, .id = "reset" },
	{ .keys = { ']' }, .label = "]", .name = "heads+", .help = "more / fewer heads", .help_keys = "] [",
	  .group = "Shape", .fn = shape_heads, .arg = 1, .id = "heads-more" },
	{ .keys = { '[' }, .label = "[", .name = "heads-", .help = "fewer heads", .help_keys = "", .group = "Shape",
	  .fn = shape_heads, .arg = -1, .id = "heads-less" },
	{ .keys = { '}' }, .label = "}", .name = "d_k+", .help = "larger / smaller d_k", .help_keys = "} {",
	  .group = "Shape", .fn = shape_dk, .arg = 1, .id = "dk-more" },
	{ .keys = { '{' }, .label = "{", .name = "d_k-", .help = "smaller d_k", .help_keys = "", .group = "Shape",
	  .fn = shape_dk, .arg = -1, .id = "dk-less" },
	{ .keys = { '>' }, .label = ">", .name = "kv+", .help = "more / fewer kv heads", .help_keys = "> <",
	  .group = "Shape", .fn = shape_kv, .arg = 1, .id = "kv-more" },
	{ .keys = { '<' }, .label = "<", .name = "kv-", .help = "fewer kv heads", .help_keys = "", .group = "Shape",
	  .fn = shape_kv, .arg = -1, .id = "kv-less" },
	{ .keys = { '.' }, .label = ".", .name = "tokens+", .help = "more / fewer tokens", .help_keys = ". ,",
	  .group = "Shape", .fn = shape_tokens, .arg = 1, .id = "tokens-more" },
	{ .keys = { ',' }, .label = ",", .name = "tokens-", .help = "fewer tokens", .help_keys = "", .group = "Shape",
	  .fn = shape_tokens, .arg = -1, .id = "tokens-less" },
	{ .keys = { 'D' }, .label = "D", .name = "d_model+", .help = "larger / smaller d_model", .help_keys = "D d",
	  .group = "Shape", .fn = shape_dmodel, .arg = 1, .id = "dmodel-more" },
	{ .keys = { 'd' }, .label = "d", .name = "d_model-", .help = "smaller d_model", .help_keys = "",
	  .group = "Shape", .fn = shape_dmodel, .arg = -1, .id = "dmodel-less" },
	{ .keys = { 'Z' }, .label = "Z", .name = "layers+", .help = "more / fewer layers (1-4)", .help_keys = "Z z",
	  .group = "Shape", .fn = shape_layers, .arg = 1, .id = "layers-more" },
	{ .keys = { 'z' }, .label = "z", .name = "layers-", .help = "fewer layers", .help_keys = "", .group = "Shape",
	  .fn = shape_layers, .arg = -1, .id = "layers-less" },
	{ .keys = { 'O' }, .label = "O", .name = "positions", .help = "positions (cycles)",
	  .group = "Shape", .fn = order_encoding_next, .id = "positions" },
	{ .keys = { '@' }, .label = "@", .name = "shift", .help = "shift every position +1",
	  .group = "Shape", .fn = order_shift, .arg = 1, .id = "shift" },
	{ .keys = { '~' }, .label = "~", .name = "shuffle", .help = "shuffle the tokens",
	  .group = "Shape", .fn = order_shuffle, .id = "shuffle" },
	{ .keys = { 'm' }, .label = "m", .name = "mask", .help = "causal mask on / off", .group = "Shape", .bar = F,
	  .fn = shape_toggle, .arg = 0, .id = "causal" },
	{ .keys = { 's' }, .label = "s", .name = "scale", .help = "1/sqrt(d_k) on / off", .group = "Shape",
	  .fn = shape_toggle, .arg = 1, .id = "scale" },
	{ .keys = { 't' }, .label = "t", .name = "top-k+", .help = "top-k up / down (0 off)", .help_keys = "t T",
	  .group = "Shape", .fn = shape_topk, .arg = 1, .id = "topk-more" },
	{ .keys = { 'T' }, .label = "T", .name = "top-k-", .help = "top-k down", .help_keys = "", .group = "Shape",
	  .fn = shape_topk, .arg = -1, .id = "topk-less" },
	{ .keys = { 'x' }, .label = "x", .name = "head off", .help = "this head off / on", .group = "Shape",
	  .fn = shape_toggle, .arg = 2, .id = "head-toggle" },
	{ .keys = { 'n' }, .label = "n", .name = "next", .help = "next / previous step", .help_keys = "n p",
	  .group = "Lesson", .bar = L, .call_arg = learn_step, .arg = 1, .id = "next" },
	{ .keys = { 'p' }, .label = "p", .name = "prev", .help = "previous lesson step", .help_keys = "",
	  .group = "Lesson", .call_arg = learn_step, .arg = -1, .id = "prev" },
	{ .keys = { 'i' }, .label = "i", .name = "hint", .help = "the next hint", .group = "Lesson", .bar = L,
	  .call = learn_hint, .id = "hint" },
	{ .keys = { 'S' }, .label = "S", .name = "solve", .help = "apply the solution (u undoes it)", .group = "Lesson",
	  .bar = L, .call = learn_solve, .id = "solution" },
	{ .use = "answer", .bar = L },
	{ .keys = { 'f' }, .label = "f", .name = "free", .help = "to the free workbench / back to the lesson",
	  .group = "Lesson", .bar = L, .call = learn_leave, .id = "leave" },
	{ .use = "menu", .bar = FL },
	{ .keys = { 'J' }, .label = "J", .name = "scroll", .help = "scroll the lesson text down / up", .help_keys = "J K",
	  .group = "Lesson", .call_arg = learn_scroll, .arg = 3, .id = "scroll-down" },
	{ .keys = { 'K' }, .label = "K", .name = "scroll up", .help = "scroll the lesson text up", .help_keys = "",
	  .group = "Lesson", .call_arg = learn_scroll, .arg = -3, .id = "scroll-up" },
	{ .keys = { 'V' }, .label = "V", .name = "read", .help = "the whole lesson step / the matrices",
	  .group = "Lesson", .call = learn_read_toggle, .id = "read" },
	{ .keys = { '#' }, .label = "#", .name = "counts", .help = "below 130 columns: counts in place of the lesson pane",
	  .group = "Lesson", .call = learn_counts_toggle, .id = "counts" },
	{ .use = "train" },
	{ .use = "analysis" },
	{ .keys = { 0 } },
};
