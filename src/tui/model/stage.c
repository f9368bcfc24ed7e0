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
	/* cross-attention: the keys' axis is the source's, X_kv's tokens */
	p.row_kv = c->m > 0 && (t == MHA_T_XKV || t == MHA_T_K || t == MHA_T_V || t == MHA_T_KROT);
	p.col_kv = c->m > 0 && p.col_tokens;
	char name[32];
	/* S, P, O carry their head even with one: the formula above says S₀ */
	if (s.count > 1 || t == MHA_T_SCORES || t == MHA_T_WEIGHTS || t == MHA_T_HEADS)
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

/* The header's second line: every mask that is on, not the causal one
 * alone ("mask causal j>i, window 2, padding 5: -inf"), then top-k and the
 * scale. The short causal form stays when it is the only mask. */
static void mask_note(const struct mha_config *c, char *out, size_t len)
{
	char topk[24] = "off", masks[80] = "", pad[40] = "";
	if (c->top_k > 0)
		snprintf(topk, sizeof topk, "%d", c->top_k);
	int nk = c->m > 0 ? c->m : c->n;
	for (int t = 0; t < nk && strlen(pad) + 4 < sizeof pad; t++)
		if (mha_is_pad(c, t))
			snprintf(pad + strlen(pad), sizeof pad - strlen(pad), "%s%d", pad[0] ? "," : "", t);
	bool custom = false;
	for (int i = 0; i < MHA_MAX_TOKENS; i++)
		custom = custom || c->hide[i] != 0;
	if (c->causal)
		snprintf(masks, sizeof masks, "causal j>i");
	if (c->window > 0)
		snprintf(masks + strlen(masks), sizeof masks - strlen(masks), "%swindow %d", masks[0] ? ", " : "",
		         c->window);
	if (pad[0])
		snprintf(masks + strlen(masks), sizeof masks - strlen(masks), "%spadding %s", masks[0] ? ", " : "",
		         pad);
	if (custom)
		snprintf(masks + strlen(masks), sizeof masks - strlen(masks), "%scustom", masks[0] ? ", " : "");
	if (c->causal && !mha_mask_extra(c))
		snprintf(masks, sizeof masks, "causal (j > i is -inf)");
	else if (masks[0])
		snprintf(masks + strlen(masks), sizeof masks - strlen(masks), ": -inf");
	snprintf(out, len, "mask %s, top-k %s, scale %s", masks[0] ? masks : "none", topk,
	         c->scale ? "1/sqrt(d_k)" : "off (1)");
}

/* Does some query row keep no key at all (its P row is 0, not summing to 1)? */
static bool mask_empty_row(const struct mha_config *c)
{
	unsigned char keep[MHA_MAX_TOKENS];
	for (int i = 0; i < c->n; i++)
		if (mha_mask_row(c, i, NULL, keep) == 0)
			return true;
	return false;
}

/* Cross-attention: where the two token axes come from, in words, before
 * what the stage's note says otherwise ("" with self-attention). */
static void cross_note(const struct mha_config *c, const char *rest, char *out, size_t len)
{
	if (c->m == 0) {
		snprintf(out, len, "%s", rest);
		return;
	}
	snprintf(out, len, "queries from X (%d tokens), keys and values from X_kv (%d tokens); %.60s", c->n, c->m, rest);
}

/* Is PE added to X before layer 0 (sinusoidal, learned)? */
static bool pe_added(const struct mha_config *c)
{
	return c->pos == MHA_POS_SINUSOIDAL || c->pos == MHA_POS_LEARNED;
}

/* What layer l's projections read, as a panel: X in layer 0 when nothing
 * is added to it; else x_l (X + PE in layer 0, the residual stream after
 * it), named with its layer; X_kv for K and V of cross-attention. */
static struct panel layer_input(const struct mha_config *c, int l, bool kv)
{
	if (kv)
		return whole(c, MHA_T_XKV, 0);
	if (l == 0 && !pe_added(c))
		return whole(c, MHA_T_X, 0);
	struct panel p = whole(c, MHA_T_XIN, 0);
	char name[32];
	snprintf(p.title, sizeof p.title, "%s %dx%d", hn(name, sizeof name, "x", l), p.rows, p.cols);
	return p;
}

bool stage_pos_shown(const struct mha_config *c, int layer)
{
	return (pe_added(c) && layer == 0) || c->pos == MHA_POS_ROPE;
}

/* Where order enters. PE added: X, PE (P_pos when learned: an input the
 * learner edits), x_0 = X + PE. RoPE: Q_i and K_j beside their rotated
 * forms, which the scores read. */
static void pos_view(const struct mha_config *c, int i, int j, struct stage_view *v)
{
	char a[NOTATION_MAX], b[NOTATION_MAX];
	if (c->pos == MHA_POS_ROPE) {
		v->p[0] = block(c, MHA_T_Q, i);
		v->p[1] = block(c, MHA_T_QROT, i);
		v->p[2] = block(c, MHA_T_K, j);
		v->p[3] = block(c, MHA_T_KROT, j);
		v->count = 4;
		snprintf(v->formula, sizeof v->formula, "RoPE: %s = %s with pair (2k, 2k+1) of row p turned by p theta_k",
		         hn(a, sizeof a, "Q_rot", i), hn(b, sizeof b, "Q", i));
		snprintf(v->note, sizeof v->note, "theta_k = 10000^(-2k/d_k), p = row + %d; S reads Q_rot, K_rot: "
		         "a score depends on i - j only", c->pos_offset);
		return;
	}
	bool learned = c->pos == MHA_POS_LEARNED;
	v->p[0] = whole(c, MHA_T_X, 0);
	v->p[1] = whole(c, learned ? MHA_T_POS : MHA_T_PE, 0);
	v->p[2] = whole(c, MHA_T_XIN, 0);
	snprintf(v->p[2].title, sizeof v->p[2].title, "%s %dx%d", hn(a, sizeof a, "x", 0), c->n, c->d);
	v->count = 3;
	if (learned) {
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = X %dx%d + P_pos %dx%d: a learned row per position",
		         hn(a, sizeof a, "x", 0), c->n, c->d, c->n, c->d, c->n, c->d);
		snprintf(v->note, sizeof v->note, "order enters here, once: P_pos is a weight (edit it); layer 0 reads %.8s",
		         a);
	} else {
		snprintf(v->formula, sizeof v->formula, "%s = X + PE: PE[p,2i] = sin(p / 10000^(2i/d)), PE[p,2i+1] = cos",
		         hn(a, sizeof a, "x", 0));
		snprintf(v->note, sizeof v->note, "p = row + %d; order enters here, once, before layer 0", c->pos_offset);
	}
}

void stage_view(enum pipeline_stage s, const struct mha_config *c, int head, enum proj proj,
                struct stage_view *v)
{
	stage_view_layer(s, c, 0, head, proj, v);
}

void stage_view_layer(enum pipeline_stage s, const struct mha_config *c, int layer, int head, enum proj proj,
                      struct stage_view *v)
{
	memset(v, 0, sizeof *v);
	int layers = c->layers > 1 ? c->layers : 1;
	int l = layer < 0 ? 0 : layer >= layers ? layers - 1 : layer;
	int i = head < 0 ? 0 : head >= c->h ? c->h - 1 : head;
	int j = mha_kv_head(c, i);
	enum proj pj = proj >= 0 && proj < PROJ_COUNT ? proj : PROJ_Q;
	enum mha_tensor out = proj_out[pj], w = proj_w[pj];
	/* Q is cut into h blocks; K and V into g blocks, read by query head i as kv head j */
	int blk = pj == PROJ_Q ? i : j;
	const char *on = mha_tensor_info(out)->name, *wn = mha_tensor_info(w)->name;
	int ow = mha_tensor_shape(c, out).cols;
	int nk = mha_keys(c); /* keys: X_kv's m tokens with cross-attention, else n */
	char a[NOTATION_MAX], b[NOTATION_MAX], d[NOTATION_MAX], e[NOTATION_MAX]; /* names in the formulas */
	struct panel in = layer_input(c, l, pj != PROJ_Q && c->m > 0);
	char xn[32]; /* the input's name: "X", "x₁", "X_kv" */
	snprintf(xn, sizeof xn, "%.*s", (int)(strchr(in.title, ' ') - in.title), in.title);

	switch (s) {
	case PIPELINE_PROJECTION:
		if (proj == PROJ_POS && stage_pos_shown(c, l)) {
			pos_view(c, i, j, v);
			break;
		}
		v->p[0] = in;
		v->p[1] = whole(c, w, 0);
		v->p[2] = whole(c, out, 0);
		v->count = 3;
		/* with biases: Q = X W^Q + b^Q, b^Q added to every row */
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = %s %dx%d . %s %dx%d%s%s", on, in.rows, ow,
		         xn, in.rows, c->d, wn, c->d, ow, c->bias ? " + b^" : "", c->bias ? wn + 2 : "");
		v->note_key = "qkv"; /* the key is the drawing's to name */
		if (c->m > 0)
			snprintf(v->note, sizeof v->note, "%%s: show Q / K / V    Q from X (%d tokens), K and V from X_kv "
			         "(%d tokens)", c->n, c->m);
		else
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
		snprintf(v->p[2].title, sizeof v->p[2].title, "%s . %s %dx%d", xn,
		         notation_ref(a, sizeof a, w, (struct notation_range[3]){
		                      { 0, 0 }, { 0, -1 }, { blk * c->dk, (blk + 1) * c->dk - 1 } }, theme_utf8()),
		         in.rows, c->dk);
		v->count = 3;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d -> %d heads of %dx%d: %s = %s . %s", on, in.rows, ow,
		         ow / c->dk, in.rows, c->dk, hn(a, sizeof a, on, blk), xn, hn(b, sizeof b, wn, blk));
		gqa_note(c, v->note, sizeof v->note);
		if (c->m > 0 && pj != PROJ_Q) /* K and V have the source's rows */
			snprintf(v->note, sizeof v->note, "%s: %d rows, one per X_kv token (the source)", on, c->m);
		break;
	case PIPELINE_SCORES: {
		/* with RoPE the scores read the rotated Q and K */
		bool rope = c->pos == MHA_POS_ROPE;
		v->p[0] = block(c, rope ? MHA_T_QROT : MHA_T_Q, i);
		v->p[1] = block(c, rope ? MHA_T_KROT : MHA_T_K, j);
		v->p[2] = whole(c, MHA_T_SCORES, i);
		v->p[2].masked = true;
		v->count = 3;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = %s %dx%d . %s^T %dx%d%s", hn(a, sizeof a, "S", i),
		         c->n, nk, hn(b, sizeof b, rope ? "Q_rot" : "Q", i), c->n, c->dk,
		         hn(d, sizeof d, rope ? "K_rot" : "K", j), c->dk, nk, c->scale ? " / sqrt(d_k)" : "");
	}
		mask_note(c, e, sizeof e);
		cross_note(c, e, v->note, sizeof v->note);
		break;
	case PIPELINE_SOFTMAX:
		v->p[0] = whole(c, MHA_T_SCORES, i);
		v->p[0].masked = true;
		v->p[1] = whole(c, MHA_T_WEIGHTS, i);
		v->p[1].row_stats = true;
		v->count = 2;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = softmax(%s) by rows: each sums to 1%s",
		         hn(a, sizeof a, "P", i), c->n, nk, hn(b, sizeof b, "S", i),
		         mask_empty_row(c) ? ", a row with no key: 0" : "");
		mask_note(c, e, sizeof e);
		cross_note(c, e, v->note, sizeof v->note);
		break;
	case PIPELINE_WEIGHTED_SUM:
		v->p[0] = whole(c, MHA_T_WEIGHTS, i);
		v->p[1] = block(c, MHA_T_V, j);
		v->p[2] = whole(c, MHA_T_HEADS, i);
		v->count = 3;
		snprintf(v->formula, sizeof v->formula, "%s %dx%d = %s %dx%d . %s %dx%d", hn(a, sizeof a, "O", i), c->n,
		         c->dk, hn(b, sizeof b, "P", i), c->n, nk, hn(d, sizeof d, "V", j), nk, c->dk);
		if (c->m > 0)
			snprintf(v->note, sizeof v->note, "each output row (a query of X) is a mix of V's rows (X_kv's tokens), "
			         "weighted by P's row");
		else
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
		if (layers > 1) { /* the residual stream, what the next layer reads, in the write's place */
			v->p[3] = whole(c, MHA_T_STREAM, 0);
			char n1[32], n0[32];
			hn(n1, sizeof n1, "x", l + 1);
			hn(n0, sizeof n0, "x", l);
			snprintf(v->p[3].title, sizeof v->p[3].title, "%s %dx%d", n1, c->n, c->d);
			v->count = 4;
			snprintf(v->note, sizeof v->note, "%s = %s + Y: the residual stream, %s", n1, n0,
			         l + 1 < layers ? "the next layer's input" : "the stack's output");
		}
		break;
	}
	if (layers > 1) { /* a stack: the formula says whose layer it is */
		char f[sizeof v->formula + 16];
		snprintf(f, sizeof f, "layer %d: %.110s", l, v->formula);
		f[sizeof v->formula - 1] = '\0';
		memcpy(v->formula, f, sizeof v->formula);
	}
}
