/*
 * ref.c - tensor references as lessons write them ("P[1][5][4]",
 * "W^Q[*][0..3]"): parsed, printed, clamped to a shape, walked cell by
 * cell, tested for a cell, checked against a configuration.
 */
#include "lesson_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool per_head(enum mha_tensor t)
{
	return t == MHA_T_SCORES || t == MHA_T_WEIGHTS || t == MHA_T_HEADS;
}

/* One "[i]", "[lo..hi]" or "[*]". */
static int parse_index(const char *p, const char **end, struct lesson_range *r)
{
	p = lesson_skip_blanks(p + 1);
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
	p = lesson_skip_blanks(p);
	if (*p != ']')
		return -1;
	*end = p + 1;
	return 0;
}

int lesson_parse_ref(const char *p, const char **end, struct lesson_ref *ref, char *why, size_t len)
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
	ref->t = lesson_tensor_by_name(name);
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

void lesson_ref_format(const struct lesson_ref *r, char *buf, size_t len)
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
