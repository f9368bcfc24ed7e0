/*
 * workbench.c - the workbench mode: the seven stage screens of the
 * pipeline, its keys in workbench_keys.c. It draws
 * the body (the stage's formula and shape, its matrices through panels.c,
 * its heatmaps through heat_strip.c, the counts) and the status line (a
 * message, or the cursor's cell and what it was computed from); the side
 * pane is the lesson pane (lesson_pane.c). It reads the state and never
 * changes it while drawing; every number comes from the core's
 * activations. The mouse is one more action (KEY_MOUSE): workbench_mouse
 * looks up what the last drawing put under the pointer (hit.h). Every
 * other mode returns to this one.
 */
#include "workbench.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "cell_text.h"
#include "counts_panel.h"
#include "draw.h"
#include "fmt.h"
#include "heat_strip.h"
#include "learn.h"
#include "lesson_menu.h"
#include "lesson_pane.h"
#include "pane.h"
#include "panels.h"
#include "pipeline.h"
#include "theme.h"

/* A heatmap cell: its head, and the cursor on that cell of the stage's
 * matrix of it; stages with no such matrix (Concat, W^O) say its value. */
static unsigned mouse_heat(struct app *app, int head, int r, int c)
{
	int n = app->cfg.n;
	if (head < 0 || head >= app->cfg.h || r < 0 || r >= n || c < 0 || c >= n)
		return 0;
	app->head = head;
	enum mha_tensor t = app->stage == PIPELINE_SCORES ? MHA_T_SCORES : MHA_T_WEIGHTS;
	struct stage_view v;
	app_view(app, &v);
	for (int i = 0; i < v.count; i++)
		if (v.p[i].t == t && v.p[i].m == head && !v.p[i].proof && !v.p[i].write) {
			app->cur[app->stage] = (struct app_cursor){ i, r, c };
			app_clamp(app);
			return APP_REDRAW;
		}
	app_clamp(app);
	char text[APP_STATUS_MAX];
	const float *m = t == MHA_T_SCORES ? app->a.scores : app->a.weights;
	struct cell cell = { t, head, r, c };
	cell_text_value(app, &cell, m[((size_t)head * n + r) * n + c], learn_hidden(app, t, head, r, c), true,
	                APP_STATUS_MAX - 1, 9, text, sizeof text);
	app_message(app, false, "%s", text);
	return APP_REDRAW;
}

/* The wheel: the lesson text where it scrolls, the menu's selection while
 * the menu has the keys, else the cursor a row (dir 1: down). */
static unsigned mouse_wheel(struct app *app, const struct hit *h, int dir)
{
	if (h->kind == HIT_PANE && app->learn.scroll_max > 0)
		return learn_scroll(app, 3 * dir);
	if (h->kind == HIT_MENU && mode_is(app, "menu"))
		return learn_menu_move(app, dir);
	app->cur[app->stage].row += dir;
	app_clamp(app);
	return APP_REDRAW;
}

unsigned workbench_mouse(struct app *app)
{
	struct hit h = hit_at(&app->hits, app->mouse.y, app->mouse.x);
	if (app->mouse.button != HIT_CLICK)
		return mouse_wheel(app, &h, app->mouse.button == HIT_WHEEL_DOWN ? 1 : -1);
	switch (h.kind) {
	case HIT_STAGE:
		if (h.id < 0 || h.id >= PIPELINE_STAGE_COUNT)
			return 0;
		app->stage = (enum pipeline_stage)h.id;
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

/* The message while it shows; else the cursor's cell, its value and what
 * it was computed from. */
static bool workbench_status(const struct app *app, const struct frame *f, struct rect r)
{
	char line[APP_STATUS_MAX + 128];
	if (app->status[0] && app->now_ms < app->status_until_ms) {
		draw_message(r.y, r.x, r.w, app->status, theme_attr(app->status_error ? ROLE_ERROR : ROLE_NORMAL));
		return true;
	}
	if (!f->has_cursor)
		return true;
	cell_text_status(app, &f->cursor, f->cursor_panel, r.w, line, sizeof line);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* With biases on, the Projection and W^O stages' note is the bias their
 * formula adds: "b^Q 16: 0.12 -0.31 ..." in at most width columns. */
static const char *bias_note(const struct app *app, const char *note, char *out, size_t len, int width)
{
	const struct mha_config *c = &app->cfg;
	if (!c->bias || (app->stage != PIPELINE_PROJECTION && app->stage != PIPELINE_OUTPUT))
		return note;
	int k = app->stage == PIPELINE_OUTPUT ? 3 : app->proj >= 0 && app->proj < PROJ_COUNT ? (int)app->proj : 0;
	struct mha_bias b = mha_bias_layer(&app->w, c, app->layer, k);
	size_t l = (size_t)snprintf(out, len, "%s %d:", b.name, b.len);
	for (int i = 0; i < b.len && l < len; i++) {
		char num[32];
		fmt_num(num, sizeof num, b.p[i], 5);
		bool last = i == b.len - 1;
		if ((int)(l + 1 + strlen(num) + (last ? 0 : 4)) > width) {
			snprintf(out + l, len - l, " ...");
			break;
		}
		l += (size_t)snprintf(out + l, len - l, " %s", num);
	}
	return out;
}

/* The shape in three forms, the first explaining each letter (h_kv is
 * the lessons' name for the kv heads, the core's g): long "n 6 tokens,
 * d 16 model width, ...", spaced "n 6  d 16  h 4  h_kv 4  d_k 4",
 * squeezed "n6 d16 h4 h_kv4 d_k4". The menu's legend explains the short
 * forms. */
static void shape_forms(const struct mha_config *c, char f[3][128])
{
	/* cross-attention: the source's m tokens after the queries' n */
	char m[3][32] = { "", "", "" };
	if (c->m > 0) {
		snprintf(m[0], sizeof m[0], " m %d source tokens,", c->m);
		snprintf(m[1], sizeof m[1], "  m %d", c->m);
		snprintf(m[2], sizeof m[2], " m%d", c->m);
	}
	snprintf(f[0], 128, "n %d tokens,%s d %d model width, h %d head%s, h_kv %d KV head%s, d_k %d per head", c->n,
	         m[0], c->d, c->h, c->h == 1 ? "" : "s", c->g, c->g == 1 ? "" : "s", c->dk);
	snprintf(f[1], 128, "n %d%s  d %d  h %d  h_kv %d  d_k %d", c->n, m[1], c->d, c->h, c->g, c->dk);
	snprintf(f[2], 128, "n%d%s d%d h%d h_kv%d d_k%d", c->n, m[2], c->d, c->h, c->g, c->dk);
}

/* Two lines: the formula, the shape and the stage's note, each whole or
 * in its short form (draw_fit). The shape goes beside the formula in the
 * widest form that fits there, else before the note in the widest form
 * that leaves the note whole (squeezed when none does). On Softmax the
 * note ends by saying what the H column is, when there is room. */
static void draw_info(const struct app *app, const struct stage_view *v, struct rect r)
{
	char f[3][128], note[320], bias[128], keyed[160];
	shape_forms(&app->cfg, f);
	const char *vnote = v->note, *mark = v->note_key ? strstr(v->note, "%s") : NULL;
	if (mark) { /* the note names a key: the action's, from the app's tables */
		snprintf(keyed, sizeof keyed, "%.*s%s%s", (int)(mark - v->note), v->note,
		         mode_key_name(app, v->note_key), mark + 2);
		vnote = keyed;
	}
	const char *base = bias_note(app, vnote, bias, sizeof bias, r.w);
	snprintf(note, sizeof note, "%s%s", base,
	         app->stage == PIPELINE_SOFTMAX ? "  H = row entropy in nats (0 = one key, ln n = uniform)" : "");
	int fw = draw_width(v->formula), nw = draw_width(base);
	/* the shapes end a little before a side column's text (3 columns
	 * apart), so that they do not read on into it */
	int margin = getmaxx(stdscr) > r.x + r.w ? 2 : 0;
	attr_t dim = theme_attr(ROLE_DIM);
	for (int k = 0; k < 2; k++) {
		int sw = draw_width(f[k]);
		if (fw + 2 + sw + margin <= r.w) {
			draw_put(r.y, r.x, fw, v->formula, theme_attr(ROLE_TITLE));
			draw_put(r.y, r.x + r.w - margin - sw, sw, f[k], dim);
			draw_fit(r.y + 1, r.x, r.w, note, dim);
			return;
		}
		if (sw + 3 + nw <= r.w || k == 1)
			break;
	}
	draw_fit(r.y, r.x, r.w, v->formula, theme_attr(ROLE_TITLE));
	int k = draw_width(f[0]) + 3 + nw <= r.w ? 0 : draw_width(f[1]) + 3 + nw <= r.w ? 1 : 2;
	int sw = draw_put(r.y + 1, r.x, r.w, f[k], dim);
	draw_fit(r.y + 1, r.x + sw + 3, r.w - sw - 3, note, dim);
}

static void draw_wrapped(struct rect r, const char *text, attr_t a);

/* Predict, then reveal: the stage the lesson hides, in place of its
 * numbers (shapes and formulas too: they can give the answer away). */
static void draw_hidden_stage(const struct app *app, struct rect r)
{
	int from = 0;
	while (from < PIPELINE_STAGE_COUNT && !learn_stage_hidden(app, (enum pipeline_stage)from))
		from++;
	char msg[320];
	snprintf(msg, sizeof msg, "%s%s stays hidden until you answer the lesson's question right: %s, "
	         "then your answer. A wrong answer shows nothing (%s shows the solution).",
	         pipeline_stage_label((enum pipeline_stage)from),
	         from + 1 < PIPELINE_STAGE_COUNT ? " and every later stage" : "", mode_key_name(app, "answer"),
	         mode_key_name(app, "solution"));
	draw_wrapped(r, msg, theme_attr(ROLE_TITLE));
}

/* Wrapped text from (r.y, r.x), as many lines as r holds. */
static void draw_wrapped(struct rect r, const char *text, attr_t a)
{
	struct lesson_text t = { 0 };
	lesson_wrap(&t, text, r.w, LESSON_LINE_PROSE, NULL, NULL);
	for (int i = 0; i < t.count && i < r.h; i++)
		draw_put(r.y + i, r.x, r.w, t.lines[i].text, a);
	lesson_text_free(&t);
}

static void draw_counts(const struct app *app, struct rect r, struct rect pane)
{
	if (r.h <= 0)
		return;
	/* the first screen at 80 columns: the menu's legend in the compact
	 * counts' place, so that the list keeps its lessons; not when the
	 * menu has room for it in its foot (once on the screen) */
	if (mode_is(app, "menu") && r.h <= LAYOUT_PANE_COUNT_LINES && !lesson_menu_legend_shown(app, pane)) {
		draw_wrapped(r, lesson_menu_legend(), theme_attr(ROLE_DIM));
		return;
	}
	if (!learn_counts_hidden(app)) {
		counts_panel_draw(stdscr, r.y, r.x, r.h, r.w, &app->cfg);
		return;
	}
	draw_put(r.y, r.x, r.w, "Counts", theme_attr(ROLE_TITLE));
	draw_put(r.y + 1, r.x, r.w, "hidden until answered right", theme_attr(ROLE_DIM));
}

/* The body at layout l: two lines of formula and shape, the matrices,
 * the heatmaps (from Scores on), the counts; the cell width the matrices
 * fit. */
static struct body_layout body_at(const struct app *app, const struct frame *f, const struct layout *l, int cols)
{
	const struct stage_view *v = &f->view;
	int nw = layout_numbers_width(l), cw = panels_cell_width(v, nw, cols), rows = 0;
	/* in a lesson the step's matrix keeps its rows (title and header, and
	 * the Reshape and Output proofs' two lines), and the others its text names some,
	 * before the heatmaps keep theirs */
	int least = panels_focus(app, v, &rows) >= 0 ? rows + 2 + (app->stage == PIPELINE_RESHAPE || app->stage == PIPELINE_OUTPUT ? 2 : 0) : 0;
	least += least > 0 ? panels_named_rows(app, v) : 0; /* and the matrices its text names */
	int want = panels_rows(app, v, nw, cw);
	/* Concat and W^O: the heatmaps (P) are not what the stage is about,
	 * so they give way before any of its matrices' rows do */
	if (app->stage == PIPELINE_CONCAT || app->stage == PIPELINE_OUTPUT)
		least = want > least ? want : least;
	struct body_layout b = layout_body_min(l, pipeline_stage_info(app->stage)->heatmaps, app->cfg.n, mha_keys(&app->cfg),
	                                       app->cfg.h,
	                                       counts_panel_height, want, least);
	b.numbers_cell_w = cw;
	b.body_h = l->body.h;
	return b;
}

/* How readable the stage's matrices are in b: each counts the columns it
 * shows up to PANELS_READABLE_COLS (fewer when it has fewer), so that
 * three matrices of 3 columns beat 9 columns of one beside slivers of 2. */
static int readable_cols(const struct app *app, const struct frame *f, const struct body_layout *b)
{
	const struct stage_view *v = &f->view;
	struct rect got[STAGE_PANELS_MAX];
	int cws[STAGE_PANELS_MAX], sum = 0;
	panels_cell_widths(app, v, b->numbers.w, b->numbers_cell_w, cws);
	panels_place(app, v, b->numbers, b->numbers_cell_w, got);
	for (int i = 0; i < v->count; i++) {
		int shown = panels_cols_shown(&v->p[i], got[i], cws[i]);
		sum += shown < PANELS_READABLE_COLS ? shown : PANELS_READABLE_COLS;
	}
	return sum;
}

/* The body. Narrow with no side column, the counts column narrows by the
 * column or two that a matrix lacks to show whole, and gives all its
 * width to the matrices where they would be slivers beside it (80x24,
 * Scores and Weighted sum: three matrices of 2-3 columns): the stage's
 * numbers are what it is about, the counts show on the other stages. */
static struct body_layout workbench_layout(const struct app *app, const struct frame *f, const struct layout *l,
                                           int cols)
{
	if (l->side.w > 0 || l->too_small || learn_stage_hidden(app, app->stage))
		return body_at(app, f, l, cols);
	/* a matrix a column or two wider than its room (d_model 16 at 120
	 * columns: 101 of 99): the counts column narrows to its brief labels */
	struct layout narrow = *l;
	int nw = layout_numbers_width(l);
	int excess = panels_widest(app, &f->view, nw, panels_cell_width(&f->view, nw, cols)) - nw;
	if (excess > 0 && excess <= LAYOUT_COUNTS_COLS - LAYOUT_COUNTS_MIN_COLS)
		narrow.counts_w = LAYOUT_COUNTS_COLS - excess;
	struct body_layout b = body_at(app, f, &narrow, cols);
	struct layout wide = *l;
	wide.counts_off = true;
	struct body_layout w = body_at(app, f, &wide, cols);
	return readable_cols(app, f, &w) > readable_cols(app, f, &b) ? w : b;
}

static void workbench_body(const struct app *app, const struct frame *f, const struct body_layout *b,
                           struct hit_map *hits)
{
	if (learn_stage_hidden(app, app->stage)) {
		struct rect all = { b->info.y, b->info.x, b->body_h, b->info.w };
		draw_hidden_stage(app, all);
	} else {
		draw_info(app, &f->view, b->info);
		panels_draw(app, f, b->numbers, b->numbers_cell_w, hits);
		heat_strip_draw(app, f, b, hits);
	}
	draw_counts(app, b->counts, b->lesson);
}

const struct mode_ops workbench_mode = {
	.name = "workbench",
	.keys = workbench_keys,
	.status = workbench_status,
	.layout = workbench_layout,
	.body = workbench_body,
	.pane = lesson_pane_draw,
};
