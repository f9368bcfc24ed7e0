/*
 * actions.c - every key of the workbench, in one table (actions_table), and
 * what each does to the app: move, edit, page, save, and the lessons' keys
 * (learn.c does their work), the shape tweaks (shape.c) and the mouse
 * (workbench_mouse). The table feeds the key bindings, the help overlay,
 * the hint bar and every key a message names (actions_key_name). No
 * drawing; the modes other than the workbench have their own keys
 * (mode.h).
 */
#include "actions.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "analysis_view.h"
#include "answer_prompt.h"
#include "flash_view.h"
#include "heat_view.h"
#include "decode_view.h"
#include "export_key.h"
#include "help.h"
#include "kv_view.h"
#include "label_prompt.h"
#include "mask_view.h"
#include "learn.h"
#include "menu.h"
#include "mha.h"
#include "scale_prompt.h"
#include "shape.h"
#include "value_prompt.h"
#include "train_view.h"
#include "workbench.h"

#define NUDGE 0.1f

static unsigned act_help(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return help_toggle(app);
}

static unsigned act_quit(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return actions_quit(app);
}

static unsigned act_mouse(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return workbench_mouse(app);
}

static unsigned act_edit(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return value_prompt_open(app);
}

static unsigned act_scale(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return scale_prompt_open(app);
}

unsigned actions_quit(struct app *app)
{
	if (app->quit_armed)
		return APP_QUIT;
	if (app_save(app) == 0)
		return APP_QUIT;
	app->quit_armed = true;
	size_t l = strlen(app->status);
	snprintf(app->status + l, sizeof app->status - l, "; press %s again to quit without saving",
	         actions_key_name("quit"));
	return APP_REDRAW;
}

static unsigned act_save(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	/* in a lesson the session is the free workbench's, not the lesson's
	 * numbers (those are kept with the progress at quit): say which */
	if (app_save(app) == 0 && app->learn.active && !strncmp(app->status, "saved to ", 9))
		app_message(app, false, "saved the free workbench to %s (this lesson's numbers are kept "
		            "with your progress)", app->session_path);
	return APP_REDRAW;
}

static unsigned act_stage(struct app *app, int arg, int key)
{
	(void)key;
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

static unsigned act_nudge(struct app *app, int arg, int key)
{
	(void)key;
	if (!workbench_cursor_editable(app))
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
		snprintf(what, sizeof what, "new seed %llu: every input drawn again (%s undoes)", seed,
		         actions_key_name("undo"));
	else
		snprintf(what, sizeof what, "reset to seed %llu: edits dropped (%s undoes)", seed,
		         actions_key_name("undo"));
	return app_reseed(app, seed, what);
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
	return answer_prompt_open(app);
}

static unsigned act_leave(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return learn_leave(app);
}

static unsigned act_menu(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return menu_toggle(app);
}

static unsigned act_scroll(struct app *app, int arg, int key)
{
	(void)key;
	return learn_scroll(app, arg);
}

/* Ctrl-L, as in every terminal program: the next refresh repaints every
 * cell (after another program or a line noise scribbled on the screen). */
static unsigned act_redraw(struct app *app, int arg, int key)
{
	(void)app; (void)arg; (void)key;
	if (curscr)
		clearok(curscr, TRUE);
	return APP_REDRAW;
}

static unsigned act_counts(struct app *app, int arg, int key)
{
	(void)arg; (void)key;
	return learn_counts_toggle(app);
}

/* key(s), label, hint name, help, help keys (NULL: the label; "": shown on
 * the line above), group, in the hint bar (F: the free workbench's, L: a
 * lesson's), function, argument, its id (actions_key_name; lessons name
 * some in {key:ACTION}) */
enum { F = ACTIONS_BAR_FREE, L = ACTIONS_BAR_LESSON, FL = ACTIONS_BAR_BOTH };
static const struct action table[] = {
	{ { '?' }, "?", "help", "this help", NULL, "General", FL, act_help, 0, "help" },
	{ { 'q' }, "q", "quit", "save the session and quit", NULL, "General", FL, act_quit, 0, "quit" },
	{ { 'w' }, "w", "save", "save the session", NULL, "General", 0, act_save, 0, "save" },
	{ { 'L' - '@' }, "C-l", "redraw", "redraw the whole screen", NULL, "General", 0, act_redraw, 0, "redraw" },
	{ { 'E' }, "E", "export", "write .py check and .svg", NULL, "General", 0, export_key_run, 0, "export" },
	{ { 'o' }, "o", "decode", "decode token by token", NULL, "General", 0, decode_view_toggle, 0, "decode" },
	{ { 'P' }, "P", "masks", "masks: padding, window", NULL, "General", 0, mask_view_toggle, 0, "masks" },
	{ { 'N' }, "N", "words", "type your own sentence", NULL, "General", 0, label_prompt_open, 0, "sentence" },
	{ { 'g' }, "g", "KV cache", "KV cache at model scale", NULL, "General", 0, kv_view_toggle, 0, "kv-cache" },
	{ { '\t' }, "Tab", "stage", "next / previous stage", "Tab S-Tab", "Move", F, act_stage, 1, "stage-next" },
	{ { KEY_BTAB }, "S-Tab", "prev stage", "previous stage", "", "Move", 0, act_stage, -1, "stage-prev" },
	{ { '1', '2', '3', '4', '5', '6', '7' }, "1-7", "jump", "jump to a stage", NULL, "Move", 0, act_stage_jump, 0, "stage-jump" },
	{ { KEY_LEFT, 'h' }, "Left h", "left", "move the cursor", "arrows hjkl", "Move", 0, act_move, 0, "left" },
	{ { KEY_DOWN, 'j' }, "Down j", "down", "cursor down", "", "Move", 0, act_move, 1, "down" },
	{ { KEY_UP, 'k' }, "Up k", "up", "cursor up", "", "Move", 0, act_move, 2, "up" },
	{ { KEY_RIGHT, 'l' }, "Right l", "right", "cursor right", "", "Move", 0, act_move, 3, "right" },
	{ { 'c' }, "c", "matrix", "next / previous matrix", "c C", "Move", F, act_panel, 1, "matrix-next" },
	{ { 'C' }, "C", "prev matrix", "previous matrix", "", "Move", 0, act_panel, -1, "matrix-prev" },
	{ { 'L' }, "L", "next head", "next / previous head", "L H", "Move", 0, act_head, 1, "head-next" },
	{ { 'H' }, "H", "prev head", "previous head", "", "Move", 0, act_head, -1, "head-prev" },
	{ { 'v' }, "v", "Q/K/V", "Q, K or V (stages 1, 2)", NULL, "Move", 0, act_proj, 0, "qkv" },
	{ { KEY_NPAGE }, "PgDn", "page", "page the heatmaps", "PgDn PgUp", "Move", 0, act_page, 1, "page-next" },
	{ { KEY_PPAGE }, "PgUp", "page", "previous heatmaps", "", "Move", 0, act_page, -1, "page-prev" },
	{ { 'e' }, "e", "heat scale", "heatmap scale (cycles)", NULL, "Move", 0, heat_view_scale_next, 0, "heat-scale" },
	{ { 'F' }, "F", "flash", "FlashAttention by tiles", NULL, "Move", 0, flash_view_open, 0, "flash" },
	{ { KEY_MOUSE }, "mouse", "mouse", "click goes, wheel scrolls", NULL, "Move", 0, act_mouse, 0, "mouse" },
	{ { '\n', '\r', KEY_ENTER }, "Enter", "edit", "type a value; Esc cancels", NULL, "Edit", FL, act_edit, 0, "edit" },
	{ { '+', '=' }, "+", "nudge", "nudge the cell by +-0.1", "+ -", "Edit", F, act_nudge, 1, "nudge-up" },
	{ { '-', '_' }, "-", "nudge", "subtract 0.1", "", "Edit", 0, act_nudge, -1, "nudge-down" },
	{ { '*' }, "*", "scale", "multiply a block of cells", NULL, "Edit", 0, act_scale, 0, "matrix-scale" },
	{ { 'u' }, "u", "undo", "undo (up to 64 levels)", NULL, "Edit", F, act_undo, 0, "undo" },
	{ { 'r' }, "r", "reseed", "new seed, new inputs", NULL, "Edit", 0, act_reseed, 1, "reseed" },
	{ { 'R' }, "R", "reset", "inputs back to the seed", NULL, "Edit", 0, act_reseed, 0, "reset" },
	{ { ']' }, "]", "heads+", "more / fewer heads", "] [", "Shape", 0, shape_heads, 1, "heads-more" },
	{ { '[' }, "[", "heads-", "fewer heads", "", "Shape", 0, shape_heads, -1, "heads-less" },
	{ { '}' }, "}", "d_k+", "larger / smaller d_k", "} {", "Shape", 0, shape_dk, 1, "dk-more" },
	{ { '{' }, "{", "d_k-", "smaller d_k", "", "Shape", 0, shape_dk, -1, "dk-less" },
	{ { '>' }, ">", "kv+", "more / fewer kv heads", "> <", "Shape", 0, shape_kv, 1, "kv-more" },
	{ { '<' }, "<", "kv-", "fewer kv heads", "", "Shape", 0, shape_kv, -1, "kv-less" },
	{ { '.' }, ".", "tokens+", "more / fewer tokens", ". ,", "Shape", 0, shape_tokens, 1, "tokens-more" },
	{ { ',' }, ",", "tokens-", "fewer tokens", "", "Shape", 0, shape_tokens, -1, "tokens-less" },
	{ { 'D' }, "D", "d_model+", "larger / smaller d_model", "D d", "Shape", 0, shape_dmodel, 1, "dmodel-more" },
	{ { 'd' }, "d", "d_model-", "smaller d_model", "", "Shape", 0, shape_dmodel, -1, "dmodel-less" },
	{ { 'm' }, "m", "mask", "causal mask on / off", NULL, "Shape", F, shape_toggle, 0, "causal" },
	{ { 's' }, "s", "scale", "1/sqrt(d_k) on / off", NULL, "Shape", 0, shape_toggle, 1, "scale" },
	{ { 't' }, "t", "top-k+", "top-k up / down (0 off)", "t T", "Shape", 0, shape_topk, 1, "topk-more" },
	{ { 'T' }, "T", "top-k-", "top-k down", "", "Shape", 0, shape_topk, -1, "topk-less" },
	{ { 'x' }, "x", "head off", "this head off / on", NULL, "Shape", 0, shape_toggle, 2, "head-toggle" },
	{ { 'n' }, "n", "next", "next / previous step", "n p", "Lesson", L, act_step, 1, "next" },
	{ { 'p' }, "p", "prev", "previous lesson step", "", "Lesson", 0, act_step, -1, "prev" },
	{ { 'i' }, "i", "hint", "the next hint", NULL, "Lesson", L, act_hint, 0, "hint" },
	{ { 'S' }, "S", "solve", "apply the solution (u undoes it)", NULL, "Lesson", L, act_solve, 0, "solution" },
	{ { 'a' }, "a", "answer", "answer: a choice's key, or a number and Enter", NULL, "Lesson", L, act_answer, 0, "answer" },
	{ { 'f' }, "f", "free", "to the free workbench / back to the lesson", NULL, "Lesson", L, act_leave, 0, "leave" },
	{ { 'M' }, "M", "menu", "lesson menu: Up/Down or a number, Enter", NULL, "Lesson", FL, act_menu, 0, "menu" },
	{ { 'J' }, "J", "scroll", "scroll the lesson text down / up", "J K", "Lesson", 0, act_scroll, 3, "scroll-down" },
	{ { 'K' }, "K", "scroll up", "scroll the lesson text up", "", "Lesson", 0, act_scroll, -3, "scroll-up" },
	{ { '#' }, "#", "counts", "below 130 columns: counts in place of the lesson pane", NULL, "Lesson", 0, act_counts, 0, "counts" },
	{ { 'G' }, "G", "train", "watch a tiny model's heads learn", NULL, "Train", 0, train_view_open, 0, "train" },
	{ { 'A' }, "A", "analysis", "head analysis: patterns, importance, prune", NULL, "Train", 0, analysis_view_toggle, 0, "analysis" },
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

const char *actions_key_name(const char *id)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].id && strcmp(table[i].id, id) == 0)
			return table[i].key_label;
	return NULL;
}
