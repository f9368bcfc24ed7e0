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
 * The numbers come from the engine's recording (mha_flash_record), made
 * when the view opens or a tile size, the head or the inputs change; the
 * drawing only reads it. Keys it does not know go to the action table
 * (q, ?), except those that would change the workbench under it.
 */
#include "flash_view.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "engine.h"
#include "fmt.h"
#include "mode.h"
#include "pipeline.h"
#include "prompt.h"
#include "theme.h"

/* The view's state: one app at a time has the keys. */
static struct {
	int br, bc;            /* tile sizes asked (the recording clamps them to 1..n) */
	int step;              /* the step shown */
	int64_t context;       /* the meter's context length for the base model */
	struct mha_flash_record rec;
	const float *heads;    /* the plain forward's O of the recorded head, for the difference */
	double final_diff;     /* max |tiles' O - plain P V| over the head */
	char error[MHA_MSG_MAX];
} fv = { .br = 2, .bc = 2, .context = 4096 };

enum { BASE_H = 8, CONTEXT_MIN = 64, CONTEXT_MAX = 1 << 20 };

/* Record the app's current head with the asked tiles. */
static void flash_record(struct app *app)
{
	const struct mha_config *c = &app->cfg;
	mha_flash_record_free(&fv.rec);
	fv.error[0] = '\0';
	if (mha_flash_record(&fv.rec, c, &app->a, app->head, fv.br, fv.bc, fv.error,
	                     sizeof fv.error) != MHA_OK)
		return;
	fv.br = fv.rec.br;
	fv.bc = fv.rec.bc;
	if (fv.step >= fv.rec.steps)
		fv.step = fv.rec.steps - 1;
	fv.heads = app->a.heads + (size_t)app->head * c->n * c->dk;
	fv.final_diff = 0.0;
	for (size_t i = 0; i < (size_t)c->n * c->dk; i++)
		fv.final_diff = fmax(fv.final_diff, fabs((double)fv.rec.out[i] - fv.heads[i]));
}

unsigned flash_view_open(struct app *app, int arg, int key)
{
	(void)arg;
	(void)key;
	if (app->stage != PIPELINE_SCORES && app->stage != PIPELINE_SOFTMAX) {
		app_message(app, true, "FlashAttention tiles the scores and the softmax: "
		            "open it from %s or %s", pipeline_stage_label(PIPELINE_SCORES),
		            pipeline_stage_label(PIPELINE_SOFTMAX));
		return APP_REDRAW;
	}
	fv.step = 0;
	flash_record(app);
	mode_enter(app, MODE_FLASH);
	return APP_REDRAW;
}

static unsigned retile(struct app *app, int *size, int by)
{
	*size += by;
	if (*size < 1)
		*size = 1;
	if (*size > app->cfg.n)
		*size = app->cfg.n;
	fv.step = 0;
	flash_record(app);
	return APP_REDRAW;
}

static unsigned flash_key(struct app *app, int key)
{
	int last = fv.rec.steps > 0 ? fv.rec.steps - 1 : 0;
	switch (key) {
	case KEY_RIGHT: case 'l': case 'n': case ' ':
		fv.step = fv.step < last ? fv.step + 1 : last;
		return APP_REDRAW;
	case KEY_LEFT: case 'h': case 'p':
		fv.step = fv.step > 0 ? fv.step - 1 : 0;
		return APP_REDRAW;
	case KEY_HOME: case 'g':
		fv.step = 0;
		return APP_REDRAW;
	case KEY_END: case 'G':
		fv.step = last;
		return APP_REDRAW;
	case ']': return retile(app, &fv.br, 1);
	case '[': return retile(app, &fv.br, -1);
	case '}': return retile(app, &fv.bc, 1);
	case '{': return retile(app, &fv.bc, -1);
	case '>': case '<':
		fv.context = key == '>' ? fv.context * 2 : fv.context / 2;
		fv.context = fv.context < CONTEXT_MIN ? CONTEXT_MIN : fv.context > CONTEXT_MAX ? CONTEXT_MAX : fv.context;
		return APP_REDRAW;
	case 'L': case 'H':
		app->head = (app->head + (key == 'L' ? 1 : app->cfg.h - 1)) % app->cfg.h;
		fv.step = 0;
		flash_record(app);
		return APP_REDRAW;
	case PROMPT_ESC: case 'F':
		mode_leave(app);
		return APP_REDRAW;
	case 'q': case '?':
		return MODE_PASS;
	default:
		return 0; /* the workbench's other keys would change what is recorded */
	}
}

/* 1536 -> "1.5 KiB" */
static void bytes_format(char *buf, size_t len, int64_t b)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static bool flash_status(const struct app *app, struct rect r)
{
	(void)app;
	draw_put(r.y, r.x, r.w, "Left/Right step  Home/End  [ ] B_r  { } B_c  L/H head  "
	         "< > context  Esc back", theme_attr(ROLE_NORMAL));
	return true;
}

static struct body_layout flash_layout(const struct app *app, const struct layout *l, int cols)
{
	(void)app;
	(void)cols;
	struct body_layout b = { 0 };
	b.info = l->body;
	b.body_h = l->body.h;
	return b;
}

/* The head's scores, n x n, cell by cell: the step's tile reversed, the
 * keys of its query tile already met plain, the rest dim, masked cells
 * "-". Returns the width drawn. */
static int draw_scores(const struct app *app, const struct mha_flash_step *st, int y, int x,
                       int rows, int width)
{
	const int n = app->cfg.n, cw = 5 + n * 7 <= width ? 7 : 6;
	const float *s = app->a.scores + (size_t)app->head * n * n;
	int shown = (width - 5) / cw < n ? (width - 5) / cw : n;
	char buf[32];
	draw_put(y, x, width, "S, the step's tile marked", theme_attr(ROLE_TITLE));
	for (int i = 0; i < n && i + 1 < rows; i++) {
		snprintf(buf, sizeof buf, "%3d", i);
		bool qrow = i >= st->r0 && i < st->r0 + st->rows;
		draw_put(y + 1 + i, x, 4, buf, theme_attr(qrow ? ROLE_TITLE : ROLE_DIM));
		for (int j = 0; j < shown; j++) {
			bool key = j >= st->c0 && j < st->c0 + st->cols;
			bool met = qrow && j < st->c0 + st->cols;
			attr_t a = theme_attr(qrow && key ? ROLE_SELECTED : met ? ROLE_NORMAL : ROLE_DIM);
			/* masked keys (the mask and top-k) as the heatmaps mark them;
			 * a weight that only underflowed to 0 is still a score */
			if (pipeline_masked(&app->cfg, &app->a, app->head, i, j))
				snprintf(buf, sizeof buf, "%*s", cw - 1, "-");
			else
				fmt_num(buf, sizeof buf, s[(size_t)i * n + j], cw - 1);
			draw_put(y + 1 + i, x + 5 + j * cw, cw - 1, buf, a);
		}
	}
	return 5 + shown * cw;
}

/* Per row of the query tile: m, l, the rescale factor when m grew, and the
 * partial output's first values. */
static int draw_rows(const struct app *app, const struct mha_flash_step *st, int y, int x,
                     int rows, int width)
{
	char line[256];
	int dk = fv.rec.dk, line_no = 0;
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
	(void)app;
	return line_no + 1;
}

static void draw_meter(const struct app *app, int y, int x, int width)
{
	char plain[32], tiled[32], base_plain[32], base_tiled[32], line[256];
	struct mha_flash_bytes now = mha_flash_bytes(app->cfg.n, app->cfg.h, fv.br, fv.bc);
	struct mha_flash_bytes base = mha_flash_bytes(fv.context, BASE_H, 64, 256);
	bytes_format(plain, sizeof plain, now.plain);
	bytes_format(tiled, sizeof tiled, now.tiled);
	bytes_format(base_plain, sizeof base_plain, base.plain);
	bytes_format(base_tiled, sizeof base_tiled, base.tiled);
	snprintf(line, sizeof line, "memory n %d h %d: S,P %s, tiles %s", app->cfg.n, app->cfg.h,
	         plain, tiled);
	draw_put(y, x, width, line, theme_attr(ROLE_TITLE));
	snprintf(line, sizeof line, "base model n %lld h 8: %s, %s", (long long)fv.context,
	         base_plain, base_tiled);
	draw_put(y + 1, x, width, line, theme_attr(ROLE_NORMAL));
}

static void flash_body(const struct app *app, const struct body_layout *b, struct hit_map *hits)
{
	(void)hits;
	struct rect r = b->info;
	for (int y = r.y; y < r.y + b->body_h; y++)
		draw_put(y, r.x, r.w, "", theme_attr(ROLE_NORMAL));
	if (fv.rec.steps == 0) {
		draw_put(r.y, r.x, r.w, fv.error[0] ? fv.error : "nothing recorded", theme_attr(ROLE_ERROR));
		return;
	}
	const struct mha_flash_step *st = &fv.rec.step[fv.step];
	char line[256];
	snprintf(line, sizeof line, "FlashAttention, head %d: tiles B_r %d x B_c %d", fv.rec.head,
	         fv.rec.br, fv.rec.bc);
	draw_put(r.y, r.x, r.w, line, theme_attr(ROLE_TITLE) | A_BOLD);
	snprintf(line, sizeof line, "step %d/%d: queries %d-%d, keys %d-%d", fv.step + 1,
	         fv.rec.steps, st->r0, st->r0 + st->rows - 1, st->c0, st->c0 + st->cols - 1);
	draw_put(r.y + 1, r.x, r.w, line, theme_attr(ROLE_NORMAL));
	int top = r.y + 3, h = b->body_h - 3 - 3;
	int sw = draw_scores(app, st, top, r.x, h, r.w);
	int side = r.w - sw - 2 >= 40;
	int rx = side ? r.x + sw + 2 : r.x, ry = side ? top : top + app->cfg.n + 2;
	int rh = side ? h : h - app->cfg.n - 2, rw = side ? r.w - sw - 2 : r.w;
	int used = draw_rows(app, st, ry, rx, rh, rw);
	bool last = fv.step + 1 == fv.rec.steps || fv.rec.step[fv.step + 1].qt != st->qt;
	if (last && used < rh) {
		snprintf(line, sizeof line, "last tile: O = o/l; vs P V %.1e", fv.final_diff);
		draw_put(ry + used, rx, rw, line, theme_attr(ROLE_MET));
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
