/*
 * parse_setup.c - the directives that set a step (or, before the first
 * step, every step) up: @config, @labels, @matrix ... @end blocks,
 * @preset, @fill, @embed, @set. Each adds to the step's set-up what
 * setup.c will apply; shapes are checked after the last line (resolve.c).
 */
#include "lesson_int.h"
#include "parser.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_d_config(struct parser *ps, const char *arg)
{
	struct caps *caps;
	struct lesson_setup *su = lesson_parser_setup(ps, &caps);
	if (su->config_line)
		lesson_parser_err(ps, ps->line, "@config given twice here (first at line %d): put every field "
		           "on one line", su->config_line);
	su->config_line = ps->line;
	static const char *const fields[LESSON_Q_CONFIG_COUNT] = {
		"tokens", "d_model", "heads", "kv_heads", "d_k", "causal", "top_k", "scale", "seed",
		"pos", "pos_offset", "layers", "kv_tokens",
	};
	const char *p = lesson_skip_blanks(arg);
	if (!*p)
		lesson_parser_err(ps, ps->line, "@config needs fields: @config tokens=8 d_model=16 heads=4");
	while (*p) {
		char name[32];
		const char *q = lesson_read_word(p, name, sizeof name);
		enum lesson_qty f = lesson_qty_by_name(name);
		if (*q != '=' || f >= LESSON_Q_CONFIG_COUNT) {
			const char *near = lesson_nearest_word(name, fields, LESSON_Q_CONFIG_COUNT);
			if (*q != '=' && f < LESSON_Q_CONFIG_COUNT)
				lesson_parser_err(ps, ps->line, "@config: write %s=VALUE, with no spaces around '='", name);
			else if (near)
				lesson_parser_err(ps, ps->line, "@config: unknown field '%s': did you mean %s?", name, near);
			else
				lesson_parser_err(ps, ps->line, "@config: unknown field '%.24s': fields are tokens, d_model, "
				    "heads, kv_heads, d_k, causal, top_k, scale, seed, pos, pos_offset, layers, kv_tokens", name);
			return;
		}
		double v;
		if (lesson_parse_qty_value(q + 1, &q, &v) != 0 || (*q && *q != ' ' && *q != '\t') ||
		    v != floor(v) || v < 0 || v > (f == LESSON_Q_SEED ? 9e15 : 1e6)) {
			lesson_parser_err(ps, ps->line, "@config: %s needs a whole number >= 0%s", name,
			    f == LESSON_Q_CAUSAL || f == LESSON_Q_SCALE ? " or on / off"
			    : f == LESSON_Q_POS ? " or none, learned, sinusoidal, rope" : "");
			return;
		}
		su->given |= 1u << f;
		su->value[f] = (long long)v;
		p = lesson_skip_blanks(q);
	}
}

/* @labels (the queries' tokens, X) or @kv_labels (the source's, X_kv):
 * one word a token into *labels, *n of them, capacity *cap. */
static void read_labels(struct parser *ps, const char *arg, const char *what, const char ***labels, int *count,
                        int *line, int *cap)
{
	if (*line)
		lesson_parser_err(ps, ps->line, "@%s given twice here (first at line %d)", what, *line);
	*line = ps->line;
	*count = 0;
	for (const char *p = lesson_skip_blanks(arg); *p; p = lesson_skip_blanks(p)) {
		size_t n = strcspn(p, " \t");
		if (n >= MHA_LABEL_MAX) {
			lesson_parser_err(ps, ps->line, "label '%.20s' is too long: at most %d bytes", p, MHA_LABEL_MAX - 1);
			return;
		}
		if (*count >= MHA_MAX_TOKENS) {
			lesson_parser_err(ps, ps->line, "more than %d labels", MHA_MAX_TOKENS);
			return;
		}
		const char **slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)labels, count, cap, sizeof *slot));
		if (!slot || !(*slot = lesson_parser_need(ps, lesson_arena_strndup(ps->a, p, n))))
			return;
		p += n;
	}
	if (*count == 0)
		lesson_parser_err(ps, ps->line, "@%s needs one word per token", what);
}

void lesson_d_labels(struct parser *ps, const char *arg)
{
	struct caps *caps;
	struct lesson_setup *su = lesson_parser_setup(ps, &caps);
	read_labels(ps, arg, "labels", &su->labels, &su->nlabels, &su->labels_line, &caps->labels);
}

void lesson_d_kv_labels(struct parser *ps, const char *arg)
{
	struct caps *caps;
	struct lesson_setup *su = lesson_parser_setup(ps, &caps);
	read_labels(ps, arg, "kv_labels", &su->kv_labels, &su->nkv_labels, &su->kv_labels_line, &caps->kv_labels);
}

static struct lesson_op *new_op(struct parser *ps, enum lesson_op_kind kind)
{
	struct caps *caps;
	struct lesson_setup *su = lesson_parser_setup(ps, &caps);
	struct lesson_op *op = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&su->ops, &su->nops, &caps->ops,
	                                           sizeof *op));
	if (op) {
		op->kind = kind;
		op->line = ps->line;
	}
	return op;
}

/* "T rest": an input tensor name, then *rest at what follows. */
static int input_tensor(struct parser *ps, const char *arg, const char *what, enum mha_tensor *t,
                        const char **rest)
{
	char name[32];
	const char *q = lesson_read_word(lesson_skip_blanks(arg), name, sizeof name);
	*t = lesson_tensor_by_name(name);
	if (*t == MHA_T_COUNT || !mha_tensor_info(*t)->input) {
		lesson_parser_err(ps, ps->line, "%s: '%.24s' is not an input: use X, W^Q, W^K, W^V or W^O", what, name);
		return -1;
	}
	*rest = lesson_skip_blanks(q);
	return 0;
}

void lesson_d_matrix(struct parser *ps, const char *arg)
{
	enum mha_tensor t;
	const char *rest;
	if (input_tensor(ps, arg, "@matrix", &t, &rest) != 0)
		return;
	if (*rest)
		lesson_parser_err(ps, ps->line, "@matrix takes only the matrix name; its rows follow, then @end");
	struct lesson_op *op = new_op(ps, LESSON_OP_MATRIX);
	if (!op)
		return;
	op->t = t;
	ps->block = op;
	ps->block_line = ps->line;
	ps->nvals = ps->block_rows = 0;
	ps->block_cols = -1;
}

void lesson_parser_block_row(struct parser *ps, const char *l)
{
	int n = 0;
	for (l = lesson_skip_blanks(l); *l; l = lesson_skip_blanks(l)) {
		double v;
		if (lesson_parse_number(l, &l, &v) != 0 || (*l && *l != ' ' && *l != '\t') ||
		    fabs(v) > MHA_VALUE_MAX) {
			lesson_parser_err(ps, ps->line, "matrix row: '%.20s' is not a number within +-1e6", l);
			return;
		}
		if (ps->nvals == ps->vals_cap) {
			int cap = ps->vals_cap ? ps->vals_cap * 2 : 256;
			if (cap > MHA_MAX_D_MODEL * MHA_MAX_WIDTH) {
				lesson_parser_err(ps, ps->line, "matrix too large");
				return;
			}
			float *r = lesson_parser_need(ps, realloc(ps->rows, (size_t)cap * sizeof *r));
			if (!r)
				return;
			ps->rows = r;
			ps->vals_cap = cap;
		}
		ps->rows[ps->nvals++] = (float)v;
		n++;
	}
	if (ps->block_cols >= 0 && n != ps->block_cols) {
		lesson_parser_err(ps, ps->line, "matrix row has %d numbers where the rows above have %d", n,
		    ps->block_cols);
		ps->nvals -= n;
		return;
	}
	ps->block_cols = n;
	ps->block_rows++;
}

void lesson_parser_block_close(struct parser *ps)
{
	struct lesson_op *op = ps->block;
	ps->block = NULL;
	if (ps->block_rows == 0) {
		lesson_parser_err(ps, ps->block_line, "@matrix block has no rows");
		return;
	}
	op->data = lesson_parser_need(ps, lesson_arena_alloc(ps->a, (size_t)ps->nvals * sizeof(float)));
	if (!op->data)
		return;
	memcpy(op->data, ps->rows, (size_t)ps->nvals * sizeof(float));
	op->rows = ps->block_rows;
	op->cols = ps->block_cols;
}

void lesson_d_end(struct parser *ps, const char *arg)
{
	(void)arg;
	lesson_parser_err(ps, ps->line, "@end without an open @matrix block");
}

static void asset_error(struct parser *ps, const char *why)
{
	lesson_parser_err(ps, ps->line, "%s", why);
}

void lesson_d_preset(struct parser *ps, const char *arg)
{
	enum mha_tensor t;
	const char *rest;
	char name[80], why[512];
	if (input_tensor(ps, arg, "@preset", &t, &rest) != 0)
		return;
	const char *after = lesson_read_word(rest, name, sizeof name);
	if (!name[0] || *lesson_skip_blanks(after)) {
		lesson_parser_err(ps, ps->line, "@preset takes a matrix and an asset name: @preset W^Q sentence-wq");
		return;
	}
	struct lesson_op *op = new_op(ps, LESSON_OP_MATRIX);
	if (!op)
		return;
	op->t = t;
	op->asset = lesson_parser_need(ps, lesson_arena_strdup(ps->a, name));
	if (op->asset && lesson_asset_matrix(ps->assets_dir, op, ps->a, why, sizeof why) != 0)
		asset_error(ps, why);
}

void lesson_d_fill(struct parser *ps, const char *arg)
{
	enum mha_tensor t;
	const char *rest;
	if (input_tensor(ps, arg, "@fill", &t, &rest) != 0)
		return;
	bool zero = !strcmp(rest, "zero"), identity = !strcmp(rest, "identity");
	if (!zero && !identity) {
		lesson_parser_err(ps, ps->line, "@fill %s needs 'zero' or 'identity'", mha_tensor_info(t)->name);
		return;
	}
	struct lesson_op *op = new_op(ps, zero ? LESSON_OP_ZERO : LESSON_OP_IDENTITY);
	if (op)
		op->t = t;
}

void lesson_d_embed(struct parser *ps, const char *arg)
{
	char tok[80], pos[80], why[512];
	const char *p = lesson_read_word(lesson_skip_blanks(arg), tok, sizeof tok);
	p = lesson_read_word(lesson_skip_blanks(p), pos, sizeof pos);
	if (!tok[0] || !pos[0] || *lesson_skip_blanks(p)) {
		lesson_parser_err(ps, ps->line, "@embed takes two assets: token features, position features "
		    "(@embed sentence-tokens sentence-positions)");
		return;
	}
	struct lesson_op *op = new_op(ps, LESSON_OP_EMBED);
	if (!op)
		return;
	op->t = MHA_T_X;
	op->asset = lesson_parser_need(ps, lesson_arena_strdup(ps->a, tok));
	op->asset2 = lesson_parser_need(ps, lesson_arena_strdup(ps->a, pos));
	if (op->asset && op->asset2 && lesson_asset_embed(ps->assets_dir, op, ps->a, why, sizeof why) != 0)
		asset_error(ps, why);
}

void lesson_d_set(struct parser *ps, const char *arg)
{
	struct lesson_edit e = { 0 };
	char why[256];
	if (lesson_parse_edit(arg, &e, ps->a, false, why, sizeof why) != 0) {
		lesson_parser_err(ps, ps->line, "@set: %s", why);
		return;
	}
	if (e.kind == LESSON_EDIT_CONFIG) {
		lesson_parser_err(ps, ps->line, "@set: put %s in @config", lesson_qty_name(e.field));
		return;
	}
	struct lesson_op *op = new_op(ps, LESSON_OP_EDIT);
	if (op) {
		e.line = ps->line;
		op->edit = e;
	}
}

/* ---- what the step shows ---- */
