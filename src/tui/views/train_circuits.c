/*
 * train_circuits.c - the training screen's circuits page, a mode of its
 * own (k from the training screen; k or Esc goes back): what each head of
 * the model as trained so far reads and writes, and how the layers'
 * heads work together, in six pages (Tab, or 1-6):
 *   heads      each head's ranks, copying score, own-top share, attention
 *              scores on probes (previous, first, self, duplicate) and
 *              prefix matching at each period, and the induction call;
 *   circuit    the selected head's QK and OV circuits (W_QK, W_OV: rank,
 *              norm, singular values; copying and the eigenvalues of
 *              E W_OV U) and one token-space view as a heatmap
 *              (E W_QK E^T, P W_QK P^T, E W_OV U: v picks);
 *   compose    the composition table from layer 0 to layer 1, Q K V,
 *              against random heads of the same shapes;
 *   ablate     zero, mean and resample ablation of each head and of each
 *              path into the next layer (through its Q, K or V only);
 *   patch      activation patching of each head and path patching into
 *              one input of a later head, and the path it names;
 *   lens       the logit lens and each part's direct logit attribution at
 *              a chosen position (, and . move it).
 * Every number is the circuits library's (src/train/circuits.h), made
 * once per state of the model by circ_report_make with its defaults (the
 * numbers `mha-tui --circuits` prints for the same model); this file
 * only lays them out, and each page ends with a legend of its
 * abbreviations. It trains nothing and computes no attention.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits.h"
#include "draw.h"
#include "heatmap.h"
#include "mode.h"
#include "theme.h"
#include "train.h"
#include "train_view.h"
#include "train_view_int.h"

enum circ_page_id { PAGE_HEADS, PAGE_CIRCUIT, PAGE_COMPOSE, PAGE_ABLATE, PAGE_PATCH, PAGE_LENS, PAGES };
static const char *const page_names[PAGES] = { "heads", "circuit", "compose", "ablate", "patch", "lens" };
/* the token-space views the circuit page shows, v cycles */
static const enum circ_view shown_views[] = { CIRC_VIEW_QK_TOKENS, CIRC_VIEW_QK_POS, CIRC_VIEW_OV_TOKENS };
enum { SHOWN_VIEWS = sizeof shown_views / sizeof shown_views[0] };

/* The page's own state: the report and what it was made from. */
struct circ_page {
	bool made;
	struct circ_report r;
	const struct train_task *task; /* the model it was made for: task, seed, step, heads off */
	uint64_t seed;
	long step;
	bool off[TRAIN_MAX_LAYERS][MHA_MAX_HEADS];
	int position;        /* the lens's position (-1: the library's default) */
	enum circ_page_id page;
	int sel;             /* the selected head, l h + i */
	int view;            /* index into shown_views */
	float *buf;          /* the shown view as floats, for the heatmap */
	size_t buf_len;
	bool buf_ok;         /* buf holds view `view` of head `sel` */
};

/* The selected head's shown view into p->buf as floats (the heatmap's
 * type); buf_ok false when the report does not hold it whole. */
static void view_fill(struct circ_page *p)
{
	enum circ_view v = shown_views[p->view];
	struct circ_view_info vi = circ_view_info(p->r.cm, v);
	const double *src = p->r.views[p->sel * CIRC_VIEWS + v];
	size_t len = (size_t)vi.rows * vi.cols;
	p->buf_ok = false;
	if (!src)
		return;
	if (p->buf_len < len) {
		float *nb = realloc(p->buf, len * sizeof *nb);
		if (!nb)
			return;
		p->buf = nb;
		p->buf_len = len;
	}
	for (size_t k = 0; k < len; k++)
		p->buf[k] = (float)src[k];
	p->buf_ok = true;
}

static struct circ_page *cp(struct app *app)
{
	return mode_state(app, &train_circuits_mode);
}

/* Is the report made for the model as it is now? */
static bool page_current(const struct circ_page *p, const struct train_view *v)
{
	return p->made && p->task == v->task && p->seed == v->seed && p->step == trainer_steps(v->tr) &&
	       memcmp(p->off, v->m.head_off, sizeof p->off) == 0;
}

/* The report for the model as trained so far; false with a message when
 * it cannot be made. */
static bool page_make(struct app *app, struct circ_page *p, const struct train_view *v)
{
	if (page_current(p, v))
		return true;
	if (p->made)
		circ_report_free(&p->r);
	p->made = false;
	struct circ_options o = CIRC_OPTIONS_DEFAULT;
	o.position = p->position;
	char msg[MHA_MSG_MAX];
	if (circ_report_make(&p->r, &v->m, v->task, &o, msg, sizeof msg) != MHA_OK) {
		app_message(app, true, "circuits: %s", msg);
		return false;
	}
	p->made = true;
	p->task = v->task;
	p->seed = v->seed;
	p->step = trainer_steps(v->tr);
	memcpy(p->off, v->m.head_off, sizeof p->off);
	p->position = p->r.lens.position;
	if (p->sel >= p->r.s.layers * p->r.s.h)
		p->sel = 0;
	view_fill(p);
	return true;
}

static bool circuits_enter(struct app *app)
{
	struct circ_page *p = cp(app);
	if (!train_view_ready(app))
		return false;
	const struct train_view *v = train_view_now(app);
	if (!p || !v || !v->tr) {
		app_message(app, true, "circuits: out of memory");
		return false;
	}
	if (!p->made)
		p->position = -1;
	return page_make(app, p, v);
}

static void circuits_done(void *state)
{
	struct circ_page *p = state;
	if (p->made)
		circ_report_free(&p->r);
	free(p->buf);
}

/* ---- keys ---- */

static unsigned next_page(struct app *app)
{
	cp(app)->page = (cp(app)->page + 1) % PAGES;
	return APP_REDRAW;
}

static unsigned pick_page(struct app *app, int arg, int key)
{
	(void)arg;
	if (key < '1' || key >= '1' + PAGES)
		return 0;
	cp(app)->page = (enum circ_page_id)(key - '1');
	return APP_REDRAW;
}

static unsigned next_head(struct app *app)
{
	struct circ_page *p = cp(app);
	p->sel = (p->sel + 1) % (p->r.s.layers * p->r.s.h);
	view_fill(p);
	return APP_REDRAW;
}

static unsigned next_view(struct app *app)
{
	struct circ_page *p = cp(app);
	p->view = (p->view + 1) % SHOWN_VIEWS;
	p->page = PAGE_CIRCUIT;
	view_fill(p);
	return APP_REDRAW;
}

/* The lens one position earlier or later: the report made again there. */
static unsigned move_position(struct app *app, int by)
{
	struct circ_page *p = cp(app);
	const struct train_view *v = train_view_now(app);
	int n = p->r.s.n, to = p->position + by;
	if (to < 0 || to >= n) {
		app_message(app, false, "the lens reads positions 0 to %d", n - 1);
		return APP_REDRAW;
	}
	p->position = to;
	p->made = false;
	circ_report_free(&p->r);
	page_make(app, p, v);
	p->page = PAGE_LENS;
	return APP_REDRAW;
}

static unsigned earlier(struct app *app)
{
	return move_position(app, -1);
}

static unsigned later(struct app *app)
{
	return move_position(app, 1);
}

static unsigned back(struct app *app)
{
	return train_view_back(app);
}

/* ---- drawing ---- */

/* A text cursor down the body: lines that no longer fit are dropped. */
struct pen {
	int y, x, w, bottom;
};

static void put(struct pen *pn, enum theme_role role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(struct pen *pn, enum theme_role role, const char *fmt, ...)
{
	if (pn->y >= pn->bottom)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	draw_put(pn->y++, pn->x, pn->w, line, theme_attr(role));
}

/* The legend's lines at the bottom, as many as fit under what is drawn. */
static void legend(struct pen *pn, const char *const *lines, int count)
{
	int room = pn->bottom - pn->y - 1;
	if (room <= 0)
		return;
	pn->y = pn->bottom - (count < room ? count : room);
	for (int k = 0; k < count && pn->y < pn->bottom; k++)
		put(pn, ROLE_DIM, "%s", lines[k]);
}

/* "+0.285", or "    -" for an undefined figure. */
static const char *num(char *buf, size_t len, double x, const char *fmt)
{
	if (isnan(x))
		snprintf(buf, len, "%*s", (int)strlen(fmt) + 1, "-");
	else
		snprintf(buf, len, fmt, x);
	return buf;
}

static void head_name(char *buf, size_t len, const struct circ_report *r, int k)
{
	snprintf(buf, len, "L%dH%d", k / r->s.h, k % r->s.h);
}

static void draw_heads(const struct circ_page *p, struct pen *pn)
{
	const struct circ_report *r = &p->r;
	bool wide = pn->w >= 90;
	char line[256], a[16], b[16];
	int n = snprintf(line, sizeof line, "head  QK OV   copy   own  prev%s |", wide ? " first  self   dup" : "");
	for (int q = 0; q < CIRC_PERIODS; q++)
		if (!isnan(r->heads[0].prefix[q]))
			n += snprintf(line + n, sizeof line - (size_t)n, " %4d", circ_periods[q]);
	snprintf(line + n, sizeof line - (size_t)n, "  call");
	put(pn, ROLE_DIM, "%s", line);
	for (int k = 0; k < r->s.layers * r->s.h; k++) {
		const struct circ_head *hd = &r->heads[k];
		char name[32];
		head_name(name, sizeof name, r, k);
		n = snprintf(line, sizeof line, "%s%c %2d %2d %s %s %5.2f", name, hd->off ? '*' : ' ', hd->qk.rank,
		             hd->ov.rank, num(a, sizeof a, hd->copying, "%+6.3f"), num(b, sizeof b, hd->own_top, "%5.2f"),
		             hd->previous);
		if (wide)
			n += snprintf(line + n, sizeof line - (size_t)n, " %5.2f %5.2f %5.2f", hd->first, hd->self, hd->duplicate);
		n += snprintf(line + n, sizeof line - (size_t)n, " |");
		for (int q = 0; q < CIRC_PERIODS; q++)
			if (!isnan(hd->prefix[q]))
				n += snprintf(line + n, sizeof line - (size_t)n, " %4.2f", hd->prefix[q]);
		snprintf(line + n, sizeof line - (size_t)n, "  %s", hd->induction ? "induction" : "-");
		put(pn, hd->induction ? ROLE_TITLE : ROLE_NORMAL, "%s", line);
	}
	char l1[96];
	snprintf(l1, sizeof l1, "QK OV: rank of W_QK = Q_i K_i^T, W_OV = V_i O_i (at most d_k %d)", r->s.dk);
	const char *lines[] = {
		l1,
		"copy: copying score, sum(lambda)/sum|lambda| over E W_OV U (+1 copies)",
		"own: share of tokens whose own logit is the largest of their E W_OV U row",
		wide ? "prev first self dup: attention to the token before, the first, itself, a copy"
		     : "prev: attention to the token before, on probes",
		"4 8 ..: prefix matching at that repeat period (sequences never trained on)",
		"induction: prefix matching >= 0.50 at every period and copy > 0; * off",
	};
	legend(pn, lines, 6);
}

static void draw_circuit(const struct circ_page *p, struct pen *pn)
{
	const struct circ_report *r = &p->r;
	const struct circ_head *hd = &r->heads[p->sel];
	char name[32], line[256];
	head_name(name, sizeof name, r, p->sel);
	int l = p->sel / r->s.h, i = p->sel % r->s.h;
	put(pn, ROLE_TITLE, "%s%s: what it reads (QK) and what it writes (OV)", name, hd->off ? " (off)" : "");
	const struct circ_rank *rk[2] = { &hd->qk, &hd->ov };
	const char *what[2] = { "W_QK = Q_i K_i^T", "W_OV = V_i O_i" };
	for (int k = 0; k < 2; k++) {
		put(pn, ROLE_NORMAL, "%s  %dx%d, rank %d of d_k %d (not %d), |.|_F %.3f", what[k], r->s.d, r->s.d,
		    rk[k]->rank, r->s.dk, r->s.d, rk[k]->norm);
		int n = snprintf(line, sizeof line, "  singular values:");
		for (int q = 0; q < r->s.dk && q < 6; q++)
			n += snprintf(line + n, sizeof line - (size_t)n, " %.3g", rk[k]->sv[q]);
		snprintf(line + n, sizeof line - (size_t)n, "%s, then %d zeros", r->s.dk > 6 ? " ..." : "", r->s.d - r->s.dk);
		put(pn, ROLE_DIM, "%s", line);
	}
	if (hd->token_space) {
		char a[16];
		int n = snprintf(line, sizeof line, "copying %s, own top %.2f; eigenvalues of E W_OV U:",
		                 num(a, sizeof a, hd->copying, "%+.3f"), hd->own_top);
		for (int q = 0; q < r->s.dk && q < 3; q++)
			n += snprintf(line + n, sizeof line - (size_t)n, " %.3g%+.2gi", hd->eig_re[q], hd->eig_im[q]);
		put(pn, ROLE_NORMAL, "%s", line);
	} else {
		put(pn, ROLE_NORMAL, "copying: - (tokens in and classes out differ for this task)");
	}
	enum circ_view v = shown_views[p->view];
	struct circ_view_info vi = circ_view_info(r->cm, v);
	const float *m = p->buf_ok ? p->buf : NULL;
	put(pn, ROLE_TITLE, "%s %dx%d of L%dH%d (v: the next view)", vi.formula, vi.rows, vi.cols, l, i);
	put(pn, ROLE_DIM, "%s", v == CIRC_VIEW_QK_TOKENS ? "row: the query's token, column: the key's; high: attends"
	                        : v == CIRC_VIEW_QK_POS ? "row: the query's position, column: the key's"
	                                                : "row: the token attended to, column: the logit it adds");
	const char *lines[] = {
		"E: embeddings, P: position embeddings, U: read-out, all on this head's",
		"direct path only (what layer 0 writes also reaches a layer-1 head)",
	};
	int legend_h = 2;
	struct heatmap hm = { .m = m, .rows = vi.rows, .cols = vi.cols, .cur_row = -1, .cur_col = -1,
	                      .title = vi.formula, .title_attr = theme_head_attr(i), .scale = HEATMAP_SCALE_MAP };
	if (m)
		heatmap_range(&hm, -1, &hm.lo, &hm.hi);
	struct heatmap_size hs = heatmap_measure(&hm, 2);
	if (m && hs.rows + 1 <= pn->bottom - pn->y - legend_h && hs.cols <= pn->w) {
		heatmap_draw(stdscr, pn->y, pn->x, &hm, 2);
		pn->y += hs.rows;
		heatmap_legend_draw(stdscr, pn->y++, pn->x, pn->w < 60 ? pn->w : 60, hm.lo, hm.hi);
	} else {
		put(pn, ROLE_DIM, "its heatmap needs %d columns and %d rows: a larger terminal", hs.cols, hs.rows + 1);
	}
	legend(pn, lines, legend_h);
}

static void draw_compose(const struct circ_page *p, struct pen *pn)
{
	const struct circ_report *r = &p->r;
	if (r->ncomp == 0) {
		put(pn, ROLE_NORMAL, "one layer: no heads in a later layer to compose with");
		return;
	}
	int h = r->s.h;
	for (int l = 0; l < r->ncomp; l++) {
		const struct circ_composition *c = &r->comp[l];
		const struct circ_baseline *bl = &c->baseline;
		put(pn, ROLE_TITLE, "composition layer %d -> %d: how much a head of layer %d reads what one of %d wrote", l,
		    l + 1, l + 1, l);
		put(pn, ROLE_NORMAL, "random heads (%d draws): Q %.3f+-%.3f  K %.3f+-%.3f  V %.3f+-%.3f", bl->draws,
		    bl->mean[CIRC_Q], bl->sd[CIRC_Q], bl->mean[CIRC_K], bl->sd[CIRC_K], bl->mean[CIRC_V], bl->sd[CIRC_V]);
		put(pn, ROLE_DIM, "from  to        Q       K       V");
		for (int a = 0; a < h; a++)
			for (int b = 0; b < h; b++) {
				char line[128];
				int n = snprintf(line, sizeof line, "L%dH%d L%dH%d ", l, a, l + 1, b);
				bool strong = false;
				for (int in = 0; in < CIRC_INPUTS; in++) {
					double s = c->score[in][a * h + b];
					bool above = s > bl->mean[in] + 2 * bl->sd[in];
					strong = strong || above;
					n += snprintf(line + n, sizeof line - (size_t)n, "  %.3f%c", s, above ? '+' : ' ');
				}
				put(pn, strong ? ROLE_TITLE : ROLE_NORMAL, "%s", line);
			}
	}
	const char *lines[] = {
		"Q: b's queries read a's write, ||W_OV^a W_QK^b||; K: its keys,",
		"||W_QK^b (W_OV^a)^T||; V: its values, ||W_OV^a W_OV^b||; each over the",
		"two factors' norms (Frobenius). +: above random by more than 2 sd",
	};
	legend(pn, lines, 3);
}

static void draw_ablate(const struct circ_page *p, struct pen *pn)
{
	const struct circ_report *r = &p->r;
	const struct circ_ablation_result *ab = &r->ablation;
	int h = r->s.h;
	put(pn, ROLE_TITLE, "ablation on %d held-out sequences: accuracy (loss)", ab->sequences);
	put(pn, ROLE_NORMAL, "every head as trained: %.3f (%.3f)", ab->clean.accuracy, ab->clean.loss);
	put(pn, ROLE_DIM, "head     zero            mean            resample");
	for (int k = 0; k < r->s.layers * h; k++) {
		char line[160], name[32];
		head_name(name, sizeof name, r, k);
		int n = snprintf(line, sizeof line, "%-6s", name);
		for (int a = 0; a < CIRC_ABLATIONS; a++) {
			const struct train_stats *st = &ab->head[k * CIRC_ABLATIONS + a];
			n += snprintf(line + n, sizeof line - (size_t)n, "  %.3f (%6.3f)", st->accuracy, st->loss);
		}
		put(pn, ROLE_NORMAL, "%s", line);
	}
	if (r->s.layers > 1) {
		put(pn, ROLE_DIM, "path: removed from one input of the next layer   zero   mean  resample");
		for (int k = 0; k < (r->s.layers - 1) * h; k++)
			for (int in = 0; in < CIRC_INPUTS; in++) {
				char name[32];
				head_name(name, sizeof name, r, k);
				const struct train_stats *st = &ab->path[(k * CIRC_INPUTS + in) * CIRC_ABLATIONS];
				bool drop = st[0].accuracy < ab->clean.accuracy - 0.2;
				put(pn, drop ? ROLE_TITLE : ROLE_NORMAL, "%s -> L%d through %s %24s %.3f  %.3f  %.3f", name,
				    k / h + 1, in == CIRC_Q ? "Q" : in == CIRC_K ? "K" : "V", "", st[0].accuracy, st[1].accuracy,
				    st[2].accuracy);
			}
	}
	const char *lines[] = {
		"zero: the head's output O_i set to 0; mean: its mean over the sequences",
		"at that position; resample: its value on another sequence. A path: only",
		"that input (Q, K or V) of every head of the next layer loses the write",
	};
	legend(pn, lines, 3);
}

static void draw_patch(const struct circ_page *p, struct pen *pn)
{
	const struct circ_report *r = &p->r;
	const struct circ_patching *pt = &r->patching;
	int h = r->s.h;
	put(pn, ROLE_TITLE, "patching on %d clean / corrupt pairs (%ld answers)", pt->pairs, pt->counted);
	put(pn, ROLE_NORMAL, "log p(answer): clean %.3f (accuracy %.2f), corrupt %.3f (accuracy %.2f)",
	    pt->clean.log_prob, pt->clean.accuracy, pt->corrupt.log_prob, pt->corrupt.accuracy);
	char line[256];
	int n = snprintf(line, sizeof line, "head's clean output restores:");
	for (int k = 0; k < r->s.layers * h; k++) {
		char name[32];
		head_name(name, sizeof name, r, k);
		char a[16];
		n += snprintf(line + n, sizeof line - (size_t)n, " %s %s", name, num(a, sizeof a, pt->head[k].restored, "%+.3f"));
	}
	put(pn, ROLE_NORMAL, "%s", line);
	if (r->s.layers > 1) {
		put(pn, ROLE_DIM, "path: sender -> receiver        Q       K       V");
		for (int k = 0; k < (r->s.layers - 1) * h; k++)
			for (int b = 0; b <= h; b++) {
				char name[32], to[32];
				head_name(name, sizeof name, r, k);
				if (b == h)
					snprintf(to, sizeof to, "L%d (all)", k / h + 1);
				else
					snprintf(to, sizeof to, "L%dH%d", k / h + 1, b);
				const struct circ_outcome *o = &pt->path[((size_t)k * (h + 1) + b) * CIRC_INPUTS];
				char q[16], kk[16], vv[16];
				put(pn, b == h ? ROLE_NORMAL : ROLE_DIM, "%-6s -> %-14s %s  %s  %s", name, to,
				    num(q, sizeof q, o[CIRC_Q].restored, "%+.3f"), num(kk, sizeof kk, o[CIRC_K].restored, "%+.3f"),
				    num(vv, sizeof vv, o[CIRC_V].restored, "%+.3f"));
			}
		if (pt->named_layer >= 0)
			put(pn, ROLE_TITLE, "the path: L%dH%d -> layer %d through %s (%.3f of the clean answer back)",
			    pt->named_layer, pt->named_head, pt->named_layer + 1,
			    pt->named_input == CIRC_Q ? "Q" : pt->named_input == CIRC_K ? "K" : "V", pt->named_restored);
		else if (isnan(pt->head[0].restored))
			put(pn, ROLE_NORMAL, "clean and corrupt answers hardly differ yet (under %.1f nats): nothing to restore",
			    CIRC_PATCH_MIN_GAP);
		else
			put(pn, ROLE_NORMAL, "no path restores the clean answer");
	}
	const char *lines[] = {
		"corrupt: the first copy of the repeated block changed, so only matching",
		"a token's previous token finds the answer; restored = (patched - corrupt)",
		"/ (clean - corrupt) of the mean log p(answer): 1 all back, 0 nothing",
	};
	legend(pn, lines, 3);
}

static void lens_line(struct pen *pn, const char *what, const struct circ_lens_entry *e, bool answer)
{
	char line[256];
	int n = answer ? snprintf(line, sizeof line, "%-16s %8.3f %4d   ", what, e->target_logit, e->target_rank)
	               : snprintf(line, sizeof line, "%-16s %8s %4s   ", what, "-", "-");
	for (int t = 0; t < CIRC_TOP; t++)
		n += snprintf(line + n, sizeof line - (size_t)n, " %d", e->top[t]);
	put(pn, e->target_rank == 1 ? ROLE_TITLE : ROLE_NORMAL, "%s", line);
}

static void draw_lens(const struct circ_page *p, struct pen *pn)
{
	const struct circ_report *r = &p->r;
	const struct circ_lens *ln = &r->lens;
	bool answer = ln->target >= 0;
	int pos = ln->position;
	if (answer)
		put(pn, ROLE_TITLE, "logit lens at position %d (token %d, answer %d) of a held-out sequence", pos,
		    ln->tokens[pos], ln->target);
	else
		put(pn, ROLE_TITLE, "logit lens at position %d (token %d, no answer there)", pos, ln->tokens[pos]);
	put(pn, ROLE_DIM, "U applied to            answer rank    top 5 classes");
	for (int l = 0; l <= r->s.layers; l++) {
		char what[32];
		if (l == 0)
			snprintf(what, sizeof what, "the embeddings");
		else
			snprintf(what, sizeof what, "after layer %d", l - 1);
		lens_line(pn, what, &ln->resid[l], answer);
	}
	put(pn, ROLE_DIM, "direct logit attribution (these add up to the last line):");
	lens_line(pn, "token E[t]", &ln->embed, answer);
	lens_line(pn, "position P[p]", &ln->pos, answer);
	for (int k = 0; k < r->s.layers * r->s.h; k++) {
		char what[48], name[32];
		head_name(name, sizeof name, r, k);
		snprintf(what, sizeof what, "%s's write", name);
		lens_line(pn, what, &ln->head[k], answer);
	}
	const char *lines[] = {
		", and . move the position. answer: the answer's logit; rank 1: the",
		"largest; U: the read-out, E: embeddings, P: position embeddings",
	};
	legend(pn, lines, 2);
}

static void circuits_body(const struct app *app, const struct frame *f, const struct body_layout *b,
                          struct hit_map *hits)
{
	(void)f;
	(void)hits;
	const struct circ_page *p = mode_state_if(app, &train_circuits_mode);
	const struct train_view *v = train_view_now(app);
	if (!p || !p->made || !v || b->info.h <= 0)
		return;
	struct pen pn = { b->info.y, b->info.x, b->info.w, b->info.y + b->info.h };
	char tabs[160];
	int n = b->info.w >= 100 ? snprintf(tabs, sizeof tabs, "circuits of '%s' at step %ld:", v->task->name, p->step)
	                          : snprintf(tabs, sizeof tabs, "step %ld:", p->step);
	for (int k = 0; k < PAGES; k++)
		n += snprintf(tabs + n, sizeof tabs - (size_t)n, " %d %s%s%s", k + 1, k == (int)p->page ? "[" : "",
		              page_names[k], k == (int)p->page ? "]" : "");
	put(&pn, ROLE_TITLE, "%s", tabs);
	switch (p->page) {
	case PAGE_HEADS: draw_heads(p, &pn); break;
	case PAGE_CIRCUIT: draw_circuit(p, &pn); break;
	case PAGE_COMPOSE: draw_compose(p, &pn); break;
	case PAGE_ABLATE: draw_ablate(p, &pn); break;
	case PAGE_PATCH: draw_patch(p, &pn); break;
	case PAGE_LENS: default: draw_lens(p, &pn); break;
	}
}

static bool circuits_status(const struct app *app, const struct frame *f, struct rect r)
{
	(void)f;
	if (app->status[0] && app->now_ms < app->status_until_ms)
		return false;
	draw_put(r.y, r.x, r.w, "the model as trained so far, measured on sequences it never saw",
	         theme_attr(ROLE_DIM));
	return true;
}

enum { FL = ACTION_BAR_BOTH };
static const struct action circuits_keys[] = {
	{ .keys = { '\t' }, .label = "Tab", .name = "page", .help = "the next page", .bar = FL, .call = next_page,
	  .id = "circuits-page" },
	{ .keys = { '1', '2', '3', '4', '5', '6' }, .label = "1-6", .name = "page", .help =
	  "heads, circuit, compose, ablate, patch, lens", .fn = pick_page, .id = "circuits-pick" },
	{ .keys = { 'h' }, .label = "h", .name = "head", .help = "the circuit page's next head", .bar = FL,
	  .call = next_head, .id = "circuits-head" },
	{ .keys = { 'v' }, .label = "v", .name = "view", .help = "the next token-space view of its circuits",
	  .bar = FL, .call = next_view, .id = "circuits-view" },
	{ .keys = { ',' }, .label = ",", .name = "earlier", .help = "the lens one position earlier", .bar = FL,
	  .call = earlier, .id = "circuits-earlier" },
	{ .keys = { '.' }, .label = ".", .name = "later", .help = "the lens one position later", .bar = FL,
	  .call = later, .id = "circuits-later" },
	{ .keys = { 'k' }, .label = "k", .name = "training", .help = "back to the training screen (Esc too)",
	  .call = back, .id = "circuits-back" },
	{ .keys = { 0 } },
};

const struct mode_ops train_circuits_mode = {
	.name = "circuits (of the trained model)",
	.keys = circuits_keys,
	.closed = true,
	.back = &train_mode,
	.state_size = sizeof(struct circ_page),
	.enter = circuits_enter,
	.done = circuits_done,
	.status = circuits_status,
	.layout = train_view_layout,
	.body = circuits_body,
};
