/*
 * train_draw.c - the training screen's body, top to bottom: the task and
 * model, the step and speed, held-out loss and accuracy (and when the
 * task's head formed), each head alone (e), loss and accuracy sparklines, the head table (five
 * pattern scores, |grad|, the best pattern, importance when asked), then
 * the heads apart (train_heads_view.c) and the probe's heatmaps, of both
 * layers side by side when they fit, else of the shown layer. It reads
 * the state of train_view.c and draws; it never trains or computes a
 * score.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "heatmap.h"
#include "theme.h"
#include "train_view_int.h"

/* the numbers' columns when the heatmaps go beside them, and the row
 * (from the top of the body) where the head table starts at the least */
enum { NUMBERS_W = 64, HEAD_TABLE_ROW = 6 };

/* All n values, each cell the mean of its share, so the whole fall of the
 * loss stays in view. */
void train_draw_sparkline(int y, int x, int w, const float *vals, int n, float lo, float hi)
{
	static const char *bars[8] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587",
	                               "\u2588" };
	static const char ascii[8] = { '_', '.', '-', '~', '=', '+', '*', '#' };
	int cells = n < w ? n : w;
	for (int c = 0; c < cells; c++) {
		int a = (int)((long)c * n / cells), b = (int)((long)(c + 1) * n / cells);
		double sum = 0;
		for (int i = a; i < b; i++)
			sum += vals[i];
		float t = hi > lo && b > a ? ((float)(sum / (b - a)) - lo) / (hi - lo) : 0.0f;
		int lev = (int)(t * 7.999f);
		lev = lev < 0 ? 0 : lev > 7 ? 7 : lev;
		char glyph[2] = { ascii[lev], '\0' };
		draw_put(y, x + c, 1, theme_utf8() ? bars[lev] : glyph, theme_attr(ROLE_NORMAL));
	}
}

/* A score in 0..1 in three characters: ".29", "1.0" */
static void score_text(char out[8], double v)
{
	if (v >= 0.995)
		snprintf(out, 8, "1.0");
	else
		snprintf(out, 8, ".%02d", (int)(v * 100 + 0.5));
}

/* The best pattern of head (l, i) and its score. */
static int best_pattern(const struct train_view *v, int l, int i, double *score)
{
	const double *sc = train_view_shown(v)->scores + (l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT;
	int best = 0;
	for (int p = 1; p < TRAIN_PAT_COUNT; p++)
		if (sc[p] > sc[best])
			best = p;
	*score = sc[best];
	return best;
}

/* e: held-out accuracy with each head alone in its layer, and with all
 * of them ("alone L0 .33 .99 all .99  L1 ..."), on one line when it fits,
 * else a line a layer. Returns the next row. */
static int alone_lines(const struct train_view *v, int y, int x, int w, int bottom)
{
	const struct train_shape *s = &v->m.s;
	char seg[TRAIN_MAX_LAYERS][MHA_MAX_HEADS * 4 + 32], f[8];
	/* said in words when the line has room */
	static const char wide[] = "held-out accuracy, each head alone in its layer, then all on:",
	                  narrow[] = "each head alone (held-out acc):";
	size_t total = strlen(narrow);
	for (int l = 0; l < s->layers; l++) {
		int n = snprintf(seg[l], sizeof seg[l], " L%d", l);
		for (int i = 0; i < s->h; i++) {
			score_text(f, v->alone[l * MHA_MAX_HEADS + i]);
			n += snprintf(seg[l] + n, sizeof seg[l] - (size_t)n, " %s", f);
		}
		score_text(f, v->together[l]);
		snprintf(seg[l] + n, sizeof seg[l] - (size_t)n, " all %s ", f);
		total += strlen(seg[l]);
	}
	const char *lead = (int)(total - strlen(narrow) + strlen(wide)) <= w + 1 ? wide : narrow;
	char line[sizeof seg + sizeof wide];
	for (int l = 0; l < s->layers && y < bottom; l++) {
		bool one = (int)total <= w + 1;
		int n = snprintf(line, sizeof line, "%s%s", l ? "" : lead, seg[l]);
		for (int k = l + 1; one && k < s->layers; k++, l++)
			n += snprintf(line + n, sizeof line - (size_t)n, "%s", seg[k]);
		draw_put(y++, x, w, line, theme_attr(ROLE_NORMAL));
	}
	return y;
}

/* How the probe's heatmaps are laid out: how many layers side by side
 * (every layer's heads, layer 0 on the left, or the shown layer's), the
 * columns a cell, and the size of the lot with its title row. */
struct heat_plan {
	int layers, cell_w, w, h;
};

/* The largest plan within w columns and h rows (both layers at 2 then 1
 * column a cell, then the shown layer): false when none fits (p then
 * holds the smallest, for the line that says what they need). */
static bool heat_plan(const struct train_view *v, int w, int h, struct heat_plan *p)
{
	const struct train_shape *s = &v->m.s;
	struct heatmap hm = { .rows = s->n, .cols = s->n, .lo = 0, .hi = 1, .cur_row = -1, .cur_col = -1 };
	for (int k = 0; k < 4; k++) {
		p->layers = k < 2 ? s->layers : 1;
		p->cell_w = k % 2 ? 1 : 2;
		struct heatmap_size hs = heatmap_measure(&hm, p->cell_w);
		p->w = hs.cols * s->h * p->layers + 2 * (s->h * p->layers - 1);
		p->h = hs.rows + 1;
		if (p->w <= w && p->h <= h)
			return true;
	}
	return false;
}

/* The probe's attention at (y, x) as planned. */
static void heatmaps(const struct train_view *v, int y, int x, const struct heat_plan *p)
{
	const struct train_shape *s = &v->m.s;
	struct heatmap hm = { .rows = s->n, .cols = s->n, .lo = 0, .hi = 1, .cur_row = -1, .cur_col = -1 };
	struct heatmap_size hs = heatmap_measure(&hm, p->cell_w);
	for (int k = 0; k < p->layers * s->h; k++) {
		int l = p->layers == 1 ? v->layer : k / s->h, i = k % s->h;
		char title[48];
		double score;
		int best = best_pattern(v, l, i, &score); /* labelled as the table says */
		snprintf(title, sizeof title, "L%dH%d on the probe: %s %.2f", l, i,
		         train_pattern_name((enum train_pattern)best), score);
		hm.labels = (const char (*)[MHA_LABEL_MAX])v->pw[l].labels;
		const struct train_snap *a = train_view_shown(v);
		hm.m = a->probe + ((size_t)l * s->h + (size_t)i) * s->n * s->n;
		hm.title = title;
		hm.title_attr = theme_head_attr(i);
		hm.off = a->head_off[l][i];
		heatmap_draw(stdscr, y, x + k * (hs.cols + 2), &hm, p->cell_w);
	}
}

int train_draw_history(const struct train_view *v)
{
	if (v->scrub < 0)
		return v->nhist;
	long behind = trainer_steps(v->tr) - v->seen.step;
	return behind >= v->nhist ? 0 : v->nhist - (int)behind;
}

/* The first of the texts that fits in w columns (the last whatever). */
static const char *fit(const char *const *texts, int count, int w)
{
	for (int k = 0; k < count - 1; k++)
		if ((int)strlen(texts[k]) <= w)
			return texts[k];
	return texts[count - 1];
}

/* The step, the speed, the batch's loss and accuracy; scrubbing, which
 * recorded step of how many is shown, said so it cannot pass for now. */
static void step_line(const struct train_view *v, int y, int x, int w)
{
	const struct train_snap *a = train_view_shown(v);
	long st = trainer_steps(v->tr);
	char line[256], speed[48];
	if (v->scrub >= 0) {
		snprintf(line, sizeof line, "step %ld of %ld (recorded)  loss %.3f  acc %.2f  } now", a->step, st,
		         a->loss, a->acc);
		draw_put(y, x, w, line, theme_attr(ROLE_TITLE) | A_REVERSE);
		return;
	}
	int rate = train_speeds[v->speed];
	if (rate)
		snprintf(speed, sizeof speed, "%d step%s/s", rate, rate > 1 ? "s" : "");
	else
		snprintf(speed, sizeof speed, "full speed %.0f/s", v->train_s > 0 ? (double)st / v->train_s : 0.0);
	snprintf(line, sizeof line, "step %ld %s  %s  loss %.3f  acc %.2f", st, v->running ? "running" : "paused",
	         speed, a->loss, a->acc);
	draw_put(y, x, w, line, theme_attr(ROLE_NORMAL));
}

/* The head table's columns said in words, under it. */
static int legend_line(const struct train_view *v, int y, int x, int w, int bottom)
{
	if (y >= bottom)
		return y;
	static const char *const plain[] = {
		"columns: mean attention on the probe to prev the token before, 1st the first token, self itself, "
		"dup an earlier copy of its token, ind the token after that copy; |grad| its gradient; best its "
		"top pattern (over .40)",
		"prev: token before, 1st: first, dup: earlier copy, ind: token after it (? more)",
		"prev before 1st first dup copy ind after it (?)",
		"? explains the columns",
	};
	static const char *const imp[] = {
		"columns: mean attention on the probe to prev the token before, 1st the first token, self itself, "
		"dup an earlier copy of its token, ind the token after that copy; |grad| its gradient; best its "
		"top pattern; imp held-out loss rise with it off",
		"prev: token before, 1st: first, dup: earlier copy, ind: token after it (? more)",
		"prev before 1st first dup copy ind after it (?)",
		"? explains the columns",
	};
	bool with_imp = v->importance_ok && v->scrub < 0;
	draw_put(y, x, w, fit(with_imp ? imp : plain, 4, w), theme_attr(ROLE_DIM));
	return y + 1;
}

/* The line that says how much room the probe's heatmaps need, true at
 * the size it is shown: the rows and columns free here and those needed. */
static void heat_need_line(const struct train_view *v, int y, int x, int w, int free_rows,
                           const struct heat_plan *p)
{
	char wide[160], narrow[96];
	if (p->w > w) {
		snprintf(wide, sizeof wide, "L%d heatmaps need %d columns, %d here (a wider terminal, or o: workbench)",
		         v->layer, p->w, w);
		snprintf(narrow, sizeof narrow, "L%d heatmaps need %d columns, %d here", v->layer, p->w, w);
	} else {
		snprintf(wide, sizeof wide, "L%d heatmaps need %d rows below, %d free here (a taller terminal, or o: "
		         "workbench)", v->layer, p->h, free_rows);
		snprintf(narrow, sizeof narrow, "L%d heatmaps need %d rows, %d free here", v->layer, p->h, free_rows);
	}
	const char *const texts[] = { wide, narrow };
	draw_put(y, x, w, fit(texts, 2, w), theme_attr(ROLE_DIM));
}

void train_draw_body(const struct train_view *v, struct rect r)
{
	const struct train_shape *s = &v->m.s;
	const struct train_snap *a = train_view_shown(v);
	char line[512];
	int y = r.y, bottom = r.y + r.h;
	/* on a wide screen the heatmaps go right of the numbers, from the row
	 * of the head table down, and the numbers keep NUMBERS_W columns */
	struct heat_plan plan;
	bool side = v->probe_ok && a->probe_ok && heat_plan(v, r.w - NUMBERS_W - 2, r.h - HEAD_TABLE_ROW, &plan);
	int heat_x = r.x + r.w - (side ? plan.w : 0);
	snprintf(line, sizeof line, "Training: %s (%s)", v->task->name, v->task->what);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_TITLE)); /* the whole width: above the heatmaps */
	if (side)
		r.w -= plan.w + 2;
	snprintf(line, sizeof line, "%d layer%s  %d heads x d_k %d  d %d  n %d  seed %llu", s->layers,
	         s->layers > 1 ? "s" : "", s->h, s->dk, s->d, s->n, (unsigned long long)v->seed);
	draw_put(y++, r.x, r.w, line, theme_attr(ROLE_DIM));
	step_line(v, y++, r.x, r.w);
	if (y < bottom) {
		char formed[96] = "";
		long at = v->rec.formed[v->task->head];
		if (at >= 0 && at <= a->step)
			snprintf(formed, sizeof formed, "%s head formed at step %ld", train_pattern_name(v->task->head), at);
		int n = snprintf(line, sizeof line, "held-out: loss %.3f  accuracy %.2f", a->held.loss, a->held.accuracy);
		bool beside = n + 2 + (int)strlen(formed) <= r.w; /* else on a line of its own */
		if (formed[0] && beside)
			snprintf(line + n, sizeof line - (size_t)n, "  %s", formed);
		draw_put(y++, r.x, r.w, line, theme_attr(ROLE_TITLE));
		if (formed[0] && !beside && y < bottom)
			draw_put(y++, r.x, r.w, formed, theme_attr(ROLE_TITLE));
	}
	if (v->alone_ok && v->scrub < 0)
		y = alone_lines(v, y, r.x, r.w, bottom);
	/* the whole run's loss, taller where there is room */
	y = train_draw_run_loss(v, y, r.x, r.w, r.h >= 44 ? 4 : r.h >= 34 ? 2 : 1, bottom);
	if (y < bottom && r.h >= 26) {
		draw_put(y, r.x, 5, "acc", theme_attr(ROLE_DIM));
		train_draw_sparkline(y++, r.x + 5, r.w - 5, v->acc, train_draw_history(v), 0, 1);
	}
	int table_y = y; /* the heatmaps beside start here when they still fit */
	bool with_imp = v->importance_ok && v->scrub < 0;
	if (y < bottom)
		draw_put(y++, r.x, r.w, with_imp ? "head  prev 1st self dup ind |grad| best  imp"
		                                 : "head  prev 1st self dup ind |grad| best",
		         theme_attr(ROLE_DIM));
	static const char *short_name[TRAIN_PAT_COUNT] = { "prev", "first", "self", "dup", "ind" };
	for (int l = 0; l < s->layers; l++)
		for (int i = 0; i < s->h && y < bottom; i++) {
			const double *sc = a->scores + (l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT;
			double top;
			int best = best_pattern(v, l, i, &top);
			bool off = a->head_off[l][i];
			char f[TRAIN_PAT_COUNT][8];
			for (int p = 0; p < TRAIN_PAT_COUNT; p++)
				score_text(f[p], sc[p]);
			int n = snprintf(line, sizeof line, "%cL%dH%d  %s  %s  %s %s %s %.3f %-5s",
			                 v->sel == l * s->h + i ? '>' : ' ', l, i, f[TRAIN_PAT_PREVIOUS],
			                 f[TRAIN_PAT_FIRST], f[TRAIN_PAT_SELF], f[TRAIN_PAT_DUPLICATE],
			                 f[TRAIN_PAT_INDUCTION], a->norms[l * MHA_MAX_HEADS + i],
			                 off ? "off" : top > TRAIN_HEAD_CLEAR ? short_name[best] : "-");
			if (with_imp && n > 0 && (size_t)n < sizeof line)
				snprintf(line + n, sizeof line - (size_t)n, " %+.2f", v->importance[l * MHA_MAX_HEADS + i]);
			draw_put(y++, r.x, r.w, line, off ? theme_attr(ROLE_DIM) : theme_head_attr(i));
		}
	y = legend_line(v, y, r.x, r.w, bottom);
	y = train_draw_heads_apart(v, y, r.x, r.w, bottom);
	if (side) {
		heatmaps(v, table_y + plan.h <= bottom ? table_y : r.y + HEAD_TABLE_ROW, heat_x, &plan);
	} else if (v->probe_ok && a->probe_ok && y + 1 < bottom) {
		if (heat_plan(v, r.w, bottom - y - 1, &plan))
			heatmaps(v, y + 1, r.x, &plan);
		else
			heat_need_line(v, y + 1, r.x, r.w, bottom - y - 1, &plan);
	}
}
