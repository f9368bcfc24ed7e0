/*
 * train_chart.c - the training screen's whole-run loss on a log-step
 * axis: step 1 at the left, the run's last step at the right, column c
 * covering steps N^(c/W) .. N^((c+1)/W), so the first steps' plateau and
 * the later drop both have room. Under it a mark (^) where each head type
 * formed (the step the record noted: a head's score first above its
 * threshold), labelled with the type and the step, and the axis with
 * steps 1, 10, 100 ... When scrubbing, the recorded step's column shows
 * in reverse. It reads the record (record.h) kept by train_view.c and
 * draws; it computes no score.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "theme.h"
#include "train_view_int.h"

enum { LABEL_W = 5 }; /* "loss " before the chart, as the sparklines */

/* The column of step on a log axis of cols columns over steps 1..n. */
static int step_col(long step, long n, int cols)
{
	if (n <= 1 || step <= 1)
		return 0;
	int c = (int)(cols * log((double)step) / log((double)n));
	return c >= cols ? cols - 1 : c;
}

/* The steps column c covers: a..b. */
static void col_steps(int c, long n, int cols, long *a, long *b)
{
	double lo = pow((double)n, (double)c / cols), hi = pow((double)n, (double)(c + 1) / cols);
	*a = (long)floor(lo);
	*b = (long)ceil(hi) - 1;
	if (*b < *a)
		*b = *a;
	if (*b > n)
		*b = n;
}

/* Short names of the head types for the marks. */
static const char *const mark_name[TRAIN_PAT_COUNT] = { "prev", "first", "self", "dup", "ind" };

int train_draw_run_loss(const struct train_view *v, int y, int x, int w, int rows, int bottom)
{
	const struct train_record *r = &v->rec;
	int cols = w - LABEL_W;
	long n = r->last_step;
	if (y >= bottom || cols < 8)
		return y;
	if (n < 1) {
		draw_put(y++, x, w, "loss  (each step's loss on a log-step axis, once it trains)", theme_attr(ROLE_DIM));
		return y;
	}
	if (rows > bottom - y - 2)
		rows = bottom - y - 2 > 1 ? bottom - y - 2 : 1;
	/* the chart: each column the mean loss of its steps, 0 at the bottom */
	double vals[512], hi = 0;
	cols = cols > 512 ? 512 : cols;
	for (int c = 0; c < cols; c++) {
		long a, b;
		col_steps(c, n, cols, &a, &b);
		if (!train_record_loss_mean(r, a, b, &vals[c]))
			vals[c] = 0;
		hi = vals[c] > hi ? vals[c] : hi;
	}
	int cursor = v->scrub >= 0 && v->seen.step >= 1 ? step_col(v->seen.step, n, cols) : -1;
	static const char *bars[8] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587",
	                               "\u2588" };
	static const char ascii[8] = { '_', '.', '-', '~', '=', '+', '*', '#' };
	char label[32];
	for (int row = 0; row < rows && y < bottom; row++, y++) {
		/* the label column: the scale's top, and "loss" on the last row */
		if (row == 0 && rows > 1)
			snprintf(label, sizeof label, "%.2f", hi);
		else
			snprintf(label, sizeof label, row == rows - 1 ? "loss" : "");
		draw_put(y, x, LABEL_W, label, theme_attr(ROLE_DIM));
		int from_bottom = rows - 1 - row; /* rows of full blocks under this one */
		for (int c = 0; c < cols; c++) {
			double t = hi > 0 ? vals[c] / hi : 0;
			int eighths = (int)(t * rows * 8 + 0.5) - from_bottom * 8; /* this row's share */
			char glyph[2] = { ' ', '\0' };
			const char *cell = glyph;
			if (eighths >= 8) {
				glyph[0] = '#';
				cell = theme_utf8() ? bars[7] : glyph;
			} else if (eighths > 0 || (from_bottom == 0 && c < cols)) {
				int lev = eighths > 0 ? eighths - 1 : 0; /* the bottom row never blank: the lowest bar */
				glyph[0] = ascii[lev];
				cell = theme_utf8() ? bars[lev] : glyph;
			}
			attr_t at = theme_attr(ROLE_NORMAL) | (c == cursor ? A_REVERSE : 0);
			draw_put(y, x + LABEL_W + c, 1, cell, at);
		}
	}
	/* the marks: ^ at each head type's step, its name and step beside */
	if (y < bottom) {
		char marks[600];
		memset(marks, ' ', sizeof marks);
		/* the head types that formed, in step order, so labels go left to right */
		int order[TRAIN_PAT_COUNT], count = 0;
		for (int p = 0; p < TRAIN_PAT_COUNT; p++) {
			if (r->formed[p] < 1)
				continue;
			int k = count++;
			for (; k > 0 && r->formed[order[k - 1]] > r->formed[p]; k--)
				order[k] = order[k - 1];
			order[k] = p;
		}
		int end = 0; /* the first column a label may start */
		for (int k = 0; k < count; k++) {
			int p = order[k], c = step_col(r->formed[p], n, cols);
			/* the ^ stays at its column; its label before it when another
			 * mark follows (room for that one's), else after it; then
			 * shorter; then the ^ alone */
			char text[5][32];
			snprintf(text[0], 32, "^%s %ld", mark_name[p], r->formed[p]);
			snprintf(text[1], 32, "%s %ld^", mark_name[p], r->formed[p]);
			snprintf(text[2], 32, "^%s", mark_name[p]);
			snprintf(text[3], 32, "%s^", mark_name[p]);
			snprintf(text[4], 32, "^");
			static const int last[5] = { 0, 1, 2, 3, 4 }, more[5] = { 1, 0, 3, 2, 4 };
			for (int i = 0; i < 5; i++) {
				int t = k + 1 < count ? more[i] : last[i];
				int len = (int)strlen(text[t]), at = t % 2 ? c - len + 1 : c;
				if (at >= end && at + len <= cols) {
					memcpy(marks + at, text[t], (size_t)len);
					end = at + len + 1;
					break;
				}
			}
		}
		if (count == 0)
			memcpy(marks, "^ will mark the step each kind of head forms", 44);
		marks[cols] = '\0';
		draw_put(y, x, LABEL_W, "", theme_attr(ROLE_DIM));
		draw_put(y++, x + LABEL_W, cols, marks, theme_attr(ROLE_TITLE));
	}
	/* the axis: 1, 10, 100 ... at their columns, the last step at the end */
	if (y < bottom) {
		char axis[600];
		memset(axis, ' ', sizeof axis);
		/* the last step at the right end first; the powers of ten that
		 * leave a blank before it */
		char text[32];
		int nlen = n > 1 ? snprintf(text, sizeof text, "%ld", n) : 0, stop = cols - nlen - 1;
		if (nlen)
			memcpy(axis + cols - nlen, text, (size_t)nlen);
		int end = 0;
		for (long t = 1; t <= n; t *= 10) {
			int c = step_col(t, n, cols), len = snprintf(text, sizeof text, "%ld", t);
			if (c >= end && c + len <= (nlen ? stop : cols)) {
				memcpy(axis + c, text, (size_t)len);
				end = c + len + 1;
			}
			if (t > n / 10)
				break;
		}
		axis[cols] = '\0';
		draw_put(y, x, LABEL_W, "step", theme_attr(ROLE_DIM));
		draw_put(y++, x + LABEL_W, cols, axis, theme_attr(ROLE_DIM));
	}
	return y;
}
