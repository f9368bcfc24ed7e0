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
 * outlined as the next one, "?" for its numbers) and Right stops before
 * it until the step's question is answered; the answer itself is this
 * recording's number (lesson_run.live), never one typed in the lesson.
 * In a lesson step the tiles and the head are the step's, and the view
 * goes no further than its step: the later ones answer the next questions.
 *
 * The numbers come from the engine's recording (mha_flash_record), made
 * when the view opens, a tile size or the head changes, or the inputs are
 * recomputed; the drawing only reads it. The state is the app's
 * (app->flash), so two apps never share it. Keys it does not know go to
 * the action table only when they cannot change the workbench under it
 * (q, ?, and the lesson's keys).
 */
#include "flash_view.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "draw.h"
#include "engine.h"
#include "fmt.h"
#include "learn.h"
#include "mode.h"
#include "pipeline.h"
#include "prompt.h"
#include "theme.h"

struct flash_view {
	int br, bc;            /* tile sizes asked (the recording clamps them to 1..n) */
	int step;              /* the step shown */
	int64_t context;       /* the meter's context length for the base model */
	struct mha_flash_record rec;
	double final_diff;     /* max |tiles' O - plain P V| over the head */
	char error[MHA_MSG_MAX];
};

enum { BASE_H = 8, CONTEXT_MIN = 64, CONTEXT_MAX = 1 << 20 };

static struct flash_view *state(struct app *app)
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

/* The open lesson step's @flash, or NULL. */
static const struct lesson_flash *lesson_flash_of(const struct app *app)
{
	const struct app_learn *l = &app->learn;
	return l->open && l->active && l->run.lesson ? lesson_run_step(&l->run)->flash : NULL;
}

/* The step the predict state hides (0-based), or -1 when nothing is
 * hidden: the lesson's question is answered right (a wrong answer gets
 * its feedback and the step stays hidden: the truth is not a free second
 * try), the solution was shown, or the step predicts nothing. */
int flash_view_hidden_step(const struct app *app)
{
	const struct lesson_flash *f = lesson_flash_of(app);
	const struct lesson_run *run = &app->learn.run;
	if (!f || !f->predict || run->answer_right || run->solution_shown || !app->flash ||
	    app->flash->rec.steps == 0)
		return -1;
	return f->step - 1 < app->flash->rec.steps ? f->step - 1 : -1;
}

int flash_view_step(const struct app *app)
{
	return app->flash ? app->flash->step : 0;
}

/* The lesson's live question: the recording's numbers for its row at the
 * predicted step, and those of the step before it in the same query tile. */
static void live_fill(struct app *app, const struct flash_view *fv)
{
	const struct lesson_flash *f = lesson_flash_of(app);
	if (!f)
		return; /* the free workbench's recording: the lesson's numbers stand */
	const struct lesson_question *q = lesson_run_step(&app->learn.run)->question;
	struct lesson_flash_live *v = &app->learn.run.live;
	memset(v, 0, sizeof *v);
	if (!q || !q->flash || f->step < 1 || f->step > fv->rec.steps)
		return;
	const struct mha_flash_step *st = &fv->rec.step[f->step - 1];
	const int r = q->flash->row - st->r0, col = q->flash->col, dk = fv->rec.dk, n = app->cfg.n;
	if (r < 0 || r >= st->rows || col >= dk)
		return; /* the asked row is not in the predicted step's query tile */
	v->m1 = st->m[r];
	v->l1 = st->l[r];
	v->o1 = st->o[(size_t)r * dk + col];
	v->alpha = st->alpha[r];
	v->m0 = -INFINITY;
	if (st->kt > 0) {
		const struct mha_flash_step *pr = st - 1; /* the same query tile's key tile before */
		v->m0 = pr->m[r];
		v->l0 = pr->l[r];
		v->o0 = pr->o[(size_t)r * dk + col];
	}
	const float *s = app->a.scores + ((size_t)fv->rec.head * n + (size_t)q->flash->row) * n;
	for (int j = 0; j < st->c0 + st->cols; j++)
		if (!pipeline_masked(&app->cfg, &app->a, fv->rec.head, q->flash->row, j))
			v->seen_sum += s[j];
	v->ok = true;
}

/* The last step the view may show. In a lesson step with @flash, its
 * step (the predicted one once it is revealed): the steps after it answer
 * the lesson's next questions. */
static int last_step(const struct app *app)
{
	const struct flash_view *fv = app->flash;
	const struct lesson_flash *f = lesson_flash_of(app);
	int last = fv->rec.steps > 0 ? fv->rec.steps - 1 : 0;
	if (f) {
		int hidden = flash_view_hidden_step(app), cap = hidden >= 0 ? hidden - 1 : f->step - 1;
		last = cap < last ? cap : last;
	}
	return last < 0 ? 0 : last;
}

/* Record the app's current head with the asked tiles. */
static void flash_record(struct app *app, struct flash_view *fv)
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
	int last = last_step(app);
	if (fv->step > last)
		fv->step = last;
	live_fill(app, fv);
}

/* Take the lesson step's tiles and step. */
static void lesson_setup(struct app *app, struct flash_view *fv, const struct lesson_flash *f)
{
	fv->br = f->br;
	fv->bc = f->bc;
	fv->step = f->step - 1 - (f->predict ? 1 : 0);
	fv->step = fv->step < 0 ? 0 : fv->step;
	flash_record(app, fv);
}

unsigned flash_view_open(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	struct flash_view *fv = state(app);
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
	const struct lesson_flash *f = lesson_flash_of(app);
	if (f) {
		lesson_setup(app, fv, f);
	} else {
		fv->step = 0;
		flash_record(app, fv);
	}
	mode_enter(app, MODE_FLASH);
	return APP_REDRAW;
}

void flash_view_follow_step(struct app *app)
{
	const struct lesson_flash *f = lesson_flash_of(app);
	struct flash_view *fv = f ? state(app) : NULL;
	if (fv) {
		lesson_setup(app, fv, f);
		app->mode = MODE_FLASH;
	} else if (app->mode == MODE_FLASH) {
		mode_leave(app);
	}
}

void flash_view_recompute(struct app *app)
{
	if (app->flash && (app->mode == MODE_FLASH || lesson_flash_of(app)))
		flash_record(app, app->flash);
}

/* Going on past the last step the view may show: said why, when a
 * lesson holds it there. */
static void refuse_past_last(struct app *app)
{
	if (flash_view_hidden_step(app) >= 0)
		app_message(app, true, "first predict the next tile: %s answers, then Right shows it",
		            actions_key_name("answer"));
	else if (lesson_flash_of(app))
		app_message(app, false, "the lesson stops the tiles here: %s goes on to its next step",
		            actions_key_name("next"));
}

/* A lesson step keeps its tiles and head: others would show what its
 * next questions ask. */
static bool refuse_in_lesson(struct app *app)
{
	if (!lesson_flash_of(app))
		return false;
	app_message(app, true, "this lesson step keeps its tiles; %s on the free workbench (%s) "
	            "changes them", actions_key_name("flash"), actions_key_name("leave"));
	return true;
}

static unsigned retile(struct app *app, struct flash_view *fv, int *size, int by)
{
	if (refuse_in_lesson(app))
		return APP_REDRAW;
	*size += by;
	if (*size < 1)
		*size = 1;
	if (*size > app->cfg.n)
		*size = app->cfg.n;
	fv->step = 0;
	flash_record(app, fv);
	return APP_REDRAW;
}

/* The lesson's keys pass to the table: answer, hint, solution, next and
 * previous step stay in the view; leaving the lesson or its menu leaves
 * the view first. */
static unsigned lesson_key(struct app *app, int key)
{
	static const char *const stay[] = { "answer", "hint", "solution", "next", "prev", "scroll-down",
	                                    "scroll-up" };
	static const char *const leave[] = { "leave", "menu" };
	const struct action *a = actions_lookup(key);
	for (size_t i = 0; a && a->id && i < sizeof stay / sizeof *stay; i++)
		if (!strcmp(a->id, stay[i]))
			return MODE_PASS;
	for (size_t i = 0; a && a->id && i < sizeof leave / sizeof *leave; i++)
		if (!strcmp(a->id, leave[i])) {
			mode_leave(app);
			return MODE_PASS;
		}
	return 0; /* the workbench's other keys would change what is recorded */
}

static unsigned flash_key(struct app *app, int key)
{
	struct flash_view *fv = app->flash;
	int last = last_step(app);
	switch (key) {
	case KEY_RIGHT: case 'l': case ' ':
		if (fv->step >= last)
			refuse_past_last(app);
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
		if (refuse_in_lesson(app))
			return APP_REDRAW;
		app->head = (app->head + (key == 'L' ? 1 : app->cfg.h - 1)) % app->cfg.h;
		fv->step = 0;
		flash_record(app, fv);
		return APP_REDRAW;
	case PROMPT_ESC: case 'F':
		mode_leave(app);
		return APP_REDRAW;
	case 'q': case '?':
		return MODE_PASS;
	default:
		return app->learn.active ? lesson_key(app, key) : 0;
	}
}

static bool flash_status(const struct app *app, struct rect r)
{
	char line[160];
	if (flash_view_hidden_step(app) >= 0)
		snprintf(line, sizeof line, "predict the next tile: %s answers, then Right shows it  "
		         "Left back  Esc", actions_key_name("answer"));
	else if (lesson_flash_of(app))
		snprintf(line, sizeof line, "Left/Right step, up to step %d in this lesson step  "
		         "< > context  Esc back", last_step(app) + 1);
	else
		snprintf(line, sizeof line, "Left/Right step  Home/End  [ ] B_r  { } B_c  L/H head  "
		         "< > context  Esc back");
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	return true;
}

/* The body for the tiles; in a lesson the side column for its pane (the
 * step's text and question), whole: the counts say nothing here. */
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
			at += snprintf(line + at, sizeof line - (size_t)at, "  o*%.3g", st->alpha[r]);
		draw_put(y + 1 + line_no++, x, width, line, theme_attr(ROLE_NORMAL));
		at = snprintf(line, sizeof line, "    o");
		for (int e = 0; e < dk && at < (int)sizeof line - 12; e++)
			at += snprintf(line + at, sizeof line - (size_t)at, " %7.3f", o[e]);
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

static void draw_meter(const struct app *app, int y, int x, int width)
{
	const struct flash_view *fv = app->flash;
	char plain[32], tiled[32], base_plain[32], base_tiled[32], line[256];
	struct mha_flash_bytes now = mha_flash_bytes(app->cfg.n, app->cfg.h, fv->br, fv->bc);
	struct mha_flash_bytes base = mha_flash_bytes(fv->context, BASE_H, 64, 256);
	fmt_bytes(plain, sizeof plain, now.plain);
	fmt_bytes(tiled, sizeof tiled, now.tiled);
	fmt_bytes(base_plain, sizeof base_plain, base.plain);
	fmt_bytes(base_tiled, sizeof base_tiled, base.tiled);
	snprintf(line, sizeof line, "memory n %d h %d: S,P %s, tiles %s", app->cfg.n, app->cfg.h,
	         plain, tiled);
	draw_put(y, x, width, line, theme_attr(ROLE_TITLE));
	snprintf(line, sizeof line, "base model n %lld h 8: %s, %s", (long long)fv->context,
	         base_plain, base_tiled);
	draw_put(y + 1, x, width, line, theme_attr(ROLE_NORMAL));
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
	.layout = flash_layout,
	.body = flash_body,
};
