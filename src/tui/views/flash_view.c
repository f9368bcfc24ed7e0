/*
 * flash_view.c - the FlashAttention mode: the current head's scores with
 * the current query tile and key/value tile outlined, and for the tile's
 * rows the running max m, the running sum l, the rescale factor when m
 * grows and the partial output row, step by step (Left/Right), with the
 * tile sizes editable ([ ] B_r, { } B_c). At a query tile's last step its
 * rows are O = o / l, said on screen against the plain P V with the
 * difference. A memory meter compares the bytes the plain path
 * materialises with the bytes the tiles hold, for the current n and for
 * the paper's base model at a context length the learner sets (< >).
 *
 * A lesson step may open it (@flash, lessons/README.md) and put it in its
 * predict state: the step the learner predicts stays hidden (its tile
 * underlined as the next one, "?" for its numbers) and Right stops before
 * it until the step's question is answered; the answer itself is this
 * recording's number (lesson_run.live), never one typed in the lesson.
 * What a lesson step asks of the view is flash_lesson.c's; this file
 * records, takes the keys and draws.
 *
 * The numbers come from the engine's recording (mha_flash_record), made
 * when the view opens, a tile size or the head changes, or the inputs are
 * recomputed (its recompute hook); the drawing only reads it. The state
 * is the view's private state (mode_state), so two apps never share it.
 * The view is closed: of the workbench's keys only those that cannot
 * change the workbench under it work here (q, ?, and the lesson's keys,
 * listed in its table).
 */
#include "flash_view.h"
#include "flash_view_int.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "draw.h"
#include "engine.h"
#include "fmt.h"
#include "mode.h"
#include "pipeline.h"
#include "theme.h"

enum { BASE_H = 8, BASE_DK = 64, CONTEXT_MIN = 64, CONTEXT_MAX = 1 << 20 };

struct flash_view *flash_view_state(struct app *app)
{
	struct flash_view *fv = mode_state(app, &flash_mode);
	if (fv && fv->br == 0) /* made just now */
		*fv = (struct flash_view){ .br = 2, .bc = 2, .context = 4096 };
	return fv;
}

const struct flash_view *flash_view_now(const struct app *app)
{
	return mode_state_if(app, &flash_mode);
}

static void flash_done(void *state)
{
	struct flash_view *fv = state;
	mha_flash_record_free(&fv->rec);
}

int flash_view_step(const struct app *app)
{
	const struct flash_view *fv = flash_view_now(app);
	return fv ? fv->step : 0;
}

void flash_view_record(struct app *app, struct flash_view *fv)
{
	const struct mha_config *c = &app->cfg;
	mha_flash_record_free(&fv->rec);
	fv->error[0] = '\0';
	fv->final_diff = 0.0;
	if (mha_flash_record(&fv->rec, c, &app->a, app->head, fv->br, fv->bc, fv->error,
	                     sizeof fv->error) == MHA_OK) {
		fv->br = fv->rec.br;
		fv->bc = fv->rec.bc;
		const float *plain = app->a.heads + (size_t)app->head * c->n * c->dk;
		for (size_t i = 0; i < (size_t)c->n * c->dk; i++)
			fv->final_diff = fmax(fv->final_diff, fabs((double)fv->rec.out[i] - plain[i]));
	}
	int last = flash_lesson_last(app);
	if (fv->step > last)
		fv->step = last;
	flash_lesson_live(app, fv);
}

/* F on Scores or Softmax, or a lesson step's @flash: record the current
 * head tile by tile (a lesson step: at its tiles and step). */
static bool flash_enter(struct app *app)
{
	const struct lesson_flash *f = flash_lesson_step(app);
	if (app->cfg.m > 0) { /* the tiled kernel (src/engine/flash.c) walks n x n tiles only */
		app_message(app, true, "FlashAttention tiles n x n self-attention: %s with no words drops the source",
		            mode_key_name(app, "source"));
		return false;
	}
	if (!f && app->stage != PIPELINE_SCORES && app->stage != PIPELINE_SOFTMAX) {
		app_message(app, true, "FlashAttention tiles the scores and the softmax: "
		            "open it from %s or %s", pipeline_stage_label(PIPELINE_SCORES),
		            pipeline_stage_label(PIPELINE_SOFTMAX));
		return false;
	}
	struct flash_view *fv = flash_view_state(app);
	if (!fv) {
		app_message(app, true, "out of memory for the FlashAttention view");
		return false;
	}
	if (flash_lesson_refuse_open(app))
		return false;
	if (f) {
		flash_lesson_setup(app, fv, f);
	} else {
		fv->step = 0;
		flash_view_record(app, fv);
	}
	return true;
}

/* After every forward pass: record again while the view is open or the
 * lesson step uses it, and hand the lesson's live question its numbers
 * (lesson_run.live). */
static void flash_recompute(struct app *app)
{
	struct flash_view *fv = mode_state_if(app, &flash_mode);
	if (fv && (app->mode == &flash_mode || flash_lesson_step(app)))
		flash_view_record(app, fv);
}

static bool flash_owns_step(const struct app *app)
{
	return flash_lesson_step(app) != NULL;
}

static unsigned retile(struct app *app, struct flash_view *fv, int *size, int by)
{
	if (flash_lesson_refuse_tiles(app))
		return APP_REDRAW;
	*size += by;
	if (*size < 1)
		*size = 1;
	if (*size > app->cfg.n)
		*size = app->cfg.n;
	fv->step = 0;
	flash_view_record(app, fv);
	return APP_REDRAW;
}

static unsigned step_by(struct app *app, int arg)
{
	struct flash_view *fv = flash_view_state(app);
	int last = flash_lesson_last(app);
	if (arg > 0 && fv->step >= last)
		flash_lesson_refuse_past(app);
	int to = arg == -2 ? 0 : arg == 2 ? last : fv->step + arg;
	fv->step = to < 0 ? 0 : to > last ? last : to;
	return APP_REDRAW;
}

static unsigned tiles_by(struct app *app, int arg)
{
	struct flash_view *fv = flash_view_state(app);
	/* arg: +-1 the query rows a tile (B_r), +-2 the keys (B_c) */
	return retile(app, fv, arg == 1 || arg == -1 ? &fv->br : &fv->bc, arg > 0 ? 1 : -1);
}

static unsigned context_by(struct app *app, int arg)
{
	struct flash_view *fv = flash_view_state(app);
	fv->context = arg > 0 ? fv->context * 2 : fv->context / 2;
	fv->context = fv->context < CONTEXT_MIN ? CONTEXT_MIN : fv->context > CONTEXT_MAX ? CONTEXT_MAX : fv->context;
	return APP_REDRAW;
}

static unsigned head_by(struct app *app, int arg)
{
	struct flash_view *fv = flash_view_state(app);
	if (flash_lesson_refuse_tiles(app))
		return APP_REDRAW;
	app->head = (app->head + arg + app->cfg.h) % app->cfg.h;
	fv->step = 0;
	flash_view_record(app, fv);
	return APP_REDRAW;
}

static bool flash_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	char line[160];
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message (a refusal, an answer's verdict): the workbench shows it */
	const struct flash_view *fv = flash_view_now(app);
	if (flash_view_hidden_step(app) >= 0)
		snprintf(line, sizeof line, "predict the next tile: %s answers, then Right shows it",
		         mode_key_name(app, "answer"));
	else if (flash_lesson_step(app))
		snprintf(line, sizeof line, "Left/Right step, up to step %d in this lesson step", flash_lesson_last(app) + 1);
	else if (fv)
		snprintf(line, sizeof line, "FlashAttention: step %d of %d, head %d, tiles B_r %d x B_c %d",
		         fv->step + 1, fv->rec.steps, fv->rec.head, fv->rec.br, fv->rec.bc);
	else
		return false;
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* The body for the tiles; in a lesson the side column for its pane (the
 * step's text and question), whole: the counts say nothing here. */
static struct body_layout flash_layout(const struct app *app, const struct frame *f, const struct layout *l, int cols)
{
	(void)f;
	(void)cols;
	struct body_layout b = { 0 };
	b.info = l->body;
	b.body_h = l->body.h;
	if (app->learn.enabled && l->side.w > 0 && l->side.h > 0)
		b.lesson = l->side;
	return b;
}

/* The head's scores, n x n, cell by cell: the step's tile reversed, the
 * keys of its query tile already met plain, the predicted step's tile
 * (next, when the predict state holds) marked, the rest dim, masked cells
 * "-". Returns the width drawn. */
static int draw_scores(const struct app *app, const struct mha_flash_step *st,
                       const struct mha_flash_step *next, int y, int x, int rows, int width)
{
	const int n = app->cfg.n, cw = 5 + n * 7 <= width ? 7 : 6;
	const float *s = app->a.scores + (size_t)flash_view_now(app)->rec.head * n * n;
	int shown = (width - 5) / cw < n ? (width - 5) / cw : n;
	char buf[32];
	/* the title no wider than S (m and l may stand beside it) */
	draw_put(y, x, 5 + shown * cw < width ? 5 + shown * cw : width,
	         next ? "S: tile marked, next underlined" : "S, the step's tile marked",
	         theme_attr(ROLE_TITLE));
	for (int i = 0; i < n && i + 1 < rows; i++) {
		snprintf(buf, sizeof buf, "%3d", i);
		bool qrow = i >= st->r0 && i < st->r0 + st->rows;
		bool nrow = next && i >= next->r0 && i < next->r0 + next->rows;
		draw_put(y + 1 + i, x, 4, buf, theme_attr(qrow ? ROLE_TITLE : ROLE_DIM));
		for (int j = 0; j < shown; j++) {
			bool key = j >= st->c0 && j < st->c0 + st->cols;
			bool met = qrow && j < st->c0 + st->cols;
			bool coming = nrow && j >= next->c0 && j < next->c0 + next->cols;
			attr_t a = theme_attr(qrow && key ? ROLE_SELECTED : coming ? ROLE_MARK
			                      : met ? ROLE_NORMAL : ROLE_DIM);
			if (coming)
				a |= A_UNDERLINE;
			/* masked keys (the mask and top-k) as the heatmaps mark them;
			 * a weight that only underflowed to 0 is still a score */
			if (pipeline_masked(&app->cfg, &app->a, flash_view_now(app)->rec.head, i, j))
				snprintf(buf, sizeof buf, "%*s", cw - 1, "-");
			else
				fmt_num(buf, sizeof buf, s[(size_t)i * n + j], cw - 1);
			draw_put(y + 1 + i, x + 5 + j * cw, cw - 1, buf, a);
		}
	}
	return 5 + shown * cw;
}

/* Per row of the query tile: m, l, the rescale factor when m grew, and the
 * partial output's first values. Returns the lines used. */
static int draw_rows(const struct flash_view *fv, const struct mha_flash_step *st, int y, int x,
                     int rows, int width)
{
	char line[256];
	int dk = fv->rec.dk, line_no = 0;
	draw_put(y, x, width, "max m, sum l, output o (O = o/l)", theme_attr(ROLE_TITLE));
	for (int r = 0; r < st->rows && line_no + 2 < rows; r++) {
		int q = st->r0 + r;
		const float *o = st->o + (size_t)r * dk;
		int at = snprintf(line, sizeof line, "q%-2d m %7.3f  l %7.3f", q, st->m[r], st->l[r]);
		if (st->kt > 0 && st->alpha[r] < 1.0f)
			at += snprintf(line + at, sizeof line - (size_t)at, "  rescale o,l x%.3g", st->alpha[r]);
		draw_put(y + 1 + line_no++, x, width, line, theme_attr(ROLE_NORMAL));
		/* as many of o's dk values as the width holds whole, then ".." */
		int fit = (width - 5) / 8 >= dk ? dk : (width - 5 - 3) / 8;
		at = snprintf(line, sizeof line, "    o");
		for (int e = 0; e < fit && at < (int)sizeof line - 12; e++)
			at += snprintf(line + at, sizeof line - (size_t)at, " %7.3f", o[e]);
		if (fit < dk)
			snprintf(line + at, sizeof line - (size_t)at, " ..");
		draw_put(y + 1 + line_no++, x, width, line, theme_attr(ROLE_DIM));
	}
	return line_no + 1;
}

/* The predicted step, its numbers hidden: which keys it brings, and "?". */
static int draw_next(const struct mha_flash_step *next, int y, int x, int rows, int width)
{
	char line[160];
	if (rows < 2)
		return 0;
	snprintf(line, sizeof line, "next: queries %d-%d, keys %d-%d", next->r0, next->r0 + next->rows - 1,
	         next->c0, next->c0 + next->cols - 1);
	draw_put(y, x, width, line, theme_attr(ROLE_MARK));
	draw_put(y + 1, x, width, "  m ?  l ?  rescale ?  o ?", theme_attr(ROLE_MARK));
	return 2;
}

/* The first of forms (n of them) that fits width whole, drawn; else the
 * last one's short form (draw_fit). */
static void fit_first(int y, int x, int width, char (*forms)[160], int n, attr_t a)
{
	for (int i = 0; i < n - 1; i++)
		if (draw_width(forms[i]) <= width) {
			draw_put(y, x, width, forms[i], a);
			return;
		}
	draw_fit(y, x, width, forms[n - 1], a);
}

/* A tile's range of rows or keys ("q0-1", "k4-5"; "k60" when that does
 * not fit w) for tile t of size sz among n. */
static void tile_label(char *buf, size_t len, char axis, int t, int sz, int n, int w)
{
	int a = t * sz, b = (t + 1) * sz < n ? (t + 1) * sz - 1 : n - 1;
	if (snprintf(buf, len, "%c%d-%d", axis, a, b) > w)
		snprintf(buf, len, "%c%d", axis, a);
}

/* The order of the tiles, from the record: query tiles down, key tiles
 * across, each the step that computes it (the step shown reversed, those
 * done plain, the rest dim), "-" for a tile no step computes (every key
 * of it masked), ".." when more key tiles than the width holds. Only
 * where its rows fit (rows): none drawn otherwise. */
static void draw_order(const struct flash_view *fv, int y, int x, int rows, int width)
{
	const struct mha_flash_record *rec = &fv->rec;
	int nq = (rec->n + rec->br - 1) / rec->br, nk = (rec->n + rec->bc - 1) / rec->bc;
	enum { CELL = 6, LABEL = 7 };
	if (rows < 2 + nq || width < LABEL + CELL)
		return;
	int shown = (width - LABEL) / CELL < nk ? (width - LABEL) / CELL : nk;
	char buf[32], key[24], f[3][160] = { "tile order: query tiles down, key tiles across",
	                                     "tile order (queries down, keys across)", "tile order" };
	fit_first(y, x, width, f, 3, theme_attr(ROLE_TITLE));
	for (int k = 0; k < shown; k++) {
		tile_label(key, sizeof key, 'k', k, rec->bc, rec->n, CELL - 1);
		snprintf(buf, sizeof buf, "%*s", CELL - 1, key); /* over the step numbers */
		draw_put(y + 1, x + LABEL + k * CELL, CELL - 1, buf, theme_attr(ROLE_DIM));
	}
	if (shown < nk && LABEL + shown * CELL + 2 <= width)
		draw_put(y + 1, x + LABEL + shown * CELL, 2, "..", theme_attr(ROLE_DIM));
	for (int q = 0; q < nq; q++) {
		tile_label(buf, sizeof buf, 'q', q, rec->br, rec->n, LABEL - 1);
		draw_put(y + 2 + q, x, LABEL - 1, buf, theme_attr(ROLE_DIM));
		for (int k = 0; k < shown; k++) {
			int at = -1;
			for (int s = 0; s < rec->steps && at < 0; s++)
				if (rec->step[s].qt == q && rec->step[s].kt == k)
					at = s;
			if (at < 0)
				snprintf(buf, sizeof buf, "%*s", CELL - 1, "-");
			else
				snprintf(buf, sizeof buf, "%*d", CELL - 1, at + 1);
			attr_t a = theme_attr(at == fv->step ? ROLE_SELECTED : at >= 0 && at < fv->step ? ROLE_NORMAL : ROLE_DIM);
			draw_put(y + 2 + q, x + LABEL + k * CELL, CELL - 1, buf, a);
		}
	}
}

/* What memory each path holds: the plain path the whole S and P of every
 * head, the tiled one only its tiles; at this n and h, then for the
 * paper's base model at the chosen context, each figure named. */
static void draw_meter(const struct app *app, int y, int x, int width)
{
	const struct flash_view *fv = flash_view_now(app);
	char plain[32], tiled[32], base_plain[32], base_tiled[32], f[2][160];
	struct mha_flash_bytes now = mha_flash_bytes(app->cfg.n, app->cfg.h, fv->br, fv->bc, app->cfg.dk);
	struct mha_flash_bytes base = mha_flash_bytes(fv->context, BASE_H, 64, 256, BASE_DK);
	fmt_bytes(plain, sizeof plain, now.plain);
	fmt_bytes(tiled, sizeof tiled, now.tiled);
	fmt_bytes(base_plain, sizeof base_plain, base.plain);
	fmt_bytes(base_tiled, sizeof base_tiled, base.tiled);
	snprintf(f[0], sizeof f[0], "memory at n %d, h %d: the plain path holds S,P %s; the tiles Q,K,V,S,o %s",
	         app->cfg.n, app->cfg.h, plain, tiled);
	snprintf(f[1], sizeof f[1], "n %d h %d: whole S,P %s, tiles %s", app->cfg.n, app->cfg.h, plain, tiled);
	fit_first(y, x, width, f, 2, theme_attr(ROLE_TITLE));
	snprintf(f[0], sizeof f[0], "base model, n %lld, h %d: whole S,P %s, tiles %s", (long long)fv->context,
	         BASE_H, base_plain, base_tiled);
	snprintf(f[1], sizeof f[1], "base n %lld h %d: S,P %s, tiles %s", (long long)fv->context, BASE_H,
	         base_plain, base_tiled);
	fit_first(y + 1, x, width, f, 2, theme_attr(ROLE_NORMAL));
}

static void flash_body(const struct app *app, const struct frame *f, const struct body_layout *b, struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct flash_view *fv = flash_view_now(app);
	struct rect r = b->info;
	for (int y = r.y; y < r.y + b->body_h; y++)
		draw_put(y, r.x, r.w, "", theme_attr(ROLE_NORMAL));
	if (!fv || fv->rec.steps == 0) {
		draw_put(r.y, r.x, r.w, fv && fv->error[0] ? fv->error : "nothing recorded",
		         theme_attr(ROLE_ERROR));
		return;
	}
	const struct mha_flash_step *st = &fv->rec.step[fv->step];
	int hidden = flash_view_hidden_step(app);
	const struct mha_flash_step *next = hidden >= 0 ? &fv->rec.step[hidden] : NULL;
	char line[256];
	snprintf(line, sizeof line, "FlashAttention, head %d: tiles B_r %d x B_c %d", fv->rec.head,
	         fv->rec.br, fv->rec.bc);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_TITLE) | A_BOLD);
	snprintf(line, sizeof line, "step %d/%d: queries %d-%d, keys %d-%d", fv->step + 1,
	         fv->rec.steps, st->r0, st->r0 + st->rows - 1, st->c0, st->c0 + st->cols - 1);
	draw_put(r.y + 1, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	int top = r.y + 3, h = b->body_h - 3 - 3;
	int sw = draw_scores(app, st, next, top, r.x, h, r.w);
	int side = r.w - sw - 2 >= 40;
	int rx = side ? r.x + sw + 2 : r.x, ry = side ? top : top + app->cfg.n + 2;
	int rh = side ? h : h - app->cfg.n - 2, rw = side ? r.w - sw - 2 : r.w;
	int used = draw_rows(fv, st, ry, rx, rh, rw);
	if (side) /* under S, the rows it leaves (120x40 left 26 blank) */
		draw_order(fv, top + app->cfg.n + 2, r.x, h - app->cfg.n - 2, sw);
	if (next) {
		draw_next(next, ry + used, rx, rh - used, rw);
	} else if (fv->step + 1 == fv->rec.steps || fv->rec.step[fv->step + 1].qt != st->qt) {
		if (used < rh) {
			snprintf(line, sizeof line, "last tile: O = o/l; vs P V %.1e", fv->final_diff);
			draw_put(ry + used, rx, rw, line, theme_attr(ROLE_MET));
		}
	}
	draw_meter(app, r.y + b->body_h - 2, r.x, r.w);
}

enum { F = ACTION_BAR_FREE, L = ACTION_BAR_LESSON };
static const struct action flash_opener = {
	.keys = { 'F' }, .label = "F", .name = "flash", .help = "FlashAttention by tiles", .group = "Move",
	.shows = MODE_SHOWS_STAGES & ~(MODE_SHOWS_STAGE(PIPELINE_PROJECTION) | MODE_SHOWS_STAGE(PIPELINE_RESHAPE)),
	.id = "flash",
};

static const struct action flash_keys[] = {
	{ .keys = { KEY_RIGHT, 'l', ' ' }, .label = "Right", .bar_keys = "Left/Right", .name = "step",
	  .help = "the next / the step before", .help_keys = "Right Left", .bar = F, .call_arg = step_by, .arg = 1,
	  .id = "flash-next" },
	{ .keys = { KEY_LEFT, 'h' }, .label = "Left", .name = "back", .help = "the step before", .help_keys = "",
	  .call_arg = step_by, .arg = -1, .id = "flash-prev" },
	{ .keys = { KEY_HOME, 'g' }, .label = "Home", .name = "first", .help = "the first / last step",
	  .help_keys = "Home End", .call_arg = step_by, .arg = -2, .id = "flash-first" },
	{ .keys = { KEY_END, 'G' }, .label = "End", .name = "last", .help = "the last step", .help_keys = "",
	  .call_arg = step_by, .arg = 2, .id = "flash-last" },
	{ .keys = { ']' }, .label = "]", .bar_keys = "[ ]", .name = "B_r", .help = "more / fewer query rows a tile (B_r)",
	  .help_keys = "] [", .bar = F, .call_arg = tiles_by, .arg = 1, .id = "flash-rows-more" },
	{ .keys = { '[' }, .label = "[", .name = "B_r-", .help = "fewer query rows a tile", .help_keys = "",
	  .call_arg = tiles_by, .arg = -1, .id = "flash-rows-less" },
	{ .keys = { '}' }, .label = "}", .bar_keys = "{ }", .name = "B_c", .help = "more / fewer keys a tile (B_c)",
	  .help_keys = "} {", .bar = F, .call_arg = tiles_by, .arg = 2, .id = "flash-cols-more" },
	{ .keys = { '{' }, .label = "{", .name = "B_c-", .help = "fewer keys a tile", .help_keys = "",
	  .call_arg = tiles_by, .arg = -2, .id = "flash-cols-less" },
	{ .keys = { 'L' }, .label = "L", .bar_keys = "L/H", .name = "head", .help = "next / previous head",
	  .help_keys = "L H", .bar = F, .call_arg = head_by, .arg = 1, .id = "flash-head-next" },
	{ .keys = { 'H' }, .label = "H", .name = "prev head", .help = "previous head", .help_keys = "",
	  .call_arg = head_by, .arg = -1, .id = "flash-head-prev" },
	{ .keys = { '>' }, .label = ">", .bar_keys = "< >", .name = "context",
	  .help = "double / halve the meter's context length", .help_keys = "> <", .bar = F, .call_arg = context_by,
	  .arg = 1, .id = "flash-context-more" },
	{ .keys = { '<' }, .label = "<", .name = "context-", .help = "halve the context length", .help_keys = "",
	  .call_arg = context_by, .arg = -1, .id = "flash-context-less" },
	/* the lesson's keys: the step's question, hints and steps work here */
	{ .use = "answer", .bar = L },
	{ .use = "hint", .bar = L },
	{ .use = "solution", .bar = L },
	{ .use = "next", .bar = L },
	{ .use = "prev", .bar = L },
	{ .use = "leave", .bar = L },
	{ .use = "menu", .bar = L },
	{ .use = "scroll-down" },
	{ .use = "scroll-up" },
	{ .keys = { 0 } },
};

const struct mode_ops flash_mode = {
	.name = "FlashAttention",
	.opener = &flash_opener,
	.keys = flash_keys,
	.closed = true,
	.state_size = sizeof(struct flash_view),
	.enter = flash_enter,
	.done = flash_done,
	.recompute = flash_recompute,
	.owns_step = flash_owns_step,
	.status = flash_status,
	.layout = flash_layout,
	.body = flash_body,
};
