/*
 * ref.c - tensor references as lessons write them, in the one cell
 * notation (notation.h: "P₀[5,4]" or "P_0[5,4]", "W^Q[*,0..3]"):
 * parsed, printed, clamped to a shape, walked cell by cell, tested for a
 * cell, checked against a configuration. The old "P[1][5][4]" is refused
 * with its new form.
 */
#include "lesson_int.h"
#include "notation.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One index: "i", "lo..hi" or "*" (blanks around it skipped). */
static int parse_index(const char *p, const char **end, struct lesson_range *r)
{
	p = lesson_skip_blanks(p);
	if (*p == '*') {
		r->lo = 0;
		r->hi = -1;
		p++;
	} else {
		long long lo, hi;
		if (lesson_parse_int(p, &p, &lo) != 0 || lo < 0 || lo > 100000)
			return -1;
		hi = lo;
		if (p[0] == '.' && p[1] == '.') {
			if (lesson_parse_int(p + 2, &p, &hi) != 0 || hi < lo || hi > 100000)
				return -1;
		}
		r->lo = (int)lo;
		r->hi = (int)hi;
	}
	*end = lesson_skip_blanks(p);
	return 0;
}

/* Subscript digits at p as a number; -1 when there are none. */
static long long parse_sub(const char *p, const char **end)
{
	long long v = -1;
	while (notation_sub_digit(p) >= 0 && v < 100000) {
		v = (v < 0 ? 0 : v * 10) + notation_sub_digit(p);
		p += 3;
	}
	*end = p;
	return v;
}

/* The head after the name: "₀", "₀..₃", "_0", "_0..3", "_*". 1 when there
 * is one, 0 when none, -1 when malformed. */
static int parse_head(const char *p, const char **end, struct lesson_range *h)
{
	if (*p == '_') {
		const char *q;
		if (p[1] == ' ' || parse_index(p + 1, &q, h) != 0)
			return -1;
		*end = q;
		return 1;
	}
	long long lo = parse_sub(p, &p), hi = lo;
	if (lo < 0)
		return 0;
	if (p[0] == '.' && p[1] == '.') {
		hi = parse_sub(p + 2, &p);
		if (hi < lo)
			return -1;
	}
	if (lo > 100000 || hi > 100000)
		return -1;
	*h = (struct lesson_range){ (int)lo, (int)hi };
	*end = p;
	return 1;
}

static struct notation_range as_notation(struct lesson_range r)
{
	return (struct notation_range){ r.lo, r.hi };
}

/* The old notation "P[0][2]", "W^K[1][5]" read as it used to be (head,
 * row, column for S, P, O; row, column for the others), to say how to
 * write it now; false when q does not hold one. */
static bool old_form(enum mha_tensor t, const char *q, char *buf, size_t len)
{
	struct lesson_range g[3] = { { 0, -1 }, { 0, -1 }, { 0, -1 } };
	int n = 0;
	while (*q == '[' && n < 3) {
		if (parse_index(q + 1, &q, &g[n++]) != 0 || *q != ']')
			return false;
		q = lesson_skip_blanks(q + 1);
	}
	if (n < 2 || *q == '[')
		return false;
	struct notation_range r[3] = { { 0, 0 }, as_notation(g[0]), as_notation(g[1]) };
	if (notation_per_head(t)) {
		r[0] = as_notation(g[0]);
		r[1] = as_notation(g[1]);
		r[2] = as_notation(g[2]);
	}
	notation_ref(buf, len, t, r, true);
	return true;
}

/* "layer L " before a reference: L, with p past it; 0 when not there,
 * -1 when malformed. */
static int parse_layer(const char *p, const char **end, int *layer)
{
	if (strncmp(p, "layer", 5) != 0 || (p[5] != ' ' && p[5] != '\t'))
		return 0;
	long long l;
	p = lesson_skip_blanks(p + 5);
	if (lesson_parse_int(p, &p, &l) != 0 || l < 0 || l >= MHA_MAX_LAYERS || (*p != ' ' && *p != '\t'))
		return -1;
	*layer = (int)l;
	*end = lesson_skip_blanks(p);
	return 1;
}

/* The residual stream "x₁" / "x_1" at p: 1 with its index in *l, 0 when
 * p holds no such name. */
static int parse_stream(const char *p, const char **end, int *l)
{
	if (p[0] != 'x')
		return 0;
	if (notation_sub_digit(p + 1) >= 0 && notation_sub_digit(p + 4) < 0) {
		*l = notation_sub_digit(p + 1);
		*end = p + 4;
		return 1;
	}
	if (p[1] == '_' && isdigit((unsigned char)p[2]) && !isalnum((unsigned char)p[3])) {
		*l = p[2] - '0';
		*end = p + 3;
		return 1;
	}
	return 0;
}

/* The tensor's name at p into name: the names with '_' in them whole
 * (X_kv, P_pos, Q_rot, K_rot: '_' elsewhere starts an ASCII head), else
 * up to the head, the index or what follows. Returns where it ends. */
static const char *read_name(const char *p, char *name, size_t len)
{
	static const char *const whole[] = { "X_kv", "P_pos", "Q_rot", "K_rot" };
	for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
		size_t n = strlen(whole[i]);
		if (!strncmp(p, whole[i], n) && !isalnum((unsigned char)p[n]) && p[n] != '_') {
			snprintf(name, len, "%s", whole[i]);
			return p + n;
		}
	}
	size_t n = 0;
	const char *q = p;
	while (*q && *q != '[' && *q != ' ' && *q != '\t' && *q != '=' && *q != '*' && *q != '<' &&
	       *q != '>' && *q != '!' && *q != '_' && notation_sub_digit(q) < 0) {
		if (n + 1 < len)
			name[n++] = *q;
		q++;
	}
	name[n] = '\0';
	return q;
}

int lesson_parse_ref(const char *p, const char **end, struct lesson_ref *ref, char *why, size_t len)
{
	char name[32];
	const char *q = p;
	int layer = 0, stream = 0;
	int given = parse_layer(p, &q, &layer);
	if (given < 0) {
		snprintf(why, len, "bad layer in '%.40s': write 'layer L' then the cells, L in 0..%d "
		         "(layer 1 S\u2080[2,3])", p, MHA_MAX_LAYERS - 1);
		return -1;
	}
	if (parse_stream(q, &q, &stream)) {
		if (given) {
			snprintf(why, len, "x\u2081 names its layer itself: drop 'layer %d'", layer);
			return -1;
		}
		if (stream > MHA_MAX_LAYERS) {
			snprintf(why, len, "the stream runs x\u2080 .. x\u2084 at most (%d layers)", MHA_MAX_LAYERS);
			return -1;
		}
		ref->t = MHA_T_XIN;
		ref->layer = stream;
		for (int i = 0; i < 3; i++)
			ref->r[i] = (struct lesson_range){ 0, i == 0 ? 0 : -1 };
		goto indices;
	}
	ref->layer = layer;
	q = read_name(q, name, sizeof name);
	ref->t = lesson_tensor_by_name(name);
	if (ref->t == MHA_T_COUNT) {
		snprintf(why, len, "'%.24s' is not a tensor: use X, W^Q, W^K, W^V, W^O, Q, K, V, S, P, O, "
		         "Concat, Y, PE, P_pos, Q_rot, K_rot, X_kv or the stream x\u2081", name);
		return -1;
	}
	bool heads = notation_per_head(ref->t);
	for (int i = 0; i < 3; i++)
		ref->r[i] = (struct lesson_range){ 0, i == 0 && !heads ? 0 : -1 };
	int h = parse_head(q, &q, &ref->r[0]);
	if (h < 0) {
		snprintf(why, len, "bad head in '%.40s': write it as a subscript, P\u2080 or P_0", p);
		return -1;
	}
	if (h > 0 && !heads) {
		snprintf(why, len, "%s has no heads: write %s[row,column]", name, name);
		return -1;
	}
	char want[NOTATION_MAX];
	if (*q == '[' && old_form(ref->t, q, want, sizeof want)) {
		snprintf(why, len, "write %s: %s (lessons/README.md)", want,
		         heads ? "the head as a subscript, then [row,column]" : "[row,column] in one pair of brackets");
		return -1;
	}
indices:
	if (*q == '[') {
		if (parse_index(q + 1, &q, &ref->r[1]) != 0 ||
		    (*q == ',' && parse_index(q + 1, &q, &ref->r[2]) != 0) || *q != ']') {
			snprintf(why, len, "bad index in '%.40s': write [row,column], each a number, lo..hi or *", p);
			return -1;
		}
		q++;
	}
	if (*q == '[' || *q == '_' || notation_sub_digit(q) >= 0) {
		snprintf(why, len, "%s takes one [row,column] after its name%s",
		         ref->t == MHA_T_XIN ? "x\u2081" : mha_tensor_info(ref->t)->name,
		         notation_per_head(ref->t) ? " and head (P\u2080[2,0])" : "");
		return -1;
	}
	*end = q;
	return 0;
}

void lesson_ref_format(const struct lesson_ref *r, char *buf, size_t len)
{
	struct notation_range nr[3] = { as_notation(r->r[0]), as_notation(r->r[1]), as_notation(r->r[2]) };
	if (r->t == MHA_T_XIN) { /* the stream: "x₁[2,0]", X's indices after x's name */
		char idx[NOTATION_MAX], sub[16];
		notation_ref(idx, sizeof idx, MHA_T_X, nr, true);
		snprintf(buf, len, "x%s%s", notation_subscript(sub, sizeof sub, r->layer, true), idx + 1);
		return;
	}
	char cells[NOTATION_MAX];
	notation_ref(cells, sizeof cells, r->t, nr, true);
	if (r->layer > 0)
		snprintf(buf, len, "layer %d %s", r->layer, cells);
	else
		snprintf(buf, len, "%s", cells);
}

/* The tensor and layer whose numbers ref names under c: x_L is layer L's
 * input, or past the last layer the stack's output. */
static enum mha_tensor ref_where(const struct lesson_ref *ref, const struct mha_config *c, int *layer)
{
	*layer = ref->layer;
	if (ref->t == MHA_T_XIN && ref->layer == c->layers && ref->layer > 0) {
		*layer = ref->layer - 1;
		return MHA_T_STREAM;
	}
	return ref->t;
}

float *lesson_ref_data(const struct lesson_ref *ref, const struct mha_config *c,
                             const struct mha_weights *w, const struct mha_acts *layers)
{
	int l;
	enum mha_tensor t = ref_where(ref, c, &l);
	if (l < 0 || l >= c->layers || (!layers && !mha_tensor_info(t)->input))
		return NULL;
	return mha_tensor_data_layer(w, layers ? &layers[l] : NULL, l, t);
}

bool lesson_ref_in_layer(const struct lesson_ref *ref, enum mha_tensor t, int layer)
{
	if (ref->t == MHA_T_XIN) /* x_L: layer L's input, and layer L-1's output */
		return (t == MHA_T_XIN && layer == ref->layer) || (t == MHA_T_STREAM && layer == ref->layer - 1);
	bool shared = t == MHA_T_X || t == MHA_T_XKV || t == MHA_T_POS;
	return ref->t == t && (shared || ref->layer == layer);
}

bool lesson_range_resolve(struct lesson_range r, int n, int *lo, int *hi)
{
	*lo = r.lo;
	*hi = r.hi < 0 ? n - 1 : r.hi;
	return *lo <= *hi && *hi < n;
}

void lesson_ref_visit(const struct lesson_ref *ref, struct mha_shape s,
               bool (*fn)(size_t at, void *ctx), void *ctx)
{
	int lo[3], hi[3];
	const int dim[3] = { s.count, s.rows, s.cols };
	for (int i = 0; i < 3; i++)
		if (!lesson_range_resolve(ref->r[i], dim[i], &lo[i], &hi[i]))
			return;
	for (int m = lo[0]; m <= hi[0]; m++)
		for (int r = lo[1]; r <= hi[1]; r++)
			for (int c = lo[2]; c <= hi[2]; c++)
				if (!fn(((size_t)m * s.rows + r) * s.cols + c, ctx))
					return;
}

bool lesson_ref_contains(const struct lesson_ref *ref, int m, int r, int c)
{
	const int idx[3] = { m, r, c };
	for (int i = 0; i < 3; i++)
		if (idx[i] >= 0 && (idx[i] < ref->r[i].lo || (ref->r[i].hi >= 0 && idx[i] > ref->r[i].hi)))
			return false;
	return true;
}

int lesson_ref_check(const struct lesson_ref *ref, const struct mha_config *c, char *why, size_t len)
{
	if (ref->t == MHA_T_XIN && ref->layer > c->layers) {
		snprintf(why, len, "x%d does not exist: with %d layer%s the stream runs x0 .. x%d", ref->layer,
		         c->layers, c->layers == 1 ? "" : "s", c->layers);
		return -1;
	}
	if (ref->t != MHA_T_XIN && ref->layer >= c->layers) {
		snprintf(why, len, "layer %d does not exist: there %s %d layer%s (0..%d)", ref->layer,
		         c->layers == 1 ? "is" : "are", c->layers, c->layers == 1 ? "" : "s", c->layers - 1);
		return -1;
	}
	if (!mha_tensor_used(c, ref->t)) {
		snprintf(why, len, "%s is not used here: %s", mha_tensor_info(ref->t)->name,
		         ref->t == MHA_T_XKV ? "there is no second sequence"
		         : ref->t == MHA_T_POS ? "positions are not learned" : "positions are not RoPE");
		return -1;
	}
	struct mha_shape s = mha_tensor_shape(c, ref->t);
	const int dim[3] = { s.count, s.rows, s.cols };
	static const char *const what[3] = { "head", "row", "column" };
	const char *name = mha_tensor_info(ref->t)->name;
	for (int i = 0; i < 3; i++) {
		int lo, hi;
		if (lesson_range_resolve(ref->r[i], dim[i], &lo, &hi))
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

/* A tensor's name at p, at the start of a word: its length, else 0. */
static size_t name_at(const char *text, const char *p)
{
	static const char *const names[] = { "Concat", "W^Q", "W^K", "W^V", "W^O", "X", "Q", "K", "V",
	                                     "S", "P", "O", "Y" };
	if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '^' || p[-1] == '_'))
		return 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t n = strlen(names[i]);
		if (!strncmp(p, names[i], n))
			return n;
	}
	return 0;
}

/* The head written after a name as the notation writes it: digits as
 * subscripts ("12" -> "₁₂"), subscripts as they are, a letter after "_"
 * ("i" -> "_i"); "" without one. Returns buf. */
static char *head_text(char *buf, size_t len, const char *head, size_t hn)
{
	size_t l = 0;
	buf[0] = '\0';
	if (head && notation_sub_digit(head) < 0 && !isdigit((unsigned char)*head))
		l = (size_t)snprintf(buf, len, "_");
	for (size_t k = 0; head && k < hn && l < len; k++) {
		if (isdigit((unsigned char)head[k]))
			notation_subscript(buf + l, len - l, head[k] - '0', true);
		else
			snprintf(buf + l, len - l, "%c", head[k]);
		l = strlen(buf);
	}
	return buf;
}

const char *lesson_notation_old(const char *text, size_t *len_out, char *want, size_t len)
{
	for (const char *p = text; *p; p++) {
		size_t n = name_at(text, p);
		if (!n)
			continue;
		const char *q = p + n, *head = NULL;
		size_t hn = 0;
		bool ascii = false;
		if (*q == '_' && isalnum((unsigned char)q[1])) { /* "_1", "_i" */
			head = ++q;
			while (isalnum((unsigned char)*q))
				q++;
			hn = (size_t)(q - head);
			ascii = isdigit((unsigned char)*head);
		} else if (notation_sub_digit(q) >= 0) {
			head = q;
			while (notation_sub_digit(q) >= 0)
				q += 3;
			hn = (size_t)(q - head);
		}
		const char *grp[3];
		size_t gn[3];
		int g = 0;
		while (*q == '[' && g < 3) {
			const char *close = strpbrk(q + 1, "[]");
			if (!close || *close != ']')
				break;
			grp[g] = q + 1;
			gn[g++] = (size_t)(close - q - 1);
			q = close + 1;
		}
		char name[8], sub[64], idx[128] = "";
		snprintf(name, sizeof name, "%.*s", (int)n, p);
		if (g == 0 && ascii) { /* a matrix: "S_0" reads "S₀" */
			snprintf(want, len, "%s%s", name, head_text(sub, sizeof sub, head, hn));
			*len_out = (size_t)(q - p);
			return p;
		}
		if (g == 0 || (g == 1 && !ascii) || *q == '[')
			continue;
		/* the form to write: the head as a subscript, then [row,column];
		 * S, P, O written without a head had it first ("P[0][2]") */
		int first = 0;
		if (!head && notation_per_head(lesson_tensor_by_name(name)) && g >= 2) {
			head = grp[0];
			hn = gn[0];
			first = 1;
		}
		head_text(sub, sizeof sub, head, hn);
		for (int k = first; k < g; k++) {
			size_t l = strlen(idx);
			snprintf(idx + l, sizeof idx - l, "%s%.*s", k > first ? "," : "", (int)gn[k], grp[k]);
		}
		if (first && g == 2) /* "S[1][0]": head and row, or row and column? */
			snprintf(want, len, "%s%s[%s,*] (head %.*s, row %.*s) or %s\u2080[%.*s,%.*s] (row, column of "
			         "head 0)", name, sub, idx, (int)gn[0], grp[0], (int)gn[1], grp[1], name, (int)gn[0],
			         grp[0], (int)gn[1], grp[1]);
		else
			snprintf(want, len, "%s%s[%s]", name, sub, idx);
		*len_out = (size_t)(q - p);
		return p;
	}
	return NULL;
}
