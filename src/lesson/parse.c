/*
 * parse.c - the lesson file parser. Reads the whole file line by line,
 * directives ("@word" in column 0), comments ("#"), prose (everything
 * else), and builds a struct lesson in an arena. Every problem becomes a
 * "file:line: message" and parsing goes on, so an author sees all of them
 * at once; a misspelled directive gets the nearest real one suggested.
 * After the last line, each step's configuration is resolved and every
 * reference, shape and asset is checked against it. What needs the
 * forward pass (is a goal false at the start, true after the solution?)
 * is the checker's job (checker.c), not this file's.
 */
#include "lesson_int.h"
#include "parser.h"
#include "readfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum where { HEADER = 1, STEP = 2, ANYWHERE = 3 };

void lesson_parser_err(struct parser *ps, int line, const char *fmt, ...)
{
	char why[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	lesson_errors_add(ps->errs, "%s:%d: %s", ps->file, line, why);
	ps->nerr++;
}

void *lesson_parser_need(struct parser *ps, void *p)
{
	if (!p && !ps->oom) {
		ps->oom = true;
		lesson_parser_err(ps, ps->line, "out of memory");
	}
	return p;
}

static struct lesson_step *step(struct parser *ps)
{
	return ps->cur >= 0 ? &ps->l->steps[ps->cur] : NULL;
}

static struct lesson_setup *setup(struct parser *ps, struct caps **caps)
{
	*caps = ps->cur >= 0 ? &ps->step_caps : &ps->base_caps;
	return ps->cur >= 0 ? &step(ps)->setup : &ps->l->base;
}

/* ---- prose ---- */

static void prose_add(struct parser *ps, const char *text)
{
	size_t n = strlen(text);
	if (ps->prose_len + n + 2 > ps->prose_cap) {
		size_t cap = (ps->prose_len + n + 2) * 2;
		char *p = lesson_parser_need(ps, realloc(ps->prose, cap));
		if (!p)
			return;
		ps->prose = p;
		ps->prose_cap = cap;
	}
	memcpy(ps->prose + ps->prose_len, text, n);
	ps->prose_len += n;
	ps->prose[ps->prose_len++] = '\n';
	ps->prose[ps->prose_len] = '\0';
}

/* Store the current step's prose without blank lines at either end. */
static void prose_finish(struct parser *ps)
{
	struct lesson_step *s = step(ps);
	if (!s)
		return;
	const char *p = ps->prose ? ps->prose : "";
	size_t n = ps->prose_len;
	while (n && (p[n - 1] == '\n' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	size_t start = 0;
	for (size_t i = 0; i < n; i++) { /* skip whole blank lines at the start */
		if (p[i] == '\n')
			start = i + 1;
		else if (p[i] != ' ' && p[i] != '\t')
			break;
	}
	s->prose = lesson_parser_need(ps, lesson_arena_strndup(ps->a, p + start, n - start));
	ps->prose_len = 0;
}

/* ---- header directives ---- */

static void d_lesson(struct parser *ps, const char *arg)
{
	long long n;
	const char *end;
	if (ps->number_line) {
		lesson_parser_err(ps, ps->line, "@lesson given twice (first at line %d)", ps->number_line);
		return;
	}
	ps->number_line = ps->l->number_line = ps->line;
	if (lesson_parse_int(arg, &end, &n) != 0 || *lesson_skip_blanks(end) || n < 1 || n > 99) {
		lesson_parser_err(ps, ps->line, "bad lesson number '%.20s': @lesson takes a whole number 1..99", arg);
		return;
	}
	ps->l->number = (int)n;
}

static void d_text(struct parser *ps, const char *arg, const char **dst, int *line,
                   const char *what)
{
	if (*line) {
		lesson_parser_err(ps, ps->line, "@%s given twice (first at line %d)", what, *line);
		return;
	}
	*line = ps->line;
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@%s needs its text on the same line", what);
		return;
	}
	*dst = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
}

static void d_title(struct parser *ps, const char *arg)
{
	d_text(ps, arg, &ps->l->title, &ps->title_line, "title");
}

static void d_objective(struct parser *ps, const char *arg)
{
	d_text(ps, arg, &ps->l->objective, &ps->objective_line, "objective");
}

/* ---- steps ---- */

static void d_step(struct parser *ps, const char *arg)
{
	char id[LESSON_ID_MAX + 8];
	size_t n = strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789-_");
	if (n == 0 || n >= LESSON_ID_MAX || (arg[n] && arg[n] != ' ' && arg[n] != '\t')) {
		lesson_parser_err(ps, ps->line, "@step needs an id: lower-case letters, digits, '-' and '_', at most %d "
		    "bytes (\"@step scores-2 Title\")", LESSON_ID_MAX - 1);
		n = (size_t)snprintf(id, sizeof id, "step-at-line-%d", ps->line);
	} else {
		memcpy(id, arg, n);
		id[n] = '\0';
	}
	for (int i = 0; i < ps->l->nsteps; i++)
		if (!strcmp(ps->l->steps[i].id, id))
			lesson_parser_err(ps, ps->line, "duplicate step id '%s' (also at line %d): ids must be unique in a "
			    "lesson", id, ps->l->steps[i].line);
	prose_finish(ps);
	struct lesson_step *s = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&ps->l->steps, &ps->l->nsteps,
	                                            &ps->steps_cap, sizeof *s));
	if (!s)
		return;
	ps->cur = ps->l->nsteps - 1;
	memset(&ps->step_caps, 0, sizeof ps->step_caps);
	s->id = lesson_parser_need(ps, lesson_arena_strdup(ps->a, id));
	s->title = lesson_parser_need(ps, lesson_arena_strdup(ps->a, lesson_skip_blanks(arg + n)));
	s->line = ps->line;
	s->focus = -1;
}

/* ---- set-up ---- */

static void d_config(struct parser *ps, const char *arg)
{
	struct caps *caps;
	struct lesson_setup *su = setup(ps, &caps);
	if (su->config_line)
		lesson_parser_err(ps, ps->line, "@config given twice here (first at line %d): put every field "
		           "on one line", su->config_line);
	su->config_line = ps->line;
	static const char *const fields[LESSON_Q_CONFIG_COUNT] = {
		"tokens", "d_model", "heads", "kv_heads", "d_k", "causal", "top_k", "scale", "seed",
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
				    "heads, kv_heads, d_k, causal, top_k, scale, seed", name);
			return;
		}
		double v;
		if (lesson_parse_qty_value(q + 1, &q, &v) != 0 || (*q && *q != ' ' && *q != '\t') ||
		    v != floor(v) || v < 0 || v > (f == LESSON_Q_SEED ? 9e15 : 1e6)) {
			lesson_parser_err(ps, ps->line, "@config: %s needs a whole number >= 0%s", name,
			    f == LESSON_Q_CAUSAL || f == LESSON_Q_SCALE ? " or on / off" : "");
			return;
		}
		su->given |= 1u << f;
		su->value[f] = (long long)v;
		p = lesson_skip_blanks(q);
	}
}

static void d_labels(struct parser *ps, const char *arg)
{
	struct caps *caps;
	struct lesson_setup *su = setup(ps, &caps);
	if (su->labels_line)
		lesson_parser_err(ps, ps->line, "@labels given twice here (first at line %d)", su->labels_line);
	su->labels_line = ps->line;
	su->nlabels = 0;
	for (const char *p = lesson_skip_blanks(arg); *p; p = lesson_skip_blanks(p)) {
		size_t n = strcspn(p, " \t");
		if (n >= MHA_LABEL_MAX) {
			lesson_parser_err(ps, ps->line, "label '%.20s' is too long: at most %d bytes", p, MHA_LABEL_MAX - 1);
			return;
		}
		if (su->nlabels >= MHA_MAX_TOKENS) {
			lesson_parser_err(ps, ps->line, "more than %d labels", MHA_MAX_TOKENS);
			return;
		}
		const char **slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&su->labels, &su->nlabels,
		                                        &caps->labels, sizeof *slot));
		if (!slot || !(*slot = lesson_parser_need(ps, lesson_arena_strndup(ps->a, p, n))))
			return;
		p += n;
	}
	if (su->nlabels == 0)
		lesson_parser_err(ps, ps->line, "@labels needs one word per token");
}

static struct lesson_op *new_op(struct parser *ps, enum lesson_op_kind kind)
{
	struct caps *caps;
	struct lesson_setup *su = setup(ps, &caps);
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

static void d_matrix(struct parser *ps, const char *arg)
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

static void block_row(struct parser *ps, const char *l)
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

static void block_close(struct parser *ps)
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

static void d_end(struct parser *ps, const char *arg)
{
	(void)arg;
	lesson_parser_err(ps, ps->line, "@end without an open @matrix block");
}

static void asset_error(struct parser *ps, const char *why)
{
	lesson_parser_err(ps, ps->line, "%s", why);
}

static void d_preset(struct parser *ps, const char *arg)
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

static void d_fill(struct parser *ps, const char *arg)
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

static void d_embed(struct parser *ps, const char *arg)
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

static void d_set(struct parser *ps, const char *arg)
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

static void d_focus(struct parser *ps, const char *arg)
{
	int st = lesson_stage_by_name(arg);
	if (st < 0) {
		lesson_parser_err(ps, ps->line, "@focus: '%.24s' is not a stage: Projection, Reshape, Scores, Softmax, "
		    "Weighted sum, Concat, W^O (or 1-7)", arg);
		return;
	}
	step(ps)->focus = st;
}

/* A whole argument that is a reference; else an error saying what takes it. */
static int ref_arg(struct parser *ps, const char *arg, struct lesson_ref *ref, const char *what)
{
	char why[256] = "";
	const char *end = arg;
	if (lesson_parse_ref(arg, &end, ref, why, sizeof why) == 0 && !*lesson_skip_blanks(end))
		return 0;
	lesson_parser_err(ps, ps->line, "%s: %s", what, why[0] ? why : "unexpected text after the cells");
	return -1;
}

static void d_highlight(struct parser *ps, const char *arg)
{
	struct lesson_step *s = step(ps);
	struct lesson_mark m = { 0 };
	if (!strncmp(arg, "head ", 5)) {
		long long h;
		const char *end;
		if (lesson_parse_int(lesson_skip_blanks(arg + 5), &end, &h) != 0 || *lesson_skip_blanks(end) || h < 0 ||
		    h >= MHA_MAX_HEADS) {
			lesson_parser_err(ps, ps->line, "@highlight head H: H must be a head number");
			return;
		}
		m.is_head = true;
		m.head = (int)h;
	} else if (ref_arg(ps, arg, &m.ref, "@highlight takes 'head H' or cells (P[0][3])") != 0) {
		return;
	}
	struct lesson_mark *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->marks, &s->nmarks,
	                                               &ps->step_caps.marks, sizeof *slot));
	if (slot)
		*slot = m;
}

static void d_hide(struct parser *ps, const char *arg)
{
	struct lesson_step *s = step(ps);
	struct lesson_hide h = { 0 };
	int st = lesson_stage_by_name(arg);
	if (!strcmp(arg, "counts")) {
		h.kind = LESSON_HIDE_COUNTS;
	} else if (st >= 0) {
		h.kind = LESSON_HIDE_STAGE;
		h.stage = (enum pipeline_stage)st;
	} else {
		h.kind = LESSON_HIDE_CELLS;
		if (ref_arg(ps, arg, &h.ref, "@hide takes a stage, 'counts' or cells (P[0][3])") != 0)
			return;
	}
	struct lesson_hide *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->hides, &s->nhides,
	                                               &ps->step_caps.hides, sizeof *slot));
	if (slot)
		*slot = h;
}

/* ---- exercises ---- */

static void d_goal(struct parser *ps, const char *arg)
{
	struct lesson_step *s = step(ps);
	struct lesson_cond c = { 0 };
	char why[256];
	if (lesson_parse_cond(arg, &c, why, sizeof why) != 0) {
		lesson_parser_err(ps, ps->line, "@goal: %s", why);
		return;
	}
	c.line = ps->line;
	c.text = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
	struct lesson_cond *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->goals, &s->ngoals,
	                                               &ps->step_caps.goals, sizeof *slot));
	if (slot)
		*slot = c;
}

static void d_hint(struct parser *ps, const char *arg)
{
	struct lesson_step *s = step(ps);
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@hint needs its text on the same line");
		return;
	}
	const char **slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->hints, &s->nhints,
	                                        &ps->step_caps.hints, sizeof *slot));
	if (slot)
		*slot = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
}

static void d_solution(struct parser *ps, const char *arg)
{
	struct lesson_step *s = step(ps);
	struct lesson_edit e = { 0 };
	char why[256];
	if (lesson_parse_edit(arg, &e, ps->a, true, why, sizeof why) != 0) {
		lesson_parser_err(ps, ps->line, "@solution: %s", why);
		return;
	}
	e.line = ps->line;
	struct lesson_edit *slot = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&s->solution, &s->nsolution,
	                                               &ps->step_caps.solution, sizeof *slot));
	if (slot)
		*slot = e;
}

static void d_question(struct parser *ps, const char *arg)
{
	struct lesson_step *s = step(ps);
	if (s->question) {
		lesson_parser_err(ps, ps->line, "one @question per step (the first is at line %d)", s->question->line);
		return;
	}
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@question needs its text on the same line");
		return;
	}
	s->question = lesson_parser_need(ps, lesson_arena_alloc(ps->a, sizeof *s->question));
	if (!s->question)
		return;
	s->question->text = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
	s->question->line = ps->line;
}

static struct lesson_question *question(struct parser *ps, const char *what)
{
	struct lesson_question *q = step(ps)->question;
	if (!q)
		lesson_parser_err(ps, ps->line, "@%s before any @question in this step", what);
	return q;
}

static void d_choice(struct parser *ps, const char *arg)
{
	struct lesson_question *q = question(ps, "choice");
	if (!q)
		return;
	size_t n = strcspn(arg, " \t");
	const char *text = lesson_skip_blanks(arg + n);
	if (n == 0 || n > 8 || !*text) {
		lesson_parser_err(ps, ps->line, "@choice takes a short key and its text: @choice a the previous token");
		return;
	}
	for (int i = 0; i < q->nchoices; i++)
		if (strlen(q->choices[i].key) == n && !strncmp(q->choices[i].key, arg, n))
			lesson_parser_err(ps, ps->line, "choice '%.8s' given twice", arg);
	struct lesson_choice *c = lesson_parser_need(ps, lesson_arena_push(ps->a, (void **)&q->choices, &q->nchoices,
	                                              &ps->step_caps.choices, sizeof *c));
	if (!c)
		return;
	c->key = lesson_parser_need(ps, lesson_arena_strndup(ps->a, arg, n));
	c->text = lesson_parser_need(ps, lesson_arena_strdup(ps->a, text));
}

static void d_answer(struct parser *ps, const char *arg)
{
	struct lesson_question *q = question(ps, "answer");
	if (!q)
		return;
	if (q->answer) {
		lesson_parser_err(ps, ps->line, "@answer given twice");
		return;
	}
	if (!*arg) {
		lesson_parser_err(ps, ps->line, "@answer needs the right choice's key, or a number");
		return;
	}
	q->answer = lesson_parser_need(ps, lesson_arena_strdup(ps->a, arg));
}

static void d_include(struct parser *ps, const char *arg)
{
	char *text, why[512];
	size_t size;
	if (lesson_asset_read(ps->assets_dir, arg, ".txt", ps->a, &text, &size, why, sizeof why) != 0) {
		lesson_parser_err(ps, ps->line, "@include: %s", why);
		return;
	}
	/* included text is shown verbatim: indent every line */
	for (char *l = text, *nl; *l; l = nl ? nl + 1 : l + strlen(l)) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		char buf[1024];
		snprintf(buf, sizeof buf, "  %s", l);
		prose_add(ps, buf);
		if (!nl)
			break;
	}
}

/* ---- dispatch ---- */

static const struct directive {
	const char *name;
	void (*fn)(struct parser *, const char *arg);
	enum where where;
} directives[] = {
	{ "lesson", d_lesson, HEADER }, { "title", d_title, HEADER },
	{ "objective", d_objective, HEADER }, { "step", d_step, ANYWHERE },
	{ "config", d_config, ANYWHERE }, { "labels", d_labels, ANYWHERE },
	{ "matrix", d_matrix, ANYWHERE }, { "end", d_end, ANYWHERE },
	{ "preset", d_preset, ANYWHERE }, { "fill", d_fill, ANYWHERE },
	{ "embed", d_embed, ANYWHERE }, { "set", d_set, ANYWHERE },
	{ "focus", d_focus, STEP }, { "highlight", d_highlight, STEP }, { "hide", d_hide, STEP },
	{ "goal", d_goal, STEP }, { "hint", d_hint, STEP }, { "solution", d_solution, STEP },
	{ "question", d_question, STEP }, { "choice", d_choice, STEP },
	{ "answer", d_answer, STEP }, { "include", d_include, STEP },
};
enum { NDIRECTIVES = sizeof directives / sizeof directives[0] };

const char *lesson_nearest_directive(const char *word)
{
	const char *names[NDIRECTIVES];
	for (int i = 0; i < NDIRECTIVES; i++)
		names[i] = directives[i].name;
	return lesson_nearest_word(word, names, NDIRECTIVES);
}

static void directive(struct parser *ps, const char *l)
{
	char word[32];
	const char *after = lesson_read_word(l + 1, word, sizeof word);
	/* the argument: the rest, without blanks at either end */
	char arg[2048];
	const char *a = lesson_skip_blanks(after);
	size_t n = strlen(a);
	while (n && (a[n - 1] == ' ' || a[n - 1] == '\t'))
		n--;
	if (n >= sizeof arg) {
		lesson_parser_err(ps, ps->line, "line too long: at most %zu bytes after the directive", sizeof arg - 1);
		return;
	}
	memcpy(arg, a, n);
	arg[n] = '\0';
	for (int i = 0; i < NDIRECTIVES; i++) {
		const struct directive *d = &directives[i];
		if (strcmp(word, d->name) != 0)
			continue;
		if (*after && *after != ' ' && *after != '\t') {
			lesson_parser_err(ps, ps->line, "@%s: put a space between the directive and its text", d->name);
		} else if (!(d->where & STEP) && ps->cur >= 0) {
			lesson_parser_err(ps, ps->line, "@%s belongs before the first @step", d->name);
		} else if (!(d->where & HEADER) && ps->cur < 0) {
			lesson_parser_err(ps, ps->line, "@%s belongs inside a step: start one with @step ID", d->name);
		} else {
			d->fn(ps, arg);
		}
		return;
	}
	const char *near = lesson_nearest_directive(word);
	if (near)
		lesson_parser_err(ps, ps->line, "unknown directive @%.30s: did you mean @%s?", word, near);
	else
		lesson_parser_err(ps, ps->line, "unknown directive @%.30s (directives are listed in lessons/README.md)",
		    word);
}

/* Text must be UTF-8 without control characters (tab excepted): it goes
 * straight to the terminal. */
static bool text_ok(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char ch = s[i];
		if (ch < 0x80) {
			if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
				return false;
			i++;
			continue;
		}
		size_t len = ch >= 0xc2 && ch <= 0xdf ? 2 : ch >= 0xe0 && ch <= 0xef ? 3
		           : ch >= 0xf0 && ch <= 0xf4 ? 4 : 0;
		if (len == 0 || i + len > n)
			return false;
		if (ch == 0xc2 && s[i + 1] < 0xa0)
			return false; /* C1 controls: terminals act on them */
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += len;
	}
	return true;
}

static void line(struct parser *ps, char *l, size_t n)
{
	if (n && l[n - 1] == '\r')
		l[--n] = '\0';
	if (memchr(l, '\0', n) || !text_ok((const unsigned char *)l, n)) {
		lesson_parser_err(ps, ps->line, "this line is not UTF-8 text (or holds control characters)");
		return;
	}
	if (ps->block) {
		const char *t = lesson_skip_blanks(l);
		if (!strncmp(l, "@end", 4) && !*lesson_skip_blanks(l + 4)) {
			block_close(ps);
			return;
		}
		if (l[0] != '@') {
			if (*t && *t != '#')
				block_row(ps, l);
			return;
		}
		lesson_parser_err(ps, ps->block_line, "@matrix %s block is not closed: add @end after its rows",
		    mha_tensor_info(ps->block->t)->name);
		block_close(ps);
	}
	if (l[0] == '#')
		return;
	if (l[0] == '@') {
		directive(ps, l);
		return;
	}
	const char *text = l[0] == '\\' && (l[1] == '@' || l[1] == '#') ? l + 1 : l;
	if (ps->cur < 0) {
		if (*lesson_skip_blanks(text))
			lesson_parser_err(ps, ps->line, "text before the first @step: prose belongs inside a step");
		return;
	}
	prose_add(ps, text);
}

/* "dir/03-reshape.lesson" -> stem "03-reshape", name "reshape". */
static void names_from_path(struct parser *ps, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n > 7 && !strcmp(base + n - 7, ".lesson"))
		n -= 7;
	ps->l->stem = lesson_parser_need(ps, lesson_arena_strndup(ps->a, base, n));
	const char *s = base;
	while (s < base + n && isdigit((unsigned char)*s))
		s++;
	if (s > base && s < base + n && *s == '-')
		s++;
	else
		s = base;
	size_t nl = (size_t)(base + n - s);
	if (nl >= LESSON_NAME_MAX)
		nl = LESSON_NAME_MAX - 1;
	ps->l->name = lesson_parser_need(ps, lesson_arena_strndup(ps->a, s, nl));
}

int lesson_parse(const char *name, const char *text, size_t size, const char *assets_dir,
                 struct lesson *out, struct lesson_errors *errs)
{
	memset(out, 0, sizeof *out);
	struct parser ps = { .file = name, .l = out, .errs = errs, .assets_dir = assets_dir, .cur = -1 };
	out->arena = lesson_arena_new();
	ps.a = out->arena;
	if (!out->arena) {
		lesson_errors_add(errs, "%s: out of memory", name);
		return -1;
	}
	out->path = lesson_parser_need(&ps, lesson_arena_strdup(ps.a, name));
	names_from_path(&ps, name);
	if (size > LESSON_FILE_MAX) {
		lesson_parser_err(&ps, 1, "file too large: lessons are at most %d bytes", LESSON_FILE_MAX);
		ps.foreign = true;
	} else {
		char *copy = malloc(size + 1);
		if (!copy) {
			lesson_parser_need(&ps, NULL);
		} else {
			memcpy(copy, text, size);
			copy[size] = '\0';
			char magic[32];
			snprintf(magic, sizeof magic, "mha-tui-lesson %d", LESSON_FORMAT_VERSION);
			char *p = copy, *endp = copy + size;
			while (p < endp && !ps.oom) {
				char *nl = memchr(p, '\n', (size_t)(endp - p));
				size_t n = nl ? (size_t)(nl - p) : (size_t)(endp - p);
				p[n] = '\0';
				ps.line++;
				if (ps.line == 1) {
					if (n && p[n - 1] == '\r')
						p[n - 1] = '\0';
					if (strcmp(p, magic) != 0) {
						lesson_parser_err(&ps, 1, !strncmp(p, "mha-tui-lesson ", 15)
						    ? "unsupported lesson format: this mha-tui reads '%s'"
						    : "not a lesson file: the first line must be '%s'", magic);
						ps.foreign = true;
						break; /* the rest would only add noise */
					}
				} else {
					line(&ps, p, n);
				}
				p += n + 1;
			}
			if (size == 0) {
				lesson_parser_err(&ps, 1, "empty file: the first line must be '%s'", magic);
				ps.foreign = true;
			}
			free(copy);
		}
	}
	if (!ps.oom && !ps.foreign) {
		if (ps.block) {
			lesson_parser_err(&ps, ps.block_line, "@matrix %s block is not closed: add @end after its rows",
			    mha_tensor_info(ps.block->t)->name);
			ps.block = NULL;
		}
		prose_finish(&ps);
		lesson_parser_finish(&ps);
	}
	free(ps.prose);
	free(ps.rows);
	if (ps.nerr) {
		lesson_free(out);
		return -1;
	}
	return 0;
}

int lesson_load(const char *path, const char *assets_dir, struct lesson *out,
                struct lesson_errors *errs)
{
	memset(out, 0, sizeof *out);
	char *buf, why[256];
	size_t n;
	if (readfile_all(path, LESSON_FILE_MAX, &buf, &n, why, sizeof why) != 0) { /* a FIFO cannot hang it */
		lesson_errors_add(errs, "%s: cannot read: %s", path, why);
		return -1;
	}
	int rc = lesson_parse(path, buf, n, assets_dir, out, errs);
	free(buf);
	return rc;
}

void lesson_free(struct lesson *l)
{
	lesson_arena_free(l->arena);
	memset(l, 0, sizeof *l);
}
