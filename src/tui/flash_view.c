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
 * recomputed; the drawing only reads it. The state is the app's
 * (app->flash), so two apps never share it. Keys it does not know go to
 * the action table only when they cannot change the workbench under it
 * (q, ?, and the lesson's keys).
 */
#include "flash_view.h"
#include "flash_view_int.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "actions.h"
#include "draw.h"
#include "engine.h"
#include "fmt.h"
#include "mode.h"
#include "pipeline.h"
#include "prompt.h"
#include "theme.h"

enum { BASE_H = 8, CONTEXT_MIN = 64, CONTEXT_MAX = 1 << 20 };

struct flash_view *flash_view_state(struct app *app)
{
	if (!app->flash) {
		app->flash = calloc(1, sizeof *app->flash);
		if (app->flash)
			*app->flash = (struct flash_view){ .br = 2, .bc = 2, .context = 4096 };
	}
	return app->flash;
}

void flash_view_free(struct app *app)
{
	if (app->flash)
		mha_flash_record_free(&app->flash->rec);
	free(app->flash);
	app->flash = NULL;
}

int flash_view_step(const struct app *app)
{
	return app->flash ? app->flash->step : 0;
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

unsigned flash_view_open(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	struct flash_view *fv = flash_view_state(app);
	if (app->stage != PIPELINE_SCORES && app->stage != PIPELINE_SOFTMAX) {
		app_message(app, true, "FlashAttention tiles the scores and the softmax: "
		            "open it from %s or %s", pipeline_stage_label(PIPELINE_SCORES),
		            pipeline_stage_label(PIPELINE_SOFTMAX));
		return APP_REDRAW;
	}
	if (!fv) {
		app_message(app, true, "out of memory for the FlashAttention view");
		return APP_REDRAW;
	}
	if (flash_lesson_refuse_open(app))
		return APP_REDRAW;
	const struct lesson_flash *f = flash_lesson_step(app);
	if (f) {
		flash_lesson_setup(app, fv, f);
	} else {
		fv->step = 0;
		flash_view_record(app, fv);
	}
	mode_enter(app, MODE_FLASH);
	return APP_REDRAW;
}

void flash_view_recompute(struct app *app)
{
	if (app->flash && (app->mode == MODE_FLASH || flash_lesson_step(app)))
		flash_view_record(app, app->flash);
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

static unsigned flash_key(struct app *app, int key)
{
	struct flash_view *fv = app->flash;
	int last = flash_lesson_last(app);
	switch (key) {
	case KEY_RIGHT: case 'l': case ' ':
		if (fv->step >= last)
			flash_lesson_refuse_past(app);
		fv->step = fv->step < last ? fv->step + 1 : last;
		return APP_REDRAW;
	case KEY_LEFT: case 'h':
		fv->step = fv->step > 0 ? fv->step - 1 : 0;
		return APP_REDRAW;
	case KEY_HOME: case 'g':
		fv->step = 0;
		return APP_REDRAW;
	case KEY_END: case 'G':
		fv->step = last;
		return APP_REDRAW;
	case ']': return retile(app, fv, &fv->br, 1);
	case '[': return retile(app, fv, &fv->br, -1);
	case '}': return retile(app, fv, &fv->bc, 1);
	case '{': return retile(app, fv, &fv->bc, -1);
	case '>': case '<':
		fv->context = key == '>' ? fv->context * 2 : fv->context / 2;
		fv->context = fv->context < CONTEXT_MIN ? CONTEXT_MIN : fv->context > CONTEXT_MAX ? CONTEXT_MAX : fv->context;
		return APP_REDRAW;
	case 'L': case 'H':
		if (flash_lesson_refuse_tiles(app))
			return APP_REDRAW;
		app->head = (app->head + (key == 'L' ? 1 : app->cfg.h - 1)) % app->cfg.h;
		fv->step = 0;
		flash_view_record(app, fv);
		return APP_REDRAW;
	case PROMPT_ESC: case 'F':
		mode_leave(app);
		return APP_REDRAW;
	case 'q': case '?':
		return MODE_PASS;
	default:
		return app->learn.active ? flash_lesson_key(app, key) : 0;
	}
}

static bool flash_status(const struct app *app, struct rect r)
{
	char line[160];
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false; /* a message (a refusal, an answer's verdict): the workbench shows it */
	if (flash_view_hidden_step(app) >= 0)
		snprintf(line, sizeof line, "predict the next tile: %s answers, then Right shows it  "
		         "Left back  Esc", actions_key_name("answer"));
	else if (flash_lesson_step(app))
		snprintf(line, sizeof line, "Left/Right step, up to step %d in this lesson step  "
		         "< > context  Esc back", flash_lesson_last(app) + 1);
	else
		snprintf(line, sizeof line, "Left/Right step  Home/End  [ ] B_r  { } B_c  L/H head  "
		         "< > context  Esc back");
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* The body for the tiles; in a lesson the side column for its pane (the
 * step's text and question), whole: the counts say nothing here. */
/* This view's own keys on the hint line (the workbench's would mislead:
 * Enter and the edits do nothing here); in a lesson, the lesson's. */
static void flash_hints(const struct app *app, struct rect r, struct hit_map *hits)
{
	(void)hits;
	char line[160];
	if (app->learn.active)
		snprintf(line, sizeof line, "%s answer  %s hint  %s solve  %s next  %s prev  %s free  %s menu  "
		         "Esc back  ? q", actions_key_name("answer"), actions_key_name("hint"),
		         actions_key_name("solution"), actions_key_name("next"), actions_key_name("prev"),
		         actions_key_name("leave"), actions_key_name("menu"));
	else
		snprintf(line, sizeof line, "Esc or %s back to the workbench  ? help  q quit", actions_key_name("flash"));
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_HINT));
}

static struct body_layout flash_layout(const struct app *app, const struct layout *l, int cols)
{
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
	const float *s = app->a.scores + (size_t)app->flash->rec.head * n * n;
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
			if (pipeline_masked(&app->cfg, &app->a, app->flash->rec.head, i, j))
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

/* What memory each path holds: the plain path the whole S and P of every
 * head, the tiled one only its tiles; at this n and h, then for the
 * paper's base model at the chosen context, each figure named. */
static void draw_meter(const struct app *app, int y, int x, int width)
{
	const struct flash_view *fv = app->flash;
	char plain[32], tiled[32], base_plain[32], base_tiled[32], f[2][160];
	struct mha_flash_bytes now = mha_flash_bytes(app->cfg.n, app->cfg.h, fv->br, fv->bc);
	struct mha_flash_bytes base = mha_flash_bytes(fv->context, BASE_H, 64, 256);
	fmt_bytes(plain, sizeof plain, now.plain);
	fmt_bytes(tiled, sizeof tiled, now.tiled);
	fmt_bytes(base_plain, sizeof base_plain, base.plain);
	fmt_bytes(base_tiled, sizeof base_tiled, base.tiled);
	snprintf(f[0], sizeof f[0], "memory at n %d, h %d: the plain path holds S,P %s; the tiles hold %s",
	         app->cfg.n, app->cfg.h, plain, tiled);
	snprintf(f[1], sizeof f[1], "n %d h %d: whole S,P %s, tiles %s", app->cfg.n, app->cfg.h, plain, tiled);
	fit_first(y, x, width, f, 2, theme_attr(ROLE_TITLE));
	snprintf(f[0], sizeof f[0], "base model, n %lld, h %d: whole S,P %s, tiles %s", (long long)fv->context,
	         BASE_H, base_plain, base_tiled);
	snprintf(f[1], sizeof f[1], "base n %lld h %d: S,P %s, tiles %s", (long long)fv->context, BASE_H,
	         base_plain, base_tiled);
	fit_first(y + 1, x, width, f, 2, theme_attr(ROLE_NORMAL));
}

static void flash_body(const struct app *app, const struct body_layout *b, struct hit_map *hits)
{
	(void)hits;
	const struct flash_view *fv = app->flash;
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

const struct mode_ops flash_mode = {
	.name = "FlashAttention",
	.key = flash_key,
	.status = flash_status,
	.hints = flash_hints,
	.layout = flash_layout,
	.body = flash_body,
};
