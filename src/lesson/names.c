/*
 * names.c - the vocabulary lesson files share: stage labels, quantity
 * names, tensor references ("P[1][5][4]", "W^Q[*][0..3]"), comparisons and
 * edits, with their small parsers and printers. Nothing here knows about
 * files or lines: callers add "file:line:" to the reasons given back.
 */
#include "lesson_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int stage_by_name(const char *text)
{
	if (text[0] >= '1' && text[0] <= '7' && text[1] == '\0')
		return text[0] - '1';
	return pipeline_stage_by_label(text);
}

static const char *const qty_names[LESSON_Q_COUNT] = {
	"tokens", "d_model", "heads", "kv_heads", "d_k", "causal", "top_k", "scale", "seed",
	"heads_off", "params", "params_wq", "params_wk", "params_wv", "params_wo", "flops",
	"flops_projection", "flops_scores", "flops_softmax", "flops_weighted_sum",
	"flops_output", "flops_one_full_head", "kv_cache",
};

const char *lesson_qty_name(enum lesson_qty q)
{
	return (unsigned)q < LESSON_Q_COUNT ? qty_names[q] : "?";
}

enum lesson_qty qty_by_name(const char *name)
{
	char buf[32];
	size_t n = strlen(name);
	if (n >= sizeof buf)
		return LESSON_Q_COUNT;
	for (size_t i = 0; i <= n; i++) /* d-model reads as d_model */
		buf[i] = name[i] == '-' ? '_' : name[i];
	for (int q = 0; q < LESSON_Q_COUNT; q++)
		if (!strcmp(buf, qty_names[q]))
			return (enum lesson_qty)q;
	return LESSON_Q_COUNT;
}

long long lesson_qty_value(const struct mha_config *c, enum lesson_qty q)
{
	struct mha_counts k = mha_counts(c);
	int off = 0;
	switch (q) {
	case LESSON_Q_TOKENS: return c->n;
	case LESSON_Q_D_MODEL: return c->d;
	case LESSON_Q_HEADS: return c->h;
	case LESSON_Q_KV_HEADS: return c->g;
	case LESSON_Q_D_K: return c->dk;
	case LESSON_Q_CAUSAL: return c->causal;
	case LESSON_Q_TOP_K: return c->top_k;
	case LESSON_Q_SCALE: return c->scale;
	case LESSON_Q_SEED: return (long long)c->seed;
	case LESSON_Q_HEADS_OFF:
		for (int i = 0; i < c->h && i < MHA_MAX_HEADS; i++)
			off += c->head_off[i];
		return off;
	case LESSON_Q_PARAMS: return k.params_total;
	case LESSON_Q_PARAMS_WQ: return k.params_wq;
	case LESSON_Q_PARAMS_WK: return k.params_wk;
	case LESSON_Q_PARAMS_WV: return k.params_wv;
	case LESSON_Q_PARAMS_WO: return k.params_wo;
	case LESSON_Q_FLOPS: return k.flops_total;
	case LESSON_Q_FLOPS_PROJECTION: return k.flops_projection;
	case LESSON_Q_FLOPS_SCORES: return k.flops_scores;
	case LESSON_Q_FLOPS_SOFTMAX: return k.flops_softmax;
	case LESSON_Q_FLOPS_WEIGHTED_SUM: return k.flops_weighted_sum;
	case LESSON_Q_FLOPS_OUTPUT: return k.flops_output;
	case LESSON_Q_FLOPS_ONE_FULL_HEAD: return k.flops_one_full_head;
	case LESSON_Q_KV_CACHE: return k.kv_cache_per_token;
	case LESSON_Q_COUNT: break;
	}
	return 0;
}

const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool word_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '-' || ch == '^' || ch == '.';
}

const char *read_word(const char *p, char *buf, size_t len)
{
	size_t n = 0;
	while (word_char(*p)) {
		if (n + 1 < len)
			buf[n++] = *p;
		p++;
	}
	buf[n] = '\0';
	return p;
}

int parse_number(const char *p, const char **end, double *out)
{
	/* Only digits, sign, point and exponent: strtod would also take "nan",
	 * "inf" and hexadecimal, none of which an author means. */
	size_t n = strspn(p, "0123456789+-.eE");
	if (n == 0 || n > 40)
		return -1;
	char buf[48];
	memcpy(buf, p, n);
	buf[n] = '\0';
	char *e;
	errno = 0;
	double v = strtod(buf, &e);
	if (e == buf || !isfinite(v) || errno == ERANGE)
		return -1;
	*end = p + (e - buf);
	*out = v;
	return 0;
}

int parse_int(const char *p, const char **end, long long *out)
{
	if (!isdigit((unsigned char)*p) && !(*p == '-' && isdigit((unsigned char)p[1])))
		return -1;
	char *e;
	errno = 0;
	long long v = strtoll(p, &e, 10);
	if (errno == ERANGE || (*e == '.' && e[1] != '.') || *e == 'e' || *e == 'E')
		return -1;
	*end = e;
	*out = v;
	return 0;
}

int parse_qty_value(const char *p, const char **end, double *out)
{
	static const struct { const char *word; int v; } words[] = {
		{ "on", 1 }, { "off", 0 }, { "true", 1 }, { "false", 0 }, { "yes", 1 }, { "no", 0 },
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i].word);
		if (!strncmp(p, words[i].word, n) && !word_char(p[n])) {
			*out = words[i].v;
			*end = p + n;
			return 0;
		}
	}
	return parse_number(p, end, out);
}

enum mha_tensor tensor_by_name(const char *name)
{
	for (int t = 0; t < MHA_T_COUNT; t++) {
		const struct mha_tensor_info *ti = mha_tensor_info((enum mha_tensor)t);
		if (!strcmp(name, ti->name) || !strcmp(name, ti->key))
			return (enum mha_tensor)t;
	}
	return MHA_T_COUNT;
}

static bool per_head(enum mha_tensor t)
{
	return t == MHA_T_SCORES || t == MHA_T_WEIGHTS || t == MHA_T_HEADS;
}

/* One "[i]", "[lo..hi]" or "[*]". */
static int parse_index(const char *p, const char **end, struct lesson_range *r)
{
	p = skip_blanks(p + 1);
	if (*p == '*') {
		r->lo = 0;
		r->hi = -1;
		p++;
	} else {
		long long lo, hi;
		if (parse_int(p, &p, &lo) != 0 || lo < 0 || lo > 100000)
			return -1;
		hi = lo;
		if (p[0] == '.' && p[1] == '.') {
			if (parse_int(p + 2, &p, &hi) != 0 || hi < lo || hi > 100000)
				return -1;
		}
		r->lo = (int)lo;
		r->hi = (int)hi;
	}
	p = skip_blanks(p);
	if (*p != ']')
		return -1;
	*end = p + 1;
	return 0;
}

int parse_ref(const char *p, const char **end, struct lesson_ref *ref, char *why, size_t len)
{
	char name[32];
	const char *q = p;
	size_t n = 0;
	while (*q && *q != '[' && *q != ' ' && *q != '\t' && *q != '=' && *q != '*' &&
	       *q != '<' && *q != '>' && *q != '!') {
		if (n + 1 < sizeof name)
			name[n++] = *q;
		q++;
	}
	name[n] = '\0';
	ref->t = tensor_by_name(name);
	if (ref->t == MHA_T_COUNT) {
		snprintf(why, len, "'%.24s' is not a tensor: use X, W^Q, W^K, W^V, W^O, Q, K, V, S, P, O, "
		         "Concat or Y", name);
		return -1;
	}
	int dims = per_head(ref->t) ? 3 : 2, first = 3 - dims;
	for (int i = 0; i < 3; i++)
		ref->r[i] = (struct lesson_range){ 0, i < first ? 0 : -1 };
	for (int i = first; i < 3 && *q == '['; i++) {
		if (parse_index(q, &q, &ref->r[i]) != 0) {
			snprintf(why, len, "bad index in '%.40s': use a number, lo..hi or *", p);
			return -1;
		}
	}
	if (*q == '[') {
		snprintf(why, len, "%s takes at most %d indices%s", name, dims,
		         dims == 3 ? " (head, row, column)" : " (row, column)");
		return -1;
	}
	*end = q;
	return 0;
}

static void range_format(struct lesson_range r, char *buf, size_t len)
{
	if (r.lo == 0 && r.hi == -1)
		snprintf(buf, len, "[*]");
	else if (r.hi == -1)
		snprintf(buf, len, "[%d..]", r.lo);
	else if (r.lo == r.hi)
		snprintf(buf, len, "[%d]", r.lo);
	else
		snprintf(buf, len, "[%d..%d]", r.lo, r.hi);
}

void ref_format(const struct lesson_ref *r, char *buf, size_t len)
{
	char idx[3][32] = { "", "", "" };
	int first = per_head(r->t) ? 0 : 1, last = 2;
	while (last > first && r->r[last].lo == 0 && r->r[last].hi == -1)
		last--; /* trailing [*] say nothing */
	if (last == first && r->r[last].lo == 0 && r->r[last].hi == -1)
		last = first - 1;
	for (int i = first; i <= last; i++)
		range_format(r->r[i], idx[i], sizeof idx[i]);
	snprintf(buf, len, "%s%s%s%s", mha_tensor_info(r->t)->name, idx[0], idx[1], idx[2]);
}

bool range_resolve(struct lesson_range r, int n, int *lo, int *hi)
{
	*lo = r.lo;
	*hi = r.hi < 0 ? n - 1 : r.hi;
	return *lo <= *hi && *hi < n;
}

void ref_visit(const struct lesson_ref *ref, struct mha_shape s,
               bool (*fn)(size_t at, void *ctx), void *ctx)
{
	int lo[3], hi[3];
	const int dim[3] = { s.count, s.rows, s.cols };
	for (int i = 0; i < 3; i++)
		if (!range_resolve(ref->r[i], dim[i], &lo[i], &hi[i]))
			return;
	for (int m = lo[0]; m <= hi[0]; m++)
		for (int r = lo[1]; r <= hi[1]; r++)
			for (int c = lo[2]; c <= hi[2]; c++)
				if (!fn(((size_t)m * s.rows + r) * s.cols + c, ctx))
					return;
}

bool ref_contains(const struct lesson_ref *ref, int m, int r, int c)
{
	const int idx[3] = { m, r, c };
	for (int i = 0; i < 3; i++)
		if (idx[i] >= 0 && (idx[i] < ref->r[i].lo || (ref->r[i].hi >= 0 && idx[i] > ref->r[i].hi)))
			return false;
	return true;
}

int ref_check(const struct lesson_ref *ref, const struct mha_config *c, char *why, size_t len)
{
	struct mha_shape s = mha_tensor_shape(c, ref->t);
	const int dim[3] = { s.count, s.rows, s.cols };
	static const char *const what[3] = { "head", "row", "column" };
	const char *name = mha_tensor_info(ref->t)->name;
	for (int i = 0; i < 3; i++) {
		int lo, hi;
		if (range_resolve(ref->r[i], dim[i], &lo, &hi))
			continue;
		int bad = ref->r[i].lo >= dim[i] ? ref->r[i].lo : ref->r[i].hi;
		if (i == 0)
			snprintf(why, len, "head %d does not exist: there are %d heads (0..%d)", bad, c->h,
			         c->h - 1);
		else
			snprintf(why, len, "%s %d does not exist: %s is %dx%d here", what[i], bad, name,
			         s.rows, s.cols);
		return -1;
	}
	return 0;
}

int parse_cmp(const char *p, const char **end)
{
	static const struct { const char *text; enum lesson_cmp c; } ops[] = {
		{ "<=", LESSON_LE }, { ">=", LESSON_GE }, { "==", LESSON_EQ }, { "!=", LESSON_NE },
		{ "<", LESSON_LT }, { ">", LESSON_GT }, { "=", LESSON_EQ },
		{ "within ", LESSON_IN }, { "in ", LESSON_IN },
	};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		size_t n = strlen(ops[i].text);
		if (!strncmp(p, ops[i].text, n)) {
			*end = p + n;
			return (int)ops[i].c;
		}
	}
	return -1;
}

const char *cmp_text(enum lesson_cmp c)
{
	static const char *const text[] = { "<", "<=", ">", ">=", "=", "!=", "within" };
	return (unsigned)c <= LESSON_IN ? text[c] : "?";
}

/* "head H off|on" after the word "head". */
static int parse_head_state(const char *p, int *head, bool *off, char *why, size_t len)
{
	long long h;
	p = skip_blanks(p);
	if (parse_int(p, &p, &h) != 0 || h < 0 || h >= MHA_MAX_HEADS) {
		snprintf(why, len, "expected 'head H off' or 'head H on' with H a head number");
		return -1;
	}
	p = skip_blanks(p);
	bool is_off = !strncmp(p, "off", 3), is_on = !strncmp(p, "on", 2);
	if (!is_off && !is_on) {
		snprintf(why, len, "expected 'off' or 'on' after the head number");
		return -1;
	}
	p = skip_blanks(p + (is_off ? 3 : 2));
	if (*p) {
		snprintf(why, len, "unexpected '%.20s' after 'head %lld %s'", p, h, is_off ? "off" : "on");
		return -1;
	}
	*head = (int)h;
	*off = is_off;
	return 0;
}

int parse_edit(const char *p, struct lesson_edit *e, struct lesson_arena *a, bool allow_answer,
               char *why, size_t len)
{
	char word[32];
	p = skip_blanks(p);
	const char *after = read_word(p, word, sizeof word);
	if (!strcmp(word, "head")) {
		e->kind = LESSON_EDIT_HEAD;
		return parse_head_state(after, &e->head, &e->off, why, len);
	}
	if (!strcmp(word, "answer")) {
		after = skip_blanks(after);
		if (!allow_answer || !*after) {
			snprintf(why, len, allow_answer ? "'answer' needs the answer after it"
			                                : "'answer' belongs in @solution, not here");
			return -1;
		}
		e->kind = LESSON_EDIT_ANSWER;
		e->answer = arena_strdup(a, after);
		return e->answer ? 0 : (snprintf(why, len, "out of memory"), -1);
	}
	enum lesson_qty q = qty_by_name(word);
	if (q != LESSON_Q_COUNT) {
		if (q >= LESSON_Q_CONFIG_COUNT || q == LESSON_Q_SEED) {
			snprintf(why, len, "%s cannot be assigned: it follows from the configuration", word);
			return -1;
		}
		p = skip_blanks(after);
		if (*p != '=' || p[1] == '=') {
			snprintf(why, len, "expected '%s = VALUE'", word);
			return -1;
		}
		p = skip_blanks(p + 1);
		if (parse_qty_value(p, &p, &e->value) != 0 || *skip_blanks(p) ||
		    e->value != floor(e->value) || fabs(e->value) > 1e6) {
			snprintf(why, len, "%s needs a whole number (or on / off)", word);
			return -1;
		}
		e->kind = LESSON_EDIT_CONFIG;
		e->field = q;
		return 0;
	}
	if (parse_ref(p, &p, &e->ref, why, len) != 0)
		return -1;
	if (!mha_tensor_info(e->ref.t)->input) {
		snprintf(why, len, "%s is computed, not edited: edit X, W^Q, W^K, W^V or W^O",
		         mha_tensor_info(e->ref.t)->name);
		return -1;
	}
	p = skip_blanks(p);
	if (p[0] == '*' && p[1] == '=') {
		e->kind = LESSON_EDIT_SCALE;
		p += 2;
	} else if (p[0] == '=' && p[1] != '=') {
		e->kind = LESSON_EDIT_SET;
		p += 1;
	} else {
		snprintf(why, len, "expected '= VALUE' or '*= FACTOR' after the cells");
		return -1;
	}
	p = skip_blanks(p);
	if (parse_number(p, &p, &e->value) != 0 || *skip_blanks(p) || fabs(e->value) > MHA_VALUE_MAX) {
		snprintf(why, len, "expected a number within +-1e6 after '%s'",
		         e->kind == LESSON_EDIT_SCALE ? "*=" : "=");
		return -1;
	}
	return 0;
}

int setup_resolve_config(const struct lesson_setup *base, const struct lesson_setup *step,
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
#undef FIELD
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

/* Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of neighbours each cost 1 ("hnit" is 1 from "hint"). */
int edit_distance(const char *a, const char *b)
{
	enum { MAXL = 32 };
	size_t la = strlen(a), lb = strlen(b);
	if (la >= MAXL || lb >= MAXL)
		return MAXL;
	int d[MAXL + 1][MAXL + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

const char *nearest_word(const char *w, const char *const *names, int n)
{
	const char *best = NULL;
	int bd = 3; /* more than 2 edits away is a different word, not a typo */
	for (int i = 0; i < n; i++) {
		int dist = edit_distance(w, names[i]);
		if (dist < bd) {
			bd = dist;
			best = names[i];
		}
	}
	return best;
}

/* "a" or "a b" or "a..b" after a comparison; the second only for 'within'. */
static int cond_values(const char *p, struct lesson_cond *c, char *why, size_t len)
{
	p = skip_blanks(p);
	if (parse_qty_value(p, &p, &c->a) != 0) {
		snprintf(why, len, "expected a number after '%s'", cmp_text(c->cmp));
		return -1;
	}
	if (c->cmp == LESSON_IN) {
		p = p[0] == '.' && p[1] == '.' ? p + 2 : skip_blanks(p);
		if (parse_qty_value(p, &p, &c->b) != 0 || c->b < c->a) {
			snprintf(why, len, "'within' takes two numbers, low then high: within 0.1 0.3");
			return -1;
		}
	}
	if (*skip_blanks(p)) {
		snprintf(why, len, "unexpected '%.20s' at the end", skip_blanks(p));
		return -1;
	}
	return 0;
}

static bool single(struct lesson_range r)
{
	return r.lo == r.hi;
}

int parse_cond(const char *arg, struct lesson_cond *c, char *why, size_t len)
{
	char word[32];
	const char *p = skip_blanks(arg), *after = read_word(p, word, sizeof word);
	if (!strcmp(word, "answer") && !*skip_blanks(after)) {
		c->kind = LESSON_COND_ANSWER;
		return 0;
	}
	if (!strcmp(word, "head")) {
		struct lesson_edit e = { 0 };
		c->kind = LESSON_COND_HEAD;
		if (parse_edit(p, &e, NULL, false, why, len) != 0)
			return -1;
		c->head = e.head;
		c->off = e.off;
		return 0;
	}
	if (!strcmp(word, "unchanged")) {
		c->kind = LESSON_COND_UNCHANGED;
		p = skip_blanks(after);
		if (parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		p = skip_blanks(p);
		if (parse_number(p, &p, &c->a) != 0 || c->a < 0 || *skip_blanks(p)) {
			snprintf(why, len, "expected 'unchanged TENSOR TOLERANCE' (unchanged Y 0.05)");
			return -1;
		}
		return 0;
	}
	if (!strcmp(word, "argmax")) {
		c->kind = LESSON_COND_ARGMAX;
		p = skip_blanks(after);
		if (parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		if (!single(c->ref.r[0]) || !single(c->ref.r[1]) || c->ref.r[2].lo != 0 ||
		    c->ref.r[2].hi != -1) {
			snprintf(why, len, "argmax takes one row: argmax P[head][row] = column");
			return -1;
		}
		int cmp = parse_cmp(skip_blanks(p), &p);
		long long col;
		if ((cmp != LESSON_EQ && cmp != LESSON_NE) || parse_int(skip_blanks(p), &p, &col) != 0 ||
		    col < 0 || *skip_blanks(p)) {
			snprintf(why, len, "expected '= COLUMN' or '!= COLUMN' after the row");
			return -1;
		}
		c->cmp = (enum lesson_cmp)cmp;
		c->a = (double)col;
		return 0;
	}
	static const char *const reducers[] = { "max", "min", "sum" };
	enum lesson_qty q = qty_by_name(word);
	for (int r = 0; r < 3; r++) {
		if (strcmp(word, reducers[r]) != 0)
			continue;
		c->kind = LESSON_COND_REDUCE;
		c->reduce = r;
		p = skip_blanks(after);
		if (parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		break;
	}
	if (c->kind == LESSON_COND_REDUCE) {
		/* the comparison follows below */
	} else if (q != LESSON_Q_COUNT) {
		c->kind = LESSON_COND_QTY;
		c->qty = q;
		p = after;
	} else {
		c->kind = LESSON_COND_CELL;
		if (parse_ref(p, &p, &c->ref, why, len) != 0)
			return -1;
		if (!single(c->ref.r[0]) || !single(c->ref.r[1]) || !single(c->ref.r[2])) {
			snprintf(why, len, "a goal compares one cell: give every index (P[head][row][column])");
			return -1;
		}
	}
	int cmp = parse_cmp(skip_blanks(p), &p);
	if (cmp < 0) {
		snprintf(why, len, "expected a comparison (<, <=, >, >=, =, !=, within) after '%.30s'",
		         word);
		return -1;
	}
	c->cmp = (enum lesson_cmp)cmp;
	return cond_values(p, c, why, len);
}
