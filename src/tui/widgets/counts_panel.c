/*
 * counts_panel.c - the counts panel: what the configuration costs, from
 * mha_counts() alone (this module never computes a count itself).
 *
 * Wide (>= COUNTS_WIDE columns): parameters and the KV cache per token on
 * the left, FLOPs on the right, then the ratio to one full-dimension head.
 * Narrow: one column, brief labels ("QK^T") where the full ones leave no
 * room. Shorter than either form needs (80x24 from Scores on): the compact
 * form, which keeps the totals, KV/token and the ratio and fills the rest
 * with the breakdowns, most telling first. Numbers carry thousands separators (1,048,576) and fall back to
 * k/M/G suffixes (1.05M) when their field is too narrow. The ratio line
 * says why it stays near x1.00 whatever h is: with h*d_k = d_model the
 * projections and the score / weighted-sum products cost the same as one
 * head of size d_model (only softmax's 5 n^2 per head grows with h).
 *
 * With masks or top-k, and room below the full form: what a sparse kernel
 * could skip (mha_counts' sparse fields; the dense FLOPs above never
 * change with them).
 *
 * It does not refresh, and draws nothing outside (y, x, height, width).
 */
#include "counts_panel.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pipeline.h"
#include "theme.h"

enum {
	COL_PARAMS = 20, /* "total 16,777,216" and room */
	COL_GAP = 2,
	COL_FLOPS = 27,  /* "weighted sum 2,214,592,512" */
	COUNTS_WIDE = COL_PARAMS + COL_GAP + COL_FLOPS,
	LINES_WIDE = 8,   /* titles, 6 rows, ratio */
	LINES_NARROW = 16, /* title, 5, title, 6, KV, ratio, why */
};

/* v with thousands separators, or "1.05M" when that is wider than w;
 * true when the exact form was used. */
static bool count_format(char *buf, size_t len, int64_t v, int w)
{
	char digits[32], out[48];
	int n = snprintf(digits, sizeof digits, "%" PRId64, v < 0 ? -v : v);
	int o = 0;
	if (v < 0)
		out[o++] = '-';
	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	if (o <= w) {
		snprintf(buf, len, "%s", out);
		return true;
	}
	static const char units[] = "kMGT";
	double x = (double)v / 1e3;
	int u = 0;
	while ((x >= 999.5 || x <= -999.5) && units[u + 1]) {
		x /= 1e3;
		u++;
	}
	/* three significant digits: 1.05M, 10.5M, 105M */
	double ax = x < 0 ? -x : x;
	snprintf(buf, len, "%.*f%c", ax < 9.995 ? 2 : ax < 99.95 ? 1 : 0, x, units[u]);
	return false;
}

struct row {
	const char *label, *brief; /* brief: for narrow panels */
	int64_t v;
};

/* A row of a weight matrix's parameters: its name, as the tensors have it. */
static struct row weight_row(enum mha_tensor t, int64_t v)
{
	return (struct row){ mha_tensor_info(t)->name, mha_tensor_info(t)->name, v };
}

/* A row of a stage's FLOPs: its label and short form, as the pipeline has them. */
static struct row stage_row(enum pipeline_stage s, int64_t v)
{
	return (struct row){ pipeline_stage_label(s), pipeline_stage_info(s)->brief, v };
}

/* "label ...... number" in width columns, the number right-aligned. In
 * order of preference: full label and exact number, brief label and exact
 * number, full label and 1.05M, brief label and 1.05M. */
static void row_draw(WINDOW *win, int y, int x, int width, const struct row *r)
{
	char num[48];
	const char *label = r->label;
	int room = width - (int)strlen(r->label) - 1, brief_room = width - (int)strlen(r->brief) - 1;
	if (!count_format(num, sizeof num, r->v, room)) {
		if (count_format(num, sizeof num, r->v, brief_room) || (int)strlen(num) > room)
			label = r->brief;
		else
			count_format(num, sizeof num, r->v, room);
	}
	int lw = (int)strlen(label), nw = (int)strlen(num);
	theme_addstr(win, y, x, width, label, theme_attr(ROLE_NORMAL));
	if (lw + 1 + nw <= width)
		theme_addstr(win, y, x + width - nw, nw, num, theme_attr(ROLE_NORMAL));
}

/* The ratio of total compute to one head with d_k = d_model, fitted to
 * width, always saying what it compares: "FLOPs: 1.04x one head of width
 * d_model", "FLOPs 1.04x a d_model-wide head", narrow "FLOPs 1.04x 1
 * head" (then the line under it defines that head, "1 head: d_k=d_model",
 * instead of the reason); and the reason ("h*d_k = d_model"). */
enum { RATIO_NAMED = 31 }; /* the narrowest figure that names its comparison in full (ratios < 10) */

static void ratio_text(char *fig, char *why, size_t len, const struct mha_config *c,
                       const struct mha_counts *k, int width)
{
	double r = k->flops_one_full_head > 0 ? (double)k->flops_total / (double)k->flops_one_full_head : 0;
	int hdk = c->h * c->dk;
	if (hdk != c->d)
		snprintf(why, len, "h*d_k %d %s d_model %d", hdk, hdk < c->d ? "<" : ">", c->d);
	else if (c->g != c->h)
		snprintf(why, len, "h*d_k = d_model, %d kv heads", c->g);
	else
		snprintf(why, len, "h*d_k = d_model");
	/* the unit said (it is compute, FLOPs, that is compared) and what it
	 * is compared with */
	if (snprintf(fig, len, "FLOPs: %.2fx one head of width d_model", r) <= width ||
	    (snprintf(fig, len, "FLOPs %.2fx a d_model-wide head", r) <= width && width >= RATIO_NAMED))
		return;
	if (snprintf(fig, len, "FLOPs %.2fx 1 head", r) > width)
		snprintf(fig, len, "%.2fx 1 head", r);
	snprintf(why, len, width >= 19 ? "1 head: d_k=d_model" : "head d_k=d_model");
}

/* With masks or top-k: the work a sparse kernel could skip (mha_counts'
 * sparse fields), under the dense counts when the panel has room: a
 * title and two rows narrow, one line wide. Nothing without them. */
static bool sparse_any(const struct mha_counts *k)
{
	return k->flops_scores_masked > 0 || k->flops_weighted_skippable > 0;
}

static int sparse_draw(WINDOW *win, int y, int x, int height, int width, const struct mha_counts *k)
{
	char text[160], a[48], b[48];
	if (!sparse_any(k) || height <= 0)
		return 0;
	if (width >= COUNTS_WIDE) {
		count_format(a, sizeof a, k->flops_scores_masked, 12);
		count_format(b, sizeof b, k->flops_weighted_skippable, 12);
		int n = snprintf(text, sizeof text, "a sparse kernel could skip: QK^T %s, PV %s FLOPs", a, b);
		if (k->flops_sparse_saving > 0 && n < (int)sizeof text)
			snprintf(text + n, sizeof text - (size_t)n, " (top-k wins if its selector < %.1f a pair)",
			         k->selector_break_even);
		theme_addstr(win, y, x, width, text, theme_attr(ROLE_HINT));
		return 1;
	}
	const struct row rows[] = {
		{ "masked QK^T", "QK^T", k->flops_scores_masked },
		{ "zero-weight PV", "PV", k->flops_weighted_skippable },
	};
	if (height < 3)
		return 0;
	theme_addstr(win, y, x, width, "Sparse could skip", theme_attr(ROLE_TITLE));
	for (int i = 0; i < 2; i++)
		row_draw(win, y + 1 + i, x, width, &rows[i]);
	return 3;
}

int counts_panel_height(int width)
{
	return width >= COUNTS_WIDE ? LINES_WIDE : LINES_NARROW;
}

/* A stack's two totals, every layer counted (mha_counts: params_stack,
 * flops_stack), their labels in full and brief: "3 layers params",
 * "3 layers FLOPs"; "L3 params", "L3 FLOPs". */
static void stack_labels(const struct mha_config *c, char lp[32], char lf[32], char bp[16], char bf[16])
{
	snprintf(lp, 32, "%d layers params", c->layers);
	snprintf(lf, 32, "%d layers FLOPs", c->layers);
	snprintf(bp, 16, "L%d params", c->layers);
	snprintf(bf, 16, "L%d FLOPs", c->layers);
}

/* The line with a stack's totals, in at most width columns: "3 layers:
 * 3,072 params, 32,928 FLOPs (each layer + n d residual adds)", then
 * shorter; "" when no form fits. */
static void stack_text(char *out, size_t len, const struct mha_config *c, const struct mha_counts *k, int width)
{
	char p[32], f[32];
	count_format(p, sizeof p, k->params_stack, 20);
	count_format(f, sizeof f, k->flops_stack, 20);
	if (snprintf(out, len, "%d layers: %s params, %s FLOPs (each layer + n d residual adds)", c->layers, p, f) <=
	        width ||
	    snprintf(out, len, "%d layers: %s params, %s FLOPs", c->layers, p, f) <= width)
		return;
	if (snprintf(out, len, "L%d: %s params %s FLOPs", c->layers, p, f) > width)
		out[0] = '\0';
}

/* The compact form, for panels shorter than the full one: totals first,
 * each breakdown indented under its total, as many lines as the height
 * allows. Lines are chosen by importance (the totals, KV/token and the ratio
 * are never dropped while there is a line for them: they are the essentials)
 * and shown in reading order. A breakdown cut short ends in a line "other"
 * holding the parts left out, so the indented lines always add up to the
 * total above them (W^Q, W^K, W^V alone, 768 under 1,024, read as if W^O
 * had no parameters). */
enum compact_kind { C_ROW, C_SUB, C_FIG, C_WHY };
struct compact_line {
	int prio;               /* 0 = kept first; -1 not this configuration's */
	enum compact_kind kind;
	struct row row;         /* C_ROW, C_SUB */
	int group;              /* C_SUB: which breakdown (1, 2); 0 none */
};

/* Lines a breakdown of size n takes with m of its parts shown: the parts,
 * and "other" unless all or none are. */
static int group_lines(int m, int n)
{
	return m == 0 || m == n ? m : m + 1;
}

static void compact_draw(WINDOW *win, int y, int x, int height, int width, const struct mha_config *c,
                         const struct mha_counts *k)
{
	/* a stack: the rows are one layer's, and its two totals come right
	 * after the layer's (s = 2 lines more before the rest) */
	const bool stack = c->layers > 1;
	const int s = stack ? 2 : 0;
	char lp[32], lf[32], bp[16], bf[16];
	stack_labels(c, lp, lf, bp, bf);
	const struct compact_line lines[] = {
		{ 0, C_ROW, { stack ? "Params/layer" : "Parameters", stack ? "par/layer" : "params", k->params_total }, 0 },
		{ 10 + s, C_SUB, weight_row(MHA_T_WQ, k->params_wq), 1 },
		{ 11 + s, C_SUB, weight_row(MHA_T_WK, k->params_wk), 1 },
		{ 12 + s, C_SUB, weight_row(MHA_T_WV, k->params_wv), 1 },
		{ 13 + s, C_SUB, weight_row(MHA_T_WO, k->params_wo), 1 },
		{ 1, C_ROW, { stack ? "FLOPs/layer" : "FLOPs", stack ? "FL/layer" : "FLOPs", k->flops_total }, 0 },
		{ 5 + s, C_SUB, stage_row(PIPELINE_PROJECTION, k->flops_projection), 2 },
		{ 6 + s, C_SUB, stage_row(PIPELINE_SCORES, k->flops_scores), 2 },
		{ 8 + s, C_SUB, stage_row(PIPELINE_SOFTMAX, k->flops_softmax), 2 },
		{ 7 + s, C_SUB, stage_row(PIPELINE_WEIGHTED_SUM, k->flops_weighted_sum), 2 },
		{ 9 + s, C_SUB, stage_row(PIPELINE_OUTPUT, k->flops_output), 2 },
		{ stack ? 2 : -1, C_ROW, { lp, bp, k->params_stack }, 0 },
		{ stack ? 3 : -1, C_ROW, { lf, bf, k->flops_stack }, 0 },
		{ 2 + s, C_ROW, { stack ? "KV/token/layer" : "KV values/token", "KV/token", k->kv_cache_per_token }, 0 },
		{ 3 + s, C_FIG, { "", "", 0 }, 0 },
		{ 4 + s, C_WHY, { "", "", 0 }, 0 },
	};
	enum { N = sizeof lines / sizeof lines[0], GROUPS = 3 };
	/* choose in order of importance: a line is kept when what it adds
	 * (a part, and the "other" its breakdown then needs) still fits */
	bool keep[N] = { false };
	int size[GROUPS] = { 0 }, shown[GROUPS] = { 0 }, used = 0;
	for (int i = 0; i < N; i++)
		size[lines[i].group]++;
	for (int prio = 0; prio < N; prio++)
		for (int i = 0; i < N; i++) {
			if (lines[i].prio != prio)
				continue;
			int g = lines[i].group;
			int cost = g ? group_lines(shown[g] + 1, size[g]) - group_lines(shown[g], size[g]) : 1;
			if (used + cost > height)
				continue;
			keep[i] = true;
			used += cost;
			if (g)
				shown[g]++;
		}
	char fig[64], why[64];
	ratio_text(fig, why, sizeof fig, c, k, width);
	int line = 0;
	int64_t left_out = 0;
	for (int i = 0; i < N && line < height; i++) {
		int g = lines[i].group;
		bool group_end = g && (i + 1 == N || lines[i + 1].group != g);
		if (g && !keep[i])
			left_out += lines[i].row.v;
		if (group_end && (shown[g] == 0 || left_out == 0))
			left_out = 0; /* all shown, or none */
		else if (group_end) {
			/* the breakdown's end: the parts left out, as one */
			if (keep[i] && width > 1)
				row_draw(win, y + line++, x + 1, width - 1, &lines[i].row);
			const struct row other = { "other", "other", left_out };
			if (line < height && width > 1)
				row_draw(win, y + line++, x + 1, width - 1, &other);
			left_out = 0;
			continue;
		}
		if (!keep[i])
			continue;
		int yy = y + line++;
		switch (lines[i].kind) {
		case C_ROW:
			row_draw(win, yy, x, width, &lines[i].row);
			break;
		case C_SUB: /* one space of indent: a part of the total above */
			if (width > 1)
				row_draw(win, yy, x + 1, width - 1, &lines[i].row);
			break;
		case C_FIG:
			theme_addstr(win, yy, x, width, fig, theme_attr(ROLE_NORMAL));
			break;
		case C_WHY:
			theme_addstr(win, yy, x, width, why, theme_attr(ROLE_HINT));
			break;
		}
	}
}

void counts_panel_draw(WINDOW *win, int y, int x, int height, int width, const struct mha_config *c)
{
	if (height <= 0 || width <= 0)
		return;
	const struct mha_counts k = mha_counts(c);
	if (height < counts_panel_height(width)) {
		compact_draw(win, y, x, height, width, c, &k);
		return;
	}
	/* a stack: the rows are one layer's (every layer has the same shape),
	 * and a line gives the totals of all of them */
	const bool stack = c->layers > 1;
	const char *ptitle = stack ? "Params, each layer" : "Parameters", *ftitle = stack ? "FLOPs, each layer" : "FLOPs";
	const struct row params[] = {
		weight_row(MHA_T_WQ, k.params_wq), weight_row(MHA_T_WK, k.params_wk),
		weight_row(MHA_T_WV, k.params_wv), weight_row(MHA_T_WO, k.params_wo),
		{ "total", "all", k.params_total },
	}, flops[] = {
		stage_row(PIPELINE_PROJECTION, k.flops_projection), stage_row(PIPELINE_SCORES, k.flops_scores),
		stage_row(PIPELINE_SOFTMAX, k.flops_softmax), stage_row(PIPELINE_WEIGHTED_SUM, k.flops_weighted_sum),
		stage_row(PIPELINE_OUTPUT, k.flops_output), { "total", "all", k.flops_total },
	}, kv = { stack ? "KV/token/layer" : "KV values/token", "KV/token", k.kv_cache_per_token }; /* K and V
	                                                                  * values cached per token */
	enum { NP = sizeof params / sizeof params[0], NF = sizeof flops / sizeof flops[0] };
	attr_t title = theme_attr(ROLE_TITLE), normal = theme_attr(ROLE_NORMAL);
	char fig[64], why[64], text[160];
	int line = 0;

	if (width >= COUNTS_WIDE) {
		int fx = x + COL_PARAMS + COL_GAP;
		theme_addstr(win, y, x, COL_PARAMS, ptitle, title);
		theme_addstr(win, y, fx, COL_FLOPS, ftitle, title);
		for (line = 1; line <= NF && line < height; line++) {
			/* the line under the parameters holds the KV cache */
			row_draw(win, y + line, x, COL_PARAMS, line <= NP ? &params[line - 1] : &kv);
			row_draw(win, y + line, fx, COL_FLOPS, &flops[line - 1]);
		}
		if (stack && line < height) { /* before the ratio: what the stack costs in all */
			stack_text(text, sizeof text, c, &k, width);
			theme_addstr(win, y + line++, x, width, text, normal);
		}
		if (line < height) {
			ratio_text(fig, why, sizeof fig, c, &k, width);
			/* the long reason when it fits (the point of the ratio), else
			 * the reason, in brackets beside the widest figure that leaves
			 * it room and still names its comparison */
			char reason[128];
			snprintf(reason, sizeof reason, "%s", why);
			if (c->h * c->dk == c->d && c->g == c->h /* GQA: K, V follow g, not h */
			    && width - (int)strlen(why) - 40 >= RATIO_NAMED)
				snprintf(reason, sizeof reason, "%s, so params and matmul FLOPs ignore h", why);
			int room = width - (int)strlen(reason) - 3;
			if (room >= RATIO_NAMED)
				ratio_text(fig, why, sizeof fig, c, &k, room);
			snprintf(text, sizeof text, "%s (%s)", fig, reason);
			if ((int)strlen(text) <= width) {
				theme_addstr(win, y + line++, x, width, text, normal);
			} else { /* too long for one line: the figure, its reason under it */
				theme_addstr(win, y + line++, x, width, fig, normal);
				if (line < height && (int)strlen(why) <= width)
					theme_addstr(win, y + line++, x, width, why, theme_attr(ROLE_HINT));
			}
			sparse_draw(win, y + line, x, height - line, width, &k);
		}
		return;
	}
	if (line < height)
		theme_addstr(win, y + line++, x, width, stack ? "Params/layer" : "Parameters", title);
	for (int i = 0; i < NP && line < height; i++)
		row_draw(win, y + line++, x, width, &params[i]);
	if (line < height)
		theme_addstr(win, y + line++, x, width, stack ? "FLOPs/layer" : "FLOPs", title);
	for (int i = 0; i < NF && line < height; i++)
		row_draw(win, y + line++, x, width, &flops[i]);
	if (line < height)
		row_draw(win, y + line++, x, width, &kv);
	if (stack) { /* the stack's totals in the ratio's two lines; the ratio after, if there is room */
		char lp[32], lf[32], bp[16], bf[16];
		stack_labels(c, lp, lf, bp, bf);
		const struct row all[2] = { { lp, bp, k.params_stack }, { lf, bf, k.flops_stack } };
		for (int i = 0; i < 2 && line < height; i++)
			row_draw(win, y + line++, x, width, &all[i]);
	}
	ratio_text(fig, why, sizeof fig, c, &k, width);
	if (line < height)
		theme_addstr(win, y + line++, x, width, fig, normal);
	if (line < height)
		theme_addstr(win, y + line++, x, width, why, theme_attr(ROLE_HINT));
	sparse_draw(win, y + line, x, height - line, width, &k);
}
