/*
 * actions.c - every key of the workbench, in one table (actions_table), and
 * what each does to the app: move, edit, tweak the shape, page, save. The
 * tweaks only build the next configuration; app_change_config checks it,
 * keeps what fits, and explains refusals in the status line. The mouse is
 * one more row of the table (KEY_MOUSE): app_mouse looks up what the last
 * drawing put under the pointer (hit.h) and acts on it. No drawing.
 */
#include "actions.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "learn.h"
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
	/* within 80 columns: the formula names the matrix */
	app_message(app, true, "%s is computed: edit X or W^Q/K/V/O (c: next matrix)", mha_tensor_info(c.t)->formula);
	return false;
}

static unsigned act_edit(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	if (!cursor_editable(app))
		return APP_REDRAW;
	app->editing = true;
	app->edit[0] = '\0';
	app->typed_overflow = false;
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

static void range_name(char *buf, size_t len, int lo, int hi, int all)
{
	if (lo == 0 && hi == all)
		snprintf(buf, len, "*");
	else if (hi - lo == 1)
		snprintf(buf, len, "%d", lo);
	else
		snprintf(buf, len, "%d..%d", lo, hi - 1);
}

bool actions_scale_block(const struct app *app, struct scale_block *b)
{
	struct stage_view v;
	struct cell c;
	const struct panel *p;
	if (!app_cursor_cell(app, &c, &p, &v) || !mha_tensor_info(c.t)->input || p->proof)
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
	char rs[16], cs[16];
	range_name(rs, sizeof rs, b->r0, b->r1, s.rows);
	range_name(cs, sizeof cs, b->c0, b->c1, s.cols);
	if (b->r0 == 0 && b->r1 == s.rows && b->c0 == 0 && b->c1 == s.cols)
		snprintf(b->name, sizeof b->name, "%s", mha_tensor_info(c.t)->name);
	else
		snprintf(b->name, sizeof b->name, "%s[%s][%s]", mha_tensor_info(c.t)->name, rs, cs);
	return true;
}

static unsigned act_scale(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	if (!cursor_editable(app))
		return APP_REDRAW;
	app->scaling = true;
	app->scale_scope = 0;
	app->edit[0] = '\0';
	app->typed_overflow = false;
	return APP_REDRAW;
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
			/* softmax's 5 n^2 a head does change: only the matmuls stay */
			snprintf(what, sizeof what, "heads %d, d_k %d (h x d_k = %d): parameters and matmul FLOPs stay the same",
			         nx.h, nx.dk, nx.d);
		else
			snprintf(what, sizeof what, "heads %d, d_k %d, kv heads %d", nx.h, nx.dk, nx.g);
		return app_change_config(app, &nx, what);
	}
	if (tied(c))
		app_message(app, true, "h x d_k = d_model: no %s h divides %d; change d_model (D/d) or d_k ({/})",
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

/* ---- the mouse ---- */

/* A heatmap cell: its head, and the cursor on that cell of the stage's
 * matrix of it; stages with no such matrix (Concat, W^O) say its value. */
static unsigned mouse_heat(struct app *app, int head, int r, int c)
{
	int n = app->cfg.n;
	if (head < 0 || head >= app->cfg.h || r < 0 || r >= n || c < 0 || c >= n)
		return 0;
	app->head = head;
	enum mha_tensor t = app->stage == STAGE_SCORES ? MHA_T_SCORES : MHA_T_WEIGHTS;
	struct stage_view v;
	app_view(app, &v);
	for (int i = 0; i < v.count; i++)
		if (v.p[i].t == t && v.p[i].m == head && !v.p[i].proof) {
			app->cur[app->stage] = (struct app_cursor){ i, r, c };
			app_clamp(app);
			return APP_REDRAW;
		}
	app_clamp(app);
	char val[32];
	const float *m = t == MHA_T_SCORES ? app->a.scores : app->a.weights;
	fmt_full(val, sizeof val, m[((size_t)head * n + r) * n + c]);
	if (learn_hidden(app, t, head, r, c))
		snprintf(val, sizeof val, "?");
	app_message(app, false, "head %d: %s_%d[%s,%s] = %s", head, t == MHA_T_SCORES ? "S" : "P", head,
	            app->w.labels[r], app->w.labels[c], val);
	return APP_REDRAW;
}

/* The wheel: the lesson text where it scrolls, the menu's selection while
 * the menu has the keys, else the cursor a row (dir 1: down). */
static unsigned mouse_wheel(struct app *app, const struct hit *h, int dir)
{
	if (h->kind == HIT_PANE && app->learn.scroll_max > 0)
		return learn_scroll(app, 3 * dir);
	if (h->kind == HIT_MENU && app->learn.menu)
		return learn_menu_move(app, dir);
	return act_move(app, dir > 0 ? 1 : 2, 0);
}

static unsigned act_mouse(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	struct hit h = hit_at(&app->hits, app->mouse.y, app->mouse.x);
	if (app->mouse.button != HIT_CLICK)
		return mouse_wheel(app, &h, app->mouse.button == HIT_WHEEL_DOWN ? 1 : -1);
	switch (h.kind) {
	case HIT_STAGE:
		if (h.id < 0 || h.id >= STAGE_COUNT)
			return 0;
		app->stage = (enum stage)h.id;
		app_clamp(app);
		return APP_REDRAW;
	case HIT_CELL:
		app->cur[app->stage] = (struct app_cursor){ h.id, h.row, h.col };
		app_clamp(app);
		return APP_REDRAW;
	case HIT_HEAT:
		return mouse_heat(app, h.id, h.row, h.col);
	case HIT_MENU:
		return learn_menu_pick(app, h.row);
	default:
		return 0; /* the lesson text, a blank, a number's label: nothing */
	}
}

/* ---- lessons (learn.c does the work) ---- */

static unsigned act_step(struct app *app, int arg, int key)
{
	(void)key;
	return learn_step(app, arg);
}

static unsigned act_hint(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return learn_hint(app);
}

static unsigned act_solve(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return learn_solve(app);
}

static unsigned act_answer(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	app->typed_overflow = false;
	return learn_answer_begin(app);
}

static unsigned act_leave(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return learn_leave(app);
}

static unsigned act_menu(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return learn_menu_toggle(app);
}

static unsigned act_scroll(struct app *app, int arg, int key)
{
	(void)key;
	return learn_scroll(app, arg);
}

static unsigned act_counts(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return learn_counts_toggle(app);
}

/* key(s), label, hint name, help, help keys (NULL: the label; "": shown on
 * the line above), group, in the hint bar (F: the free workbench's, L: a
 * lesson's), function, argument, the action's name in lesson text */
enum { F = ACTIONS_BAR_FREE, L = ACTIONS_BAR_LESSON, FL = ACTIONS_BAR_BOTH };
static const struct action table[] = {
	{ { '?' }, "?", "help", "this help", NULL, "General", FL, act_help, 0, "help" },
	{ { 'q' }, "q", "quit", "save the session and quit", NULL, "General", FL, act_quit, 0, "quit" },
	{ { 'w' }, "w", "save", "save the session", NULL, "General", F, act_save, 0, "save" },
	{ { '\t' }, "Tab", "stage", "next / previous stage", "Tab S-Tab", "Move", F, act_stage, 1, "stage-next" },
	{ { KEY_BTAB }, "S-Tab", "prev stage", "previous stage", "", "Move", 0, act_stage, -1, NULL },
	{ { '1', '2', '3', '4', '5', '6', '7' }, "1-7", "jump", "jump to a stage", NULL, "Move", 0, act_stage_jump, 0, NULL },
	{ { KEY_LEFT, 'h' }, "Left h", "left", "move the cursor", "arrows hjkl", "Move", 0, act_move, 0, NULL },
	{ { KEY_DOWN, 'j' }, "Down j", "down", "cursor down", "", "Move", 0, act_move, 1, NULL },
	{ { KEY_UP, 'k' }, "Up k", "up", "cursor up", "", "Move", 0, act_move, 2, NULL },
	{ { KEY_RIGHT, 'l' }, "Right l", "right", "cursor right", "", "Move", 0, act_move, 3, NULL },
	{ { 'c' }, "c", "matrix", "next / previous matrix", "c C", "Move", F, act_panel, 1, NULL },
	{ { 'C' }, "C", "prev matrix", "previous matrix", "", "Move", 0, act_panel, -1, NULL },
	{ { 'L' }, "L", "next head", "next / previous head", "L H", "Move", 0, act_head, 1, NULL },
	{ { 'H' }, "H", "prev head", "previous head", "", "Move", 0, act_head, -1, NULL },
	{ { 'v' }, "v", "Q/K/V", "Q, K or V (stages 1, 2)", NULL, "Move", 0, act_proj, 0, NULL },
	{ { KEY_NPAGE }, "PgDn", "page", "page the heatmaps", "PgDn PgUp", "Move", 0, act_page, 1, NULL },
	{ { KEY_PPAGE }, "PgUp", "page", "previous heatmaps", "", "Move", 0, act_page, -1, NULL },
	{ { KEY_MOUSE }, "mouse", "mouse", "click goes, wheel scrolls", NULL, "Move", 0, act_mouse, 0, NULL },
	{ { '\n', '\r', KEY_ENTER }, "Enter", "edit", "type a value; Esc cancels", NULL, "Edit", FL, act_edit, 0, "edit" },
	{ { '+', '=' }, "+", "nudge", "nudge the cell by +-0.1", "+ -", "Edit", F, act_nudge, 1, "nudge-up" },
	{ { '-', '_' }, "-", "nudge", "subtract 0.1", "", "Edit", 0, act_nudge, -1, "nudge-down" },
	{ { '*' }, "*", "scale", "multiply a block of cells", NULL, "Edit", 0, act_scale, 0, "matrix-scale" },
	{ { 'u' }, "u", "undo", "undo (up to 64 levels)", NULL, "Edit", F, act_undo, 0, "undo" },
	{ { 'r' }, "r", "reseed", "new seed, new inputs", NULL, "Edit", 0, act_reseed, 1, NULL },
	{ { 'R' }, "R", "reset", "inputs back to the seed", NULL, "Edit", 0, act_reseed, 0, NULL },
	{ { ']' }, "]", "heads+", "more / fewer heads", "] [", "Shape", F, act_heads, 1, "heads-more" },
	{ { '[' }, "[", "heads-", "fewer heads", "", "Shape", 0, act_heads, -1, "heads-less" },
	{ { '}' }, "}", "d_k+", "larger / smaller d_k", "} {", "Shape", 0, act_dk, 1, "dk-more" },
	{ { '{' }, "{", "d_k-", "smaller d_k", "", "Shape", 0, act_dk, -1, "dk-less" },
	{ { '>' }, ">", "kv+", "more / fewer kv heads", "> <", "Shape", 0, act_kv, 1, "kv-more" },
	{ { '<' }, "<", "kv-", "fewer kv heads", "", "Shape", 0, act_kv, -1, "kv-less" },
	{ { '.' }, ".", "tokens+", "more / fewer tokens", ". ,", "Shape", 0, act_tokens, 1, "tokens-more" },
	{ { ',' }, ",", "tokens-", "fewer tokens", "", "Shape", 0, act_tokens, -1, "tokens-less" },
	{ { 'D' }, "D", "d_model+", "larger / smaller d_model", "D d", "Shape", 0, act_dmodel, 1, NULL },
	{ { 'd' }, "d", "d_model-", "smaller d_model", "", "Shape", 0, act_dmodel, -1, NULL },
	{ { 'm' }, "m", "mask", "causal mask on / off", NULL, "Shape", F, act_toggle, 0, "causal" },
	{ { 's' }, "s", "scale", "1/sqrt(d_k) on / off", NULL, "Shape", 0, act_toggle, 1, "scale" },
	{ { 't' }, "t", "top-k+", "top-k up / down (0 off)", "t T", "Shape", 0, act_topk, 1, "topk-more" },
	{ { 'T' }, "T", "top-k-", "top-k down", "", "Shape", 0, act_topk, -1, "topk-less" },
	{ { 'x' }, "x", "head off", "this head off / on", NULL, "Shape", 0, act_toggle, 2, "head-toggle" },
	{ { 'n' }, "n", "next", "next / previous step", "n p", "Lesson", L, act_step, 1, "next" },
	{ { 'p' }, "p", "prev", "previous lesson step", "", "Lesson", 0, act_step, -1, "prev" },
	{ { 'i' }, "i", "hint", "the next hint", NULL, "Lesson", L, act_hint, 0, "hint" },
	{ { 'S' }, "S", "solve", "apply the solution (u undoes it)", NULL, "Lesson", L, act_solve, 0, "solution" },
	{ { 'a' }, "a", "answer", "answer: a choice's key, or a number and Enter", NULL, "Lesson", L, act_answer, 0, "answer" },
	{ { 'f' }, "f", "free", "to the free workbench / back to the lesson", NULL, "Lesson", L, act_leave, 0, "leave" },
	{ { 'M' }, "M", "menu", "lesson menu: Up/Down or a number, Enter", NULL, "Lesson", L, act_menu, 0, "menu" },
	{ { 'J' }, "J", "scroll", "scroll the lesson text down / up", "J K", "Lesson", 0, act_scroll, 3, NULL },
	{ { 'K' }, "K", "scroll up", "scroll the lesson text up", "", "Lesson", 0, act_scroll, -3, NULL },
	{ { '#' }, "#", "counts", "below 130 columns: counts in place of the lesson pane", NULL, "Lesson", 0, act_counts, 0, NULL },
};

/* mha_weights_carry's rule (src/core/mha.h) */
const char actions_keep_rule[] =
	"] and [ keep h x d_k = d_model when it holds. On a shape change, a matrix "
	"whose h x d_k (g x d_k for W^K, W^V) is unchanged is only regrouped into "
	"heads: every cell keeps its place. Otherwise each cell whose row, head and "
	"column within the head still exist keeps its value, yours or the seed's. "
	"New cells come from the seed; token labels stay with their rows.";

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

const char *actions_key_name(const char *lesson_action)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].lesson_action && strcmp(table[i].lesson_action, lesson_action) == 0)
			return table[i].key_label;
	return NULL;
}

/* A key into a line being typed: Backspace removes, a printable
 * character is added while there is room (else app->typed_overflow says
 * one was dropped, and Enter refuses the line); anything else is ignored. */
static void type_into(struct app *app, char *buf, size_t size, int key)
{
	size_t len = strlen(buf);
	if (key == KEY_BACKSPACE || key == KEY_DEL || key == KEY_CTRL_H) {
		if (len > 0)
			buf[len - 1] = '\0';
	} else if (key >= 32 && key < 127 && len + 1 < size) {
		buf[len] = (char)key;
		buf[len + 1] = '\0';
	} else if (key >= 32 && key < 127) {
		app->typed_overflow = true;
	}
}

/* Enter on a line that lost characters: refused, said why. */
static bool refuse_overflow(struct app *app, size_t size)
{
	if (!app->typed_overflow)
		return false;
	app->typed_overflow = false;
	app_message(app, true, "not changed: more than %zu characters typed (the rest was dropped)", size - 1);
	return true;
}

/* The value being typed: digits and the rest go to the buffer, Enter
 * parses it with the core's parser, Esc cancels. */
static unsigned edit_key(struct app *app, int key)
{
	if (key == KEY_ESC) {
		app->editing = false;
		app_message(app, false, "edit cancelled");
		return APP_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		char msg[MHA_MSG_MAX];
		float v;
		app->editing = false;
		if (refuse_overflow(app, sizeof app->edit))
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
		snprintf(full, sizeof full, "%.9g", (double)v);
		app_message(app, false, "set to %s; everything downstream recomputed (u undoes)", full);
		return f;
	}
	type_into(app, app->edit, sizeof app->edit, key);
	return APP_REDRAW;
}

static unsigned help_key(struct app *app, int key)
{
	if (key == KEY_MOUSE && app->mouse.button != HIT_CLICK) { /* the wheel: three lines */
		for (int i = 0; i < 3; i++)
			help_key(app, app->mouse.button == HIT_WHEEL_DOWN ? KEY_DOWN : KEY_UP);
		return APP_REDRAW;
	}
	if (key == KEY_DOWN || key == 'j' || key == KEY_NPAGE) {
		/* no further than the table's length (more than the help's lines):
		 * else Up would have to undo every press past the end first */
		int count;
		actions_table(&count);
		app->help_scroll += key == KEY_NPAGE ? 10 : 1;
		if (app->help_scroll > count)
			app->help_scroll = count;
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

/* A factor being typed for the * key: Tab changes the block, Enter
 * applies (a leading '=' sets the cells instead), Esc cancels. */
static unsigned scale_key(struct app *app, int key)
{
	struct scale_block b;
	if (key == KEY_ESC || !actions_scale_block(app, &b)) {
		app->scaling = false;
		app_message(app, false, "nothing multiplied");
		return APP_REDRAW;
	}
	if (key == '\t') {
		do
			app->scale_scope = (app->scale_scope + 1) % 4;
		while (app->scale_scope == 1 && b.t == MHA_T_X); /* X has no head blocks */
		return APP_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		char msg[MHA_MSG_MAX], what[96];
		bool set = app->edit[0] == '=';
		float f;
		app->scaling = false;
		if (refuse_overflow(app, sizeof app->edit))
			return APP_REDRAW;
		if (mha_parse_value(app->edit + set, &f, msg, sizeof msg) != MHA_OK) {
			app_message(app, true, "not changed: %s", msg);
			return APP_REDRAW;
		}
		snprintf(what, sizeof what, "%s %s %.9g", b.name, set ? "=" : "*=", (double)f);
		return app_scale_cells(app, b.t, b.r0, b.r1, b.c0, b.c1, f, set, what);
	}
	type_into(app, app->edit, sizeof app->edit, key);
	return APP_REDRAW;
}

/* An answer being typed: a choice's key commits at once, a number with
 * Enter; Esc cancels. */
static unsigned answer_key(struct app *app, int key)
{
	if (key == KEY_ESC) {
		app->learn.answering = false;
		app_message(app, false, "answer cancelled");
		return APP_REDRAW;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		if (refuse_overflow(app, sizeof app->learn.answer)) {
			app->learn.answering = false;
			return APP_REDRAW;
		}
		return learn_answer_commit(app);
	}
	if (key == KEY_BACKSPACE || key == KEY_DEL || key == KEY_CTRL_H) {
		type_into(app, app->learn.answer, sizeof app->learn.answer, key);
		return APP_REDRAW;
	}
	if (key >= 32 && key < 127 && strlen(app->learn.answer) + 1 >= sizeof app->learn.answer) {
		app->typed_overflow = true; /* learn_answer_type would drop it */
		return APP_REDRAW;
	}
	return learn_answer_type(app, key);
}

/* The lesson menu's own keys; *f gets the flags. Any other key goes on
 * to the table (q quits, ? helps), the menu staying up. */
static bool menu_key(struct app *app, int key, unsigned *f)
{
	switch (key) {
	case KEY_UP: case 'k': *f = learn_menu_move(app, -1); return true;
	case KEY_DOWN: case 'j': *f = learn_menu_move(app, 1); return true;
	case '\n': case '\r': case KEY_ENTER: *f = learn_menu_choose(app); return true;
	case KEY_ESC: case 'M': *f = learn_menu_toggle(app); return true;
	default:
		if (key >= '0' && key <= '9') {
			*f = learn_menu_digit(app, key);
			return true;
		}
		return false;
	}
}

/* A value, a factor or an answer is being typed: it has the keys. */
static bool typing(const struct app *app)
{
	return app->editing || app->scaling || app->learn.answering;
}

unsigned app_mouse(struct app *app, int y, int x, enum hit_button button)
{
	if (typing(app))
		return 0; /* Enter or Esc first: a click never commits or drops what is typed */
	struct hit h = hit_at(&app->hits, y, x);
	if (button == HIT_CLICK && h.kind == HIT_ACTION && h.id >= 0 && h.id < (int)(sizeof table / sizeof table[0]))
		return app_key(app, table[h.id].keys[0]); /* a key hint: as if its key were pressed */
	app->mouse.y = y;
	app->mouse.x = x;
	app->mouse.button = button;
	return app_key(app, KEY_MOUSE);
}

unsigned app_key(struct app *app, int key)
{
	if (key == KEY_RESIZE)
		return APP_REDRAW;
	if (key == KEY_MOUSE && typing(app))
		return 0;
	if (app->notice && key != ERR) { /* read: the status line shows the cursor's cell again */
		app->notice = false;
		app->status_until_ms = 0;
	}
	if (app->editing)
		return edit_key(app, key);
	if (app->scaling) {
		struct mha_config before = app->cfg;
		unsigned f = scale_key(app, key);
		if (f & APP_RECOMPUTE)
			app_edited(app, &before);
		return f;
	}
	if (app->learn.answering)
		return answer_key(app, key);
	if (app->help_open)
		return help_key(app, key);
	unsigned mf;
	if (app->learn.menu && menu_key(app, key, &mf))
		return mf;
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
