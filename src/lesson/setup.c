/*
 * setup.c - putting a lesson step onto the workbench: a configuration,
 * seeded weights, labels, then the step's operations (presets, inline
 * matrices, fills, the sentence embedding, cell edits); and applying edits
 * (a solution) to a live workbench. Only config and weights change here:
 * the caller runs the forward pass. Shapes were checked by the parser, and
 * are checked again, so nothing here writes outside a matrix.
 */
#include "goal.h"
#include "run.h"
#include "setup.h"
#include "lesson_int.h"
#include "model_step.h"
#include "notation.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static float *input_data(const struct mha_weights *w, enum mha_tensor t)
{
	return mha_tensor_info(t)->input ? mha_tensor_data(w, NULL, t) : NULL;
}

struct cell_edit {
	float *p;
	const struct lesson_edit *e;
	size_t bad; /* first cell whose result is out of range, or SIZE_MAX */
};

static bool edit_cell(size_t at, void *ctx)
{
	struct cell_edit *ce = ctx;
	double v = ce->e->kind == LESSON_EDIT_SET ? ce->e->value : (double)ce->p[at] * ce->e->value;
	if (!(fabs(v) <= MHA_VALUE_MAX)) {
		ce->bad = at;
		return false;
	}
	ce->p[at] = (float)v;
	return true;
}

/* Every cell of ref: set to v, or multiply by v. */
static int edit_cells(const struct lesson_edit *e, const struct mha_config *c,
                      struct mha_weights *w, char *msg, size_t len)
{
	char why[256];
	/* its layer's matrix (W^Q .. W^O of that layer; X is every layer's) */
	float *p = mha_tensor_info(e->ref.t)->input ? lesson_ref_data(&e->ref, c, w, NULL) : NULL;
	if (!p || lesson_ref_check(&e->ref, c, why, sizeof why) != 0) {
		snprintf(msg, len, "line %d: %s", e->line, p ? why : "not an input");
		return -1;
	}
	struct mha_shape s = mha_tensor_shape(c, e->ref.t);
	struct cell_edit ce = { p, e, SIZE_MAX };
	lesson_ref_visit(&e->ref, s, edit_cell, &ce);
	if (ce.bad != SIZE_MAX) {
		struct cell bad = { e->ref.t, 0, (int)(ce.bad / (size_t)s.cols), (int)(ce.bad % (size_t)s.cols) };
		char name[NOTATION_MAX];
		snprintf(msg, len, "line %d: %s would leave +-1e6: inputs stay within it", e->line,
		         notation_cell(name, sizeof name, &bad, NULL, 0, true));
		return -1;
	}
	return 0;
}

static int edit_one(const struct lesson_edit *e, struct mha_config *c, struct mha_weights *w,
                    char *msg, size_t len)
{
	switch (e->kind) {
	case LESSON_EDIT_SET:
	case LESSON_EDIT_SCALE:
		return edit_cells(e, c, w, msg, len);
	case LESSON_EDIT_HEAD:
		if (e->head < 0 || e->head >= c->h) {
			snprintf(msg, len, "line %d: head %d does not exist: there are %d heads (0..%d)",
			         e->line, e->head, c->h, c->h - 1);
			return -1;
		}
		c->head_off[e->head] = e->off;
		return 0;
	case LESSON_EDIT_PAD:
		if (e->head >= mha_keys(c)) {
			snprintf(msg, len, "line %d: key token %d does not exist: there are %d keys (0..%d)", e->line,
			         e->head, mha_keys(c), mha_keys(c) - 1);
			return -1;
		}
		if (e->off)
			c->pad &= ~((uint64_t)1 << e->head);
		else
			c->pad |= (uint64_t)1 << e->head;
		return 0;
	case LESSON_EDIT_CONFIG:
	case LESSON_EDIT_ANSWER:
	case LESSON_EDIT_MODEL_HEAD: /* the language model's: the TUI applies it */
		break;
	}
	return 0;
}

static void set_field(struct mha_config *c, enum lesson_qty f, double v)
{
	int iv = (int)v;
	switch (f) {
	case LESSON_Q_TOKENS: c->n = iv; break;
	case LESSON_Q_D_MODEL: c->d = iv; break;
	case LESSON_Q_HEADS: c->h = iv; break;
	case LESSON_Q_KV_HEADS: c->g = iv; break;
	case LESSON_Q_D_K: c->dk = iv; break;
	case LESSON_Q_CAUSAL: c->causal = iv != 0; break;
	case LESSON_Q_TOP_K: c->top_k = iv; break;
	case LESSON_Q_SCALE: c->scale = iv != 0; break;
	case LESSON_Q_POS: c->pos = (enum mha_pos)iv; break;
	case LESSON_Q_POS_OFFSET: c->pos_offset = iv; break;
	case LESSON_Q_LAYERS: c->layers = iv; break;
	case LESSON_Q_KV_TOKENS: c->m = iv; break;
	default: break; /* the parser lets no other field through */
	}
}

int lesson_edits_apply(const struct lesson_edit *e, int n, struct mha_config *c,
                       struct mha_weights *w, bool *changed_shape, char *msg, size_t len)
{
	struct mha_config nc = *c;
	bool config = false;
	if (changed_shape)
		*changed_shape = false;
	for (int i = 0; i < n; i++) {
		if (e[i].kind == LESSON_EDIT_CONFIG) {
			set_field(&nc, e[i].field, e[i].value);
			config = true;
		}
	}
	for (int i = nc.h; i < MHA_MAX_HEADS; i++)
		nc.head_off[i] = false; /* heads that no longer exist are not "off" */
	if (config && mha_config_check(&nc, msg, len) != MHA_OK)
		return -1;
	/* cell edits go to a copy, so a failure leaves the workbench as it was */
	struct mha_weights nw;
	if (mha_weights_alloc(&nw, &nc) != MHA_OK) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	bool shape = nc.n != c->n || nc.d != c->d || nc.h != c->h || nc.g != c->g || nc.dk != c->dk ||
	             nc.layers != c->layers || nc.m != c->m;
	if (shape) {
		mha_weights_init(&nw, &nc, c->seed);
		mha_weights_default_labels(&nw, &nc);
		nc.seed = c->seed;
	}
	mha_weights_carry(&nw, &nc, w, c);
	for (int i = 0; i < n; i++) {
		if (edit_one(&e[i], &nc, &nw, msg, len) != 0) {
			mha_weights_free(&nw);
			return -1;
		}
	}
	mha_weights_free(w);
	*w = nw;
	*c = nc;
	if (changed_shape)
		*changed_shape = shape;
	return 0;
}

void lesson_edit_describe(const struct lesson_edit *e, char *buf, size_t len)
{
	char ref[96];
	switch (e->kind) {
	case LESSON_EDIT_SET:
	case LESSON_EDIT_SCALE:
		lesson_ref_format(&e->ref, ref, sizeof ref);
		snprintf(buf, len, "%s %s %g", ref, e->kind == LESSON_EDIT_SET ? "=" : "*=", e->value);
		return;
	case LESSON_EDIT_CONFIG:
		if (e->field == LESSON_Q_CAUSAL || e->field == LESSON_Q_SCALE)
			snprintf(buf, len, "%s %s", lesson_qty_name(e->field), e->value ? "on" : "off");
		else if (e->field == LESSON_Q_POS)
			snprintf(buf, len, "pos = %s", mha_pos_name((enum mha_pos)e->value));
		else
			snprintf(buf, len, "%s = %g", lesson_qty_name(e->field), e->value);
		return;
	case LESSON_EDIT_HEAD:
		snprintf(buf, len, "head %d %s", e->head, e->off ? "off" : "on");
		return;
	case LESSON_EDIT_PAD:
		snprintf(buf, len, "pad %d %s", e->head, e->off ? "off" : "on");
		return;
	case LESSON_EDIT_ANSWER:
		snprintf(buf, len, "answer %s", e->answer);
		return;
	case LESSON_EDIT_MODEL_HEAD:
		snprintf(buf, len, "model head %s %s", lesson_model_kind_name((enum lesson_model_kind)e->head),
		         e->off ? "off" : "on");
		return;
	}
	snprintf(buf, len, "?");
}

static void fill_identity(float *p, struct mha_shape s)
{
	memset(p, 0, (size_t)s.rows * s.cols * sizeof *p);
	for (int i = 0; i < s.rows && i < s.cols; i++)
		p[(size_t)i * s.cols + i] = 1.0f;
}

/* X[i] = token features of label i + position features of i. */
static int embed(const struct lesson_op *op, const struct mha_config *c, struct mha_weights *w,
                 char *msg, size_t len)
{
	if (op->cols != c->d || op->npositions < c->n) {
		snprintf(msg, len, "line %d: the features do not fit this configuration", op->line);
		return -1;
	}
	for (int i = 0; i < c->n; i++) {
		const struct lesson_feature *tok = NULL;
		for (int k = 0; k < op->ntokens && !tok; k++)
			if (!strcmp(op->tokens[k].key, w->labels[i]))
				tok = &op->tokens[k];
		if (!tok) {
			snprintf(msg, len, "line %d: no token features for '%s'", op->line, w->labels[i]);
			return -1;
		}
		for (int j = 0; j < c->d; j++)
			w->x[(size_t)i * c->d + j] = tok->v[j] + op->positions[i].v[j];
	}
	return 0;
}

static int apply_op(const struct lesson_op *op, struct mha_config *c, struct mha_weights *w,
                    char *msg, size_t len)
{
	struct mha_shape s = mha_tensor_shape(c, op->t);
	float *p = input_data(w, op->t);
	switch (op->kind) {
	case LESSON_OP_MATRIX:
		if (!p || !op->data || s.rows != op->rows || s.cols != op->cols) {
			snprintf(msg, len, "line %d: the matrix does not fit this configuration", op->line);
			return -1;
		}
		memcpy(p, op->data, (size_t)s.rows * s.cols * sizeof *p);
		return 0;
	case LESSON_OP_ZERO:
		if (p)
			memset(p, 0, (size_t)s.rows * s.cols * sizeof *p);
		return 0;
	case LESSON_OP_IDENTITY:
		if (p)
			fill_identity(p, s);
		return 0;
	case LESSON_OP_EMBED:
		return embed(op, c, w, msg, len);
	case LESSON_OP_EDIT:
		return edit_one(&op->edit, c, w, msg, len);
	}
	return 0;
}

int lesson_step_setup(const struct lesson *l, int i, struct mha_config *c, struct mha_weights *w,
                      char *msg, size_t len)
{
	if (i < 0 || i >= l->nsteps) {
		snprintf(msg, len, "%s: no step %d", l->path, i);
		return -1;
	}
	const struct lesson_step *s = &l->steps[i];
	struct mha_config nc = s->cfg;
	struct mha_weights nw;
	if (mha_weights_alloc(&nw, &nc) != MHA_OK) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	mha_weights_init(&nw, &nc, nc.seed);
	mha_weights_default_labels(&nw, &nc);
	const struct lesson_setup *lab = s->setup.labels ? &s->setup : &l->base;
	for (int k = 0; k < lab->nlabels && k < nc.n; k++)
		snprintf(nw.labels[k], MHA_LABEL_MAX, "%s", lab->labels[k]);
	/* the source's words, and each one's row of X_kv from the core's table
	 * (a word has the same row in X and X_kv); @matrix X_kv may follow */
	const struct lesson_setup *kv = s->setup.kv_labels ? &s->setup : &l->base;
	if (kv->kv_labels && nc.m > 0) {
		for (int k = 0; k < kv->nkv_labels && k < nc.m; k++)
			snprintf(nw.kv_labels[k], MHA_LABEL_MAX, "%s", kv->kv_labels[k]);
		mha_embed_kv_words(&nw, &nc, nc.seed);
	}
	char why[256];
	const struct lesson_setup *layers[2] = { &l->base, &s->setup };
	for (int ly = 0; ly < 2; ly++) {
		for (int k = 0; k < layers[ly]->nops; k++) {
			if (apply_op(&layers[ly]->ops[k], &nc, &nw, why, sizeof why) != 0) {
				snprintf(msg, len, "%s: step '%s': %s", l->path, s->id, why);
				mha_weights_free(&nw);
				return -1;
			}
		}
	}
	*c = nc;
	*w = nw;
	return 0;
}

void lesson_step_key(const struct lesson *l, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", l->name, i >= 0 && i < l->nsteps ? l->steps[i].id : "?");
}

int lesson_setup_resolve_config(const struct lesson_setup *base, const struct lesson_setup *step,
                         struct mha_config *out, char *why, size_t len)
{
	struct mha_config c = mha_config_default();
	long long v[LESSON_Q_CONFIG_COUNT] = { 0 };
	unsigned given = 0;
	const struct lesson_setup *layers[2] = { base, step };
	for (int l = 0; l < 2; l++) {
		if (!layers[l])
			continue;
		for (int q = 0; q < LESSON_Q_CONFIG_COUNT; q++)
			if (layers[l]->given & (1u << q)) {
				v[q] = layers[l]->value[q];
				given |= 1u << q;
			}
	}
#define FIELD(q, dst) if (given & (1u << (q))) dst = (int)v[q]
	FIELD(LESSON_Q_TOKENS, c.n);
	FIELD(LESSON_Q_D_MODEL, c.d);
	FIELD(LESSON_Q_HEADS, c.h);
	FIELD(LESSON_Q_TOP_K, c.top_k);
	FIELD(LESSON_Q_POS_OFFSET, c.pos_offset);
	FIELD(LESSON_Q_LAYERS, c.layers);
	FIELD(LESSON_Q_KV_TOKENS, c.m);
#undef FIELD
	if (given & (1u << LESSON_Q_POS))
		c.pos = (enum mha_pos)v[LESSON_Q_POS];
	if (given & (1u << LESSON_Q_CAUSAL))
		c.causal = v[LESSON_Q_CAUSAL] != 0;
	if (given & (1u << LESSON_Q_SCALE))
		c.scale = v[LESSON_Q_SCALE] != 0;
	if (given & (1u << LESSON_Q_SEED))
		c.seed = (uint64_t)v[LESSON_Q_SEED];
	/* plain multi-head attention unless kv_heads says otherwise */
	c.g = given & (1u << LESSON_Q_KV_HEADS) ? (int)v[LESSON_Q_KV_HEADS] : c.h;
	if (given & (1u << LESSON_Q_D_K)) {
		c.dk = (int)v[LESSON_Q_D_K];
	} else if (c.h >= 1 && c.d % c.h == 0) {
		c.dk = c.d / c.h; /* the paper's h * d_k = d_model */
	} else {
		snprintf(why, len, "d_model %d is not a multiple of heads %d: give d_k", c.d, c.h);
		return -1;
	}
	if (mha_config_check(&c, why, len) != MHA_OK)
		return -1;
	*out = c;
	return 0;
}
