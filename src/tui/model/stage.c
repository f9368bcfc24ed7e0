/*
 * stage.c - what each stage of the workbench shows: which tensors, which
 * head's block, the formula with shapes. The views draw what this says;
 * the tests check it without a terminal. Nothing here computes attention:
 * the numbers come from the core's activations; and no key is named here
 * (a note that names one says which action, the drawing its key).
 */
#include "stage.h"

#include <stdio.h>
#include <string.h>

#include "notation.h"
#include "theme.h"

/* name with subscript i in the one notation: "Q₀" (ASCII "Q_0"). */
static const char *hn(char *buf, size_t len, const char *name, int i)
{
	return notation_sub_name(buf, len, name, i, theme_utf8());
}

/* A whole tensor (matrix m). */
static struct panel whole(const struct mha_config *c, enum mha_tensor t, int m)
{
	struct mha_shape s = mha_tensor_shape(c, t);
	struct panel p;
	memset(&p, 0, sizeof p);
	p.t = t;
	p.m = m;
	p.fixed_head = -1;
	p.cols = s.cols;
	p.rows = s.rows;
	p.row_tokens = t != MHA_T_WQ && t != MHA_T_WK && t != MHA_T_WV && t != MHA_T_WO;
	p.col_tokens = t == MHA_T_SCORES || t == MHA_T_WEIGHTS;
	char name[32];
	if (s.count > 1)
		snprintf(p.title, sizeof p.title, "%s %dx%d", hn(name, sizeof name, mha_tensor_info(t)->name, m), s.rows,
		         s.cols);
	else
		snprintf(p.title, sizeof p.title, "%s %dx%d", mha_tensor_info(t)->name, s.rows, s.cols);
	return p;
}

/* Column block `block` (of width dk) of Q, K or V: head block Q_i. */
static struct panel block(const struct mha_config *c, enum mha_tensor t, int b)
{
	struct panel p = whole(c, t, 0);
	p.col0 = b * c->dk;
	p.cols = c->dk;
	char name[32];
	snprintf(p.title, sizeof p.title, "%s %dx%d", hn(name, sizeof name, mha_tensor_info(t)->name, b), p.rows,
	         p.cols);
	return p;
}

static const enum mha_tensor proj_out[PROJ_COUNT] = { MHA_T_Q, MHA_T_K, MHA_T_V };
static const enum mha_tensor proj_w[PROJ_COUNT] = { MHA_T_WQ, MHA_T_WK, MHA_T_WV };

/* Which query heads share each kv head, in words: a short form of at
 * most 26 characters that fits beside the lesson pane at 80 columns, then
 * the rule in brackets for where there is room (draw_fit keeps the short
 * form when the whole does not fit): "MHA: K,V per head (query head
 * i reads kv head i)", "GQA: 2 heads per K,V (query head i reads kv head
 * i/2)", "MQA: 1 K,V for all (...)". */
static void gqa_note(const struct mha_config *c, char *out, size_t len)
{
	int per = c->h / c->g;
	if (c->g == c->h)
		snprintf(out, len, "MHA: K,V per head (query head i reads kv head i)");
	else if (c->g == 1)
		snprintf(out, len, "MQA: 1 K,V for all (every query head reads kv head 0)");
	else
		snprintf(out, len, "GQA: %d heads per K,V (query head i reads kv head i/%d)", per, per);
}

static void mask_note(const struct mha_config *c, char *out, size_t len)
{
	char topk[24] = "off";
	if (c->top_k > 0)
		snprintf(topk, sizeof topk, "%d", c->top_k);
	snprintf(out, len, "mask %s, top-k %s, scale %s", c->causal ? "causal (j > i is -inf)" : "none",
	         topk, c->scale ? "1/sqrt(d_k)" : "off (1)");
}

void stage_view(enum pipeline_stage s, const struct mha_config *c, int head, enum proj proj,
                struct stage_view *v)
{
	memset(v, 0, sizeof *v);
	int i = head < 0 ? 0 : head >= c->h ? c->h - 1 : head;
	int j = mha_kv_head(c, i);
	enum proj pj = proj >= 0 && proj < PROJ_COUNT ? proj : PROJ_Q;
	enum mha_tensor out = proj_out[pj], w = proj_w[pj];
	/* Q is cut into h blocks; K and V into g blocks, read by query head i as kv head j */
	int blk = pj == PROJ_Q ? i : j;
	const char *on = mha_tensor_info(out)->name, *wn = mha_tensor_info(w)->name;
	int ow = mha_tensor_shape(c, out).cols;
	char a[NOTATION_MAX], b[NOTATION_MAX], d[NOTATION_MAX], e[NOTATION_MAX]; /* names in the formulas */

	switch (s) {
	case PIPELINE_PROJECTION:
		v->p[0] = whole(c, MHA_T_X, 0);
		v->p[1] = whole(c, w, 0);
		v->p[2] = whole(c, out, 0);
		v->count = 3;
		/* with biases: Q = X W^Q + b^Q, b^Q added to every row */
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = X %dx%d . %s %dx%d%s%s", on, c->n, ow,
		         c->n, c->d, wn, c->d, ow, c->bias ? " + b^" : "", c->bias ? wn + 2 : "");
		v->note_key = "qkv"; /* the key is the drawing's to name */
		snprintf(v->note, sizeof v->note, "%%s: show Q / K / V    one product projects every head at once");
		break;
	case PIPELINE_RESHAPE:
		v->p[0] = whole(c, out, 0);
		v->p[0].colour_cols = c->dk;
		v->p[1] = block(c, out, blk);
		v->p[1].colour_cols = c->dk;
		v->p[1].col0 = blk * c->dk;
		v->p[2] = v->p[1];
		v->p[2].proof = true;
		snprintf(v->p[2].title, sizeof v->p[2].title, "X . %s %dx%d",
		         notation_ref(a, sizeof a, w, (struct notation_range[3]){
		                      { 0, 0 }, { 0, -1 }, { blk * c->dk, (blk + 1) * c->dk - 1 } }, theme_utf8()),
		         c->n, c->dk);
		v->count = 3;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d -> %d heads of %dx%d: %s = X . %s", on, c->n, ow,
		         ow / c->dk, c->n, c->dk, hn(a, sizeof a, on, blk), hn(b, sizeof b, wn, blk));
		gqa_note(c, v->note, sizeof v->note);
		break;
	case PIPELINE_SCORES:
		v->p[0] = block(c, MHA_T_Q, i);
		v->p[1] = block(c, MHA_T_K, j);
		v->p[2] = whole(c, MHA_T_SCORES, i);
		v->p[2].masked = true;
		v->count = 3;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = %s %dx%d . %s^T %dx%d%s", hn(a, sizeof a, "S", i),
		         c->n, c->n, hn(b, sizeof b, "Q", i), c->n, c->dk, hn(d, sizeof d, "K", j), c->dk, c->n,
		         c->scale ? " / sqrt(d_k)" : "");
		mask_note(c, v->note, sizeof v->note);
		break;
	case PIPELINE_SOFTMAX:
		v->p[0] = whole(c, MHA_T_SCORES, i);
		v->p[0].masked = true;
		v->p[1] = whole(c, MHA_T_WEIGHTS, i);
		v->p[1].row_stats = true;
		v->count = 2;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = softmax(%s) by rows: each sums to 1",
		         hn(a, sizeof a, "P", i), c->n, c->n, hn(b, sizeof b, "S", i));
		mask_note(c, v->note, sizeof v->note);
		break;
	case PIPELINE_WEIGHTED_SUM:
		v->p[0] = whole(c, MHA_T_WEIGHTS, i);
		v->p[1] = block(c, MHA_T_V, j);
		v->p[2] = whole(c, MHA_T_HEADS, i);
		v->count = 3;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = %s %dx%d . %s %dx%d", hn(a, sizeof a, "O", i), c->n,
		         c->dk, hn(b, sizeof b, "P", i), c->n, c->n, hn(d, sizeof d, "V", j), c->n, c->dk);
		snprintf(v->note, sizeof v->note, "each output row is a mix of V's rows, weighted by P's row");
		break;
	case PIPELINE_CONCAT:
		v->p[0] = whole(c, MHA_T_HEADS, i);
		v->p[0].fixed_head = i;
		v->p[1] = whole(c, MHA_T_CONCAT, 0);
		v->p[1].colour_cols = c->dk;
		v->count = 2;
		snprintf(v->formula, sizeof v->formula, "Concat %dx%d = [%s ... %s], each %dx%d", c->n, c->h * c->dk,
		         hn(a, sizeof a, "O", 0), hn(b, sizeof b, "O", c->h - 1), c->n, c->dk);
		v->note_key = "head-toggle";
		snprintf(v->note, sizeof v->note, "%%s switches a head off: its block is then zero");
		break;
	case PIPELINE_OUTPUT:
	default:
		v->p[0] = whole(c, MHA_T_CONCAT, 0);
		v->p[0].colour_cols = c->dk;
		v->p[1] = whole(c, MHA_T_WO, 0);
		v->p[1].colour_rows = c->dk;
		/* the current head's rows: L and H move it here too */
		snprintf(v->p[1].tag, sizeof v->p[1].tag, "h%d: rows %d-%d", i, i * c->dk, (i + 1) * c->dk - 1);
		v->p[1].tag_head = i;
		v->p[2] = whole(c, MHA_T_Y, 0);
		/* head i's write into Y: its block of Concat times its rows of W^O
		 * (last: where there is no room it gives way to Y) */
		v->p[3] = whole(c, MHA_T_Y, 0);
		v->p[3].write = true;
		v->p[3].write_head = i;
		v->p[3].fixed_head = i;
		snprintf(v->p[3].title, sizeof v->p[3].title, "%s %dx%d", hn(a, sizeof a, "C", i), c->n, c->d);
		snprintf(v->p[3].tag, sizeof v->p[3].tag, "= %s . W^O rows %d-%d", hn(b, sizeof b, "O", i), i * c->dk,
		         (i + 1) * c->dk - 1);
		v->p[3].tag_head = i;
		v->count = 4;
		snprintf(v->formula, sizeof v->formula, "Y %dx%d = Concat %dx%d . W^O %dx%d%s", c->n, c->d,
		         c->n, c->h * c->dk, c->h * c->dk, c->d, c->bias ? " + b^O" : "");
		/* "= C₀ + ... + C₃ + b^O: C₁ = O₁ . W^O's rows of head 1, its write" */
		snprintf(v->note, sizeof v->note, "= %s%s%s%s: %s = %s . W^O's rows of head %d, its write",
		         hn(a, sizeof a, "C", 0), c->h > 2 ? " + ... + " : c->h == 2 ? " + " : "",
		         c->h > 1 ? hn(b, sizeof b, "C", c->h - 1) : "", c->bias ? " + b^O" : "",
		         hn(d, sizeof d, "C", i), hn(e, sizeof e, "O", i), i);
		break;
	}
}
