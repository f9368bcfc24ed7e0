/*
 * actions.c - every key of the workbench, in one table (actions_table), and
 * what each does to the app: move, edit, tweak the shape, page, save. The
 * tweaks only build the next configuration; app_change_config checks it,
 * keeps what fits, and explains refusals in the status line. No drawing.
 */
#include "actions.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "mha.h"

enum { KEY_ESC = 27, KEY_DEL = 127, KEY_CTRL_H = 8 };
#define NUDGE 0.1f

static unsigned act_help(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	app->help_open = !app->help_open;
	app->help_scroll = 0;
	return APP_REDRAW;
}

static unsigned act_quit(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	if (app->quit_armed)
		return APP_QUIT;
	if (app_save(app) == 0)
		return APP_QUIT;
	app->quit_armed = true;
	size_t l = strlen(app->status);
	snprintf(app->status + l, sizeof app->status - l, "; press q again to quit without saving");
	return APP_REDRAW;
}

static unsigned act_save(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	app_save(app);
	return APP_REDRAW;
}

static unsigned act_stage(struct app *app, int arg, int key)
{
	(void)key;
	app->stage = (enum stage)((app->stage + arg + STAGE_COUNT) % STAGE_COUNT);
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_stage_jump(struct app *app, int arg, int key)
{
	(void)arg;
	app->stage = (enum stage)(key - '1');
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_move(struct app *app, int arg, int key)
{
	(void)key;
	struct app_cursor *cu = &app->cur[app->stage];
	/* arg: 0 left, 1 down, 2 up, 3 right */
	cu->col += arg == 0 ? -1 : arg == 3 ? 1 : 0;
	cu->row += arg == 2 ? -1 : arg == 1 ? 1 : 0;
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_panel(struct app *app, int arg, int key)
{
	(void)key;
	struct stage_view v;
	app_view(app, &v);
	struct app_cursor *cu = &app->cur[app->stage];
	cu->panel = (cu->panel + arg + v.count) % v.count;
	app_clamp(app);
	app_message(app, false, "cursor in %s", v.p[cu->panel].title);
	return APP_REDRAW;
}

static unsigned act_head(struct app *app, int arg, int key)
{
	(void)key;
	app->head = (app->head + arg + app->cfg.h) % app->cfg.h;
	if (app->heat_per_page > 0)
		app->heat_page = app->head / app->heat_per_page;
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_proj(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	app->proj = (enum proj)((app->proj + 1) % PROJ_COUNT);
	app_clamp(app);
	return APP_REDRAW;
}

static unsigned act_page(struct app *app, int arg, int key)
{
	(void)key;
	int per = app->heat_per_page > 0 ? app->heat_per_page : app->cfg.h;
	int pages = (app->cfg.h + per - 1) / per;
	app->heat_page = (app->heat_page + arg + pages) % pages;
	return APP_REDRAW;
}

/* Editing needs an input cell; say where the inputs are otherwise. */
static bool cursor_editable(struct app *app)
{
	struct stage_view v;
	struct cell c;
	const struct panel *p;
	if (!app_cursor_cell(app, &c, &p, &v))
		return false;
	if (mha_tensor_info(c.t)->input && !p->proof)
		return true;
	app_message(app, true, "%s is computed (%s): edit X, W^Q, W^K, W^V or W^O; c moves between matrices",
	            p->title, mha_tensor_info(c.t)->formula);
	return false;
}

static unsigned act_edit(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	if (!cursor_editable(app))
		return APP_REDRAW;
	app->editing = true;
	app->edit[0] = '\0';
	return APP_REDRAW;
}

static unsigned act_nudge(struct app *app, int arg, int key)
{
	(void)key;
	if (!cursor_editable(app))
		return APP_REDRAW;
	struct stage_view v;
	struct cell c;
	const struct panel *p;
	app_cursor_cell(app, &c, &p, &v);
	float now = app_panel_value(app, p, app->cur[app->stage].row, app->cur[app->stage].col);
	float next = now + (float)arg * NUDGE;
	if (next > MHA_VALUE_MAX || next < -MHA_VALUE_MAX) {
		app_message(app, true, "not changed: values must be within +-1e6");
		return APP_REDRAW;
	}
	return app_set_cell(app, next);
}

static unsigned act_undo(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return app_undo(app);
}

static unsigned act_reseed(struct app *app, int arg, int key)
{
	(void)key;
	char what[96];
	unsigned long long seed = app->cfg.seed + (unsigned long long)arg;
	if (arg)
		snprintf(what, sizeof what, "new seed %llu: every input drawn again (u undoes)", seed);
	else
		snprintf(what, sizeof what, "reset to seed %llu: edits dropped (u undoes)", seed);
	return app_reseed(app, seed, what);
}

/* ---- shape tweaks ---- */

static bool tied(const struct mha_config *c)
{
	return c->h * c->dk == c->d;
}

/* g for a new h: MHA stays MHA, MQA stays MQA, GQA keeps the largest
 * divisor of h not above the old g. */
static int follow_g(const struct mha_config *c, int h)
{
	if (c->g == c->h)
		return h;
	int g = c->g < h ? c->g : h;
	while (g > 1 && h % g != 0)
		g--;
	return g;
}

static unsigned act_heads(struct app *app, int dir, int key)
{
	(void)key;
	const struct mha_config *c = &app->cfg;
	char msg[MHA_MSG_MAX], what[160];
	/* with h x d_k = d_model, step through the divisors of d_model and keep
	 * the product (the paper's Table 3 row A); otherwise keep d_k */
	for (int h = c->h + dir; h >= 1 && h <= MHA_MAX_HEADS; h += dir) {
		struct mha_config nx = *c;
		nx.h = h;
		if (tied(c)) {
			if (c->d % h != 0)
				continue;
			nx.dk = c->d / h;
		}
		nx.g = follow_g(c, h);
		if (mha_config_check(&nx, msg, sizeof msg) != MHA_OK)
			continue;
		if (tied(&nx))
			snprintf(what, sizeof what, "heads %d, d_k %d: h x d_k = d_model = %d, so parameters and FLOPs stay the same",
			         nx.h, nx.dk, nx.d);
		else
			snprintf(what, sizeof what, "heads %d, d_k %d, kv heads %d", nx.h, nx.dk, nx.g);
		return app_change_config(app, &nx, what);
	}
	if (tied(c))
		app_message(app, true, "no %s head count divides d_model %d (h x d_k = d_model is kept); change d_model (D/d) or d_k ({/})",
		            dir > 0 ? "larger" : "smaller", c->d);
	else
		app_message(app, true, "heads cannot go %s: h is 1..%d, h x d_k at most %d", dir > 0 ? "higher" : "lower",
		            MHA_MAX_HEADS, MHA_MAX_WIDTH);
	return APP_REDRAW;
}

static unsigned act_dk(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	nx.dk += dir;
	char what[96];
	snprintf(what, sizeof what, "d_k %d%s", nx.dk, tied(&nx) ? " (h x d_k = d_model)" : "");
	return app_change_config(app, &nx, what);
}

static unsigned act_kv(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	/* the next divisor of h */
	do
		nx.g += dir;
	while (nx.g >= 1 && nx.g <= nx.h && nx.h % nx.g != 0);
	if (nx.g < 1 || nx.g > nx.h) {
		app_message(app, true, "kv heads must divide h = %d: 1 (MQA) .. %d (MHA)", nx.h, nx.h);
		return APP_REDRAW;
	}
	char what[96];
	snprintf(what, sizeof what, "kv heads %d (%s): KV cache %d values per token", nx.g,
	         nx.g == nx.h ? "MHA" : nx.g == 1 ? "MQA" : "GQA", 2 * nx.g * nx.dk);
	return app_change_config(app, &nx, what);
}

static unsigned act_tokens(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	nx.n += dir;
	if (nx.top_k > nx.n && nx.n >= 1)
		nx.top_k = nx.n;
	char what[64];
	snprintf(what, sizeof what, "tokens %d", nx.n);
	return app_change_config(app, &nx, what);
}

static unsigned act_dmodel(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	char what[96];
	if (tied(&nx)) { /* keep h x d_k = d_model: d_k moves by one */
		nx.dk += dir;
		nx.d = nx.h * nx.dk;
	} else {
		nx.d += dir;
	}
	snprintf(what, sizeof what, "d_model %d, d_k %d", nx.d, nx.dk);
	return app_change_config(app, &nx, what);
}

static unsigned act_topk(struct app *app, int dir, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	nx.top_k += dir;
	if (nx.top_k == nx.n + 1 || nx.top_k < 0) {
		app_message(app, true, "top-k is 0 (off) .. n = %d", nx.n);
		return APP_REDRAW;
	}
	char what[96];
	if (nx.top_k)
		snprintf(what, sizeof what, "top-k %d: each query keeps its %d largest scores", nx.top_k, nx.top_k);
	else
		snprintf(what, sizeof what, "top-k off");
	return app_change_config(app, &nx, what);
}

static unsigned act_toggle(struct app *app, int which, int key)
{
	(void)key;
	struct mha_config nx = app->cfg;
	char what[96];
	if (which == 0) {
		nx.causal = !nx.causal;
		snprintf(what, sizeof what, "causal mask %s", nx.causal ? "on: query i sees keys j <= i" : "off");
	} else if (which == 1) {
		nx.scale = !nx.scale;
		snprintf(what, sizeof what, "scale %s", nx.scale ? "1/sqrt(d_k)" : "off: scores are raw dot products");
	} else {
		nx.head_off[app->head] = !nx.head_off[app->head];
		snprintf(what, sizeof what, "head %d %s", app->head,
		         nx.head_off[app->head] ? "switched off: its Concat block is zero" : "switched on");
	}
	return app_change_config(app, &nx, what);
}

static unsigned act_lesson(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	app_message(app, false, "no lesson open (start one with mha-tui --lesson ID)");
	return APP_REDRAW;
}

/* key(s), label, hint name, help, help keys (NULL: the label; "": shown on
 * the line above), group, in the hint bar, function, argument */
static const struct action table[] = {
	{ { '?' }, "?", "help", "this help", NULL, "General", true, act_help, 0 },
	{ { 'q' }, "q", "quit", "save the session and quit", NULL, "General", true, act_quit, 0 },
	{ { 'w' }, "w", "save", "save the session", NULL, "General", true, act_save, 0 },
	{ { '\t' }, "Tab", "stage", "next / previous stage", "Tab S-Tab", "Move", true, act_stage, 1 },
	{ { KEY_BTAB }, "S-Tab", "prev stage", "previous stage", "", "Move", false, act_stage, -1 },
	{ { '1', '2', '3', '4', '5', '6', '7' }, "1-7", "jump", "jump to a stage", NULL, "Move", false, act_stage_jump, 0 },
	{ { KEY_LEFT, 'h' }, "Left h", "left", "move the cursor", "arrows hjkl", "Move", false, act_move, 0 },
	{ { KEY_DOWN, 'j' }, "Down j", "down", "cursor down", "", "Move", false, act_move, 1 },
	{ { KEY_UP, 'k' }, "Up k", "up", "cursor up", "", "Move", false, act_move, 2 },
	{ { KEY_RIGHT, 'l' }, "Right l", "right", "cursor right", "", "Move", false, act_move, 3 },
	{ { 'c' }, "c", "matrix", "next / previous matrix", "c C", "Move", true, act_panel, 1 },
	{ { 'C' }, "C", "prev matrix", "previous matrix", "", "Move", false, act_panel, -1 },
	{ { 'L' }, "L", "next head", "next / previous head", "L H", "Move", false, act_head, 1 },
	{ { 'H' }, "H", "prev head", "previous head", "", "Move", false, act_head, -1 },
	{ { 'v' }, "v", "Q/K/V", "Q, K or V (stages 1, 2)", NULL, "Move", false, act_proj, 0 },
	{ { KEY_NPAGE }, "PgDn", "page", "page the heatmaps", "PgDn PgUp", "Move", false, act_page, 1 },
	{ { KEY_PPAGE }, "PgUp", "page", "previous heatmaps", "", "Move", false, act_page, -1 },
	{ { '\n', '\r', KEY_ENTER }, "Enter", "edit", "type a value; Esc cancels", NULL, "Edit", true, act_edit, 0 },
	{ { '+', '=' }, "+", "nudge", "nudge the cell by +-0.1", "+ -", "Edit", true, act_nudge, 1 },
	{ { '-', '_' }, "-", "nudge", "subtract 0.1", "", "Edit", false, act_nudge, -1 },
	{ { 'u' }, "u", "undo", "undo (64 levels)", NULL, "Edit", true, act_undo, 0 },
	{ { 'r' }, "r", "reseed", "new seed, new inputs", NULL, "Edit", false, act_reseed, 1 },
	{ { 'R' }, "R", "reset", "inputs back to the seed", NULL, "Edit", false, act_reseed, 0 },
	{ { ']' }, "]", "heads+", "more / fewer heads", "] [", "Shape", true, act_heads, 1 },
	{ { '[' }, "[", "heads-", "fewer heads", "", "Shape", false, act_heads, -1 },
	{ { '}' }, "}", "d_k+", "larger / smaller d_k", "} {", "Shape", false, act_dk, 1 },
	{ { '{' }, "{", "d_k-", "smaller d_k", "", "Shape", false, act_dk, -1 },
	{ { '>' }, ">", "kv+", "more / fewer kv heads", "> <", "Shape", false, act_kv, 1 },
	{ { '<' }, "<", "kv-", "fewer kv heads", "", "Shape", false, act_kv, -1 },
	{ { '.' }, ".", "tokens+", "more / fewer tokens", ". ,", "Shape", false, act_tokens, 1 },
	{ { ',' }, ",", "tokens-", "fewer tokens", "", "Shape", false, act_tokens, -1 },
	{ { 'D' }, "D", "d_model+", "larger / smaller d_model", "D d", "Shape", false, act_dmodel, 1 },
	{ { 'd' }, "d", "d_model-", "smaller d_model", "", "Shape", false, act_dmodel, -1 },
	{ { 'm' }, "m", "mask", "causal mask on / off", NULL, "Shape", true, act_toggle, 0 },
	{ { 's' }, "s", "scale", "1/sqrt(d_k) on / off", NULL, "Shape", false, act_toggle, 1 },
	{ { 't' }, "t", "top-k+", "top-k up / down (0 off)", "t T", "Shape", false, act_topk, 1 },
	{ { 'T' }, "T", "top-k-", "top-k down", "", "Shape", false, act_topk, -1 },
	{ { 'x' }, "x", "head off", "this head off / on", NULL, "Shape", false, act_toggle, 2 },
	{ { 'n' }, "n", "next step", "next / previous step", "n p", "Lesson", false, act_lesson, 1 },
	{ { 'p' }, "p", "prev step", "previous lesson step", "", "Lesson", false, act_lesson, -1 },
};

const char actions_keep_rule[] =
	"] and [ keep h x d_k = d_model when it holds. When a shape changes, every "
	"input cell whose row, head and column within the head exist in the new "
	"shape keeps its value, yours or the seed's; new cells are drawn from the "
	"seed. Token labels stay with their rows.";

const struct action *actions_table(int *count)
{
	*count = (int)(sizeof table / sizeof table[0]);
	return table;
}

const struct action *actions_lookup(int key)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		for (int k = 0; k < ACTION_KEYS_MAX && table[i].keys[k]; k++)
			if (table[i].keys[k] == key)
				return &table[i];
	return NULL;
}

/* The value being typed: digits and the rest go to the buffer, Enter
 * parses it with the core's parser, Esc cancels. */
static unsigned edit_key(struct app *app, int key)
{
	size_t len = strlen(app->edit);
	if (key == KEY_ESC) {
		app->editing = false;
		app_message(app, false, "edit cancelled");
		return APP_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		char msg[MHA_MSG_MAX];
		float v;
		app->editing = false;
		if (mha_parse_value(app->edit, &v, msg, sizeof msg) != MHA_OK) {
			app_message(app, true, "not changed: %s", msg);
			return APP_REDRAW;
		}
		struct mha_config before = app->cfg;
		unsigned f = app_set_cell(app, v);
		if (f & APP_RECOMPUTE)
			app_edited(app, &before);
		char full[48];
		snprintf(full, sizeof full, "%.9g", (double)v);
		app_message(app, false, "set to %s; everything downstream recomputed (u undoes)", full);
		return f;
	}
	if (key == KEY_BACKSPACE || key == KEY_DEL || key == KEY_CTRL_H) {
		if (len > 0)
			app->edit[len - 1] = '\0';
		return APP_REDRAW;
	}
	if (key >= 32 && key < 127 && len + 1 < sizeof app->edit) {
		app->edit[len] = (char)key;
		app->edit[len + 1] = '\0';
	}
	return APP_REDRAW;
}

static unsigned help_key(struct app *app, int key)
{
	if (key == KEY_DOWN || key == 'j' || key == KEY_NPAGE) {
		app->help_scroll += key == KEY_NPAGE ? 10 : 1;
		return APP_REDRAW;
	}
	if (key == KEY_UP || key == 'k' || key == KEY_PPAGE) {
		app->help_scroll -= key == KEY_PPAGE ? 10 : 1;
		if (app->help_scroll < 0)
			app->help_scroll = 0;
		return APP_REDRAW;
	}
	app->help_open = false;
	if (key == 'q') /* q still quits from the help */
		return act_quit(app, 0, key);
	return APP_REDRAW;
}

unsigned app_key(struct app *app, int key)
{
	if (key == KEY_RESIZE)
		return APP_REDRAW;
	if (app->notice && key != ERR) { /* read: the status line shows the cursor's cell again */
		app->notice = false;
		app->status_until_ms = 0;
	}
	if (app->editing)
		return edit_key(app, key);
	if (app->help_open)
		return help_key(app, key);
	if (key != 'q')
		app->quit_armed = false;
	const struct action *a = actions_lookup(key);
	if (!a) {
		if (key != ERR)
			app_message(app, false, "key not bound; ? lists the keys");
		return key != ERR ? APP_REDRAW : 0;
	}
	struct mha_config before = app->cfg;
	unsigned f = a->fn(app, a->arg, key);
	if (f & APP_RECOMPUTE)
		app_edited(app, &before); /* counts toward the next autosave */
	return f;
}
