/*
 * notation.c - cells written one way (notation.h): "P₀[2,0]", "W^Q[*,4..7]",
 * "P₀[2 sat, 0 the]", in UTF-8 or ASCII ("P_0[2,0]"). Only writes text:
 * reading it back is the lessons' parser (src/lesson/ref.c); fitting it
 * to a screen's width is the caller's.
 */
#include "notation.h"

#include <stdio.h>
#include <string.h>

bool notation_per_head(enum mha_tensor t)
{
	return t == MHA_T_SCORES || t == MHA_T_WEIGHTS || t == MHA_T_HEADS;
}

bool notation_row_is_token(enum mha_tensor t)
{
	return t != MHA_T_WQ && t != MHA_T_WK && t != MHA_T_WV && t != MHA_T_WO;
}

bool notation_col_is_token(enum mha_tensor t)
{
	return t == MHA_T_SCORES || t == MHA_T_WEIGHTS;
}

char *notation_subscript(char *buf, size_t len, int i, bool utf8)
{
	char num[16];
	snprintf(num, sizeof num, "%d", i);
	if (!utf8) {
		snprintf(buf, len, "%s", num);
		return buf;
	}
	size_t l = 0;
	if (len)
		buf[0] = '\0';
	for (const char *p = num; *p && l + 4 <= len; p++) {
		if (*p == '-') { /* never an index, but say it rather than drop it */
			buf[l++] = '-';
		} else { /* U+2080 + digit: E2 82 80..89 */
			buf[l++] = (char)0xE2;
			buf[l++] = (char)0x82;
			buf[l++] = (char)(0x80 + (*p - '0'));
		}
		buf[l] = '\0';
	}
	return buf;
}

int notation_sub_digit(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	return u[0] == 0xE2 && u[1] == 0x82 && u[2] >= 0x80 && u[2] <= 0x89 ? u[2] - 0x80 : -1;
}

char *notation_matrix(char *buf, size_t len, enum mha_tensor t, int head, bool utf8)
{
	const char *name = mha_tensor_info(t)->name;
	if (head < 0 || !notation_per_head(t)) {
		snprintf(buf, len, "%s", name);
		return buf;
	}
	return notation_sub_name(buf, len, name, head, utf8);
}

char *notation_sub_name(char *buf, size_t len, const char *name, int i, bool utf8)
{
	char sub[48];
	notation_subscript(sub, sizeof sub, i, utf8);
	snprintf(buf, len, "%s%s%s", name, utf8 ? "" : "_", sub);
	return buf;
}

bool notation_token_repeated(const char (*labels)[MHA_LABEL_MAX], int n, int i)
{
	for (int k = 0; k < n; k++)
		if (k != i && !strcmp(labels[k], labels[i]))
			return true;
	return false;
}

char *notation_token(char *buf, size_t len, const char (*labels)[MHA_LABEL_MAX], int n, int i, bool utf8)
{
	if (!labels || i < 0 || i >= n) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	char sub[48] = "";
	if (notation_token_repeated(labels, n, i))
		notation_subscript(sub, sizeof sub, i, utf8);
	snprintf(buf, len, "%s%s", labels[i], sub);
	return buf;
}

static bool all(struct notation_range r)
{
	return r.lo == 0 && r.hi == -1;
}

/* "*", "4..", "4", "4..7" */
static void range_text(char *buf, size_t len, struct notation_range r)
{
	if (all(r))
		snprintf(buf, len, "*");
	else if (r.hi == -1)
		snprintf(buf, len, "%d..", r.lo);
	else if (r.lo == r.hi)
		snprintf(buf, len, "%d", r.lo);
	else
		snprintf(buf, len, "%d..%d", r.lo, r.hi);
}

/* The name with its head: one head "P₀", a range "P₀..₃" ("P_0..3"),
 * every head "P". */
static void head_name(char *buf, size_t len, enum mha_tensor t, struct notation_range h, bool utf8)
{
	if (!notation_per_head(t) || all(h) || h.lo == h.hi) {
		notation_matrix(buf, len, t, notation_per_head(t) && !all(h) ? h.lo : -1, utf8);
		return;
	}
	char lo[48], hi[48] = "";
	notation_matrix(lo, sizeof lo, t, h.lo, utf8);
	if (h.hi >= 0)
		notation_subscript(hi, sizeof hi, h.hi, utf8);
	snprintf(buf, len, "%s..%s", lo, hi);
}

/* The reference; brackets = false leaves out "[*,*]". */
static char *ref_text(char *buf, size_t len, enum mha_tensor t, const struct notation_range r[3], bool utf8,
                      bool brackets)
{
	char name[64], rs[32], cs[32];
	head_name(name, sizeof name, t, r[0], utf8);
	if (!brackets && all(r[1]) && all(r[2])) {
		snprintf(buf, len, "%s", name);
		return buf;
	}
	range_text(rs, sizeof rs, r[1]);
	range_text(cs, sizeof cs, r[2]);
	snprintf(buf, len, "%s[%s,%s]", name, rs, cs);
	return buf;
}

char *notation_ref(char *buf, size_t len, enum mha_tensor t, const struct notation_range r[3], bool utf8)
{
	return ref_text(buf, len, t, r, utf8, false);
}

char *notation_cell(char *buf, size_t len, const struct cell *c, const char (*labels)[MHA_LABEL_MAX], int n,
                    bool utf8)
{
	return notation_cell_cross(buf, len, c, labels, n, NULL, 0, utf8);
}

char *notation_cell_cross(char *buf, size_t len, const struct cell *c, const char (*labels)[MHA_LABEL_MAX], int n,
                          const char (*kv_labels)[MHA_LABEL_MAX], int m, bool utf8)
{
	char name[64], rl[MHA_LABEL_MAX + 48] = "", cl[MHA_LABEL_MAX + 48] = "";
	notation_matrix(name, sizeof name, c->t, c->m, utf8);
	/* the keys' axis is the source's with cross-attention: rows of X_kv,
	 * K, V (and K rotated), columns of S and P */
	bool kv = m > 0 && kv_labels;
	bool row_kv = kv && (c->t == MHA_T_XKV || c->t == MHA_T_K || c->t == MHA_T_V || c->t == MHA_T_KROT);
	const char (*rows)[MHA_LABEL_MAX] = row_kv ? kv_labels : labels, (*cols)[MHA_LABEL_MAX] = kv ? kv_labels : labels;
	int nr = row_kv ? m : n, nc = kv ? m : n;
	/* the plain word: the index before it already tells a repeated word
	 * apart ("P₀[0 the, 4 the]") */
	if (rows && notation_row_is_token(c->t) && c->r >= 0 && c->r < nr)
		snprintf(rl, sizeof rl, " %s", rows[c->r]);
	if (cols && notation_col_is_token(c->t) && c->c >= 0 && c->c < nc)
		snprintf(cl, sizeof cl, " %s", cols[c->c]);
	bool any = rl[0] || cl[0];
	snprintf(buf, len, "%s[%d%s,%s%d%s]", name, c->r, rl, any ? " " : "", c->c, cl);
	return buf;
}

char *notation_rect(char *buf, size_t len, const struct mha_config *cfg, enum mha_tensor t,
                    const struct cell_rect *d, bool utf8)
{
	struct mha_shape s = mha_tensor_shape(cfg, t);
	struct notation_range r[3] = {
		{ d->m, d->m },
		{ d->r0, d->r1 - d->r0 == s.rows ? -1 : d->r1 - 1 },
		{ d->c0, d->c1 - d->c0 == s.cols ? -1 : d->c1 - 1 },
	};
	if (r[1].hi == -1)
		r[1].lo = 0;
	if (r[2].hi == -1)
		r[2].lo = 0;
	/* a whole dependency is still written with its indices: "S₀[*,*]"
	 * says every cell, "V" alone could read as a head block of it */
	return ref_text(buf, len, t, r, utf8, true);
}

void notation_ascii(char *s)
{
	char *out = s;
	for (const char *p = s; *p;) {
		if (notation_sub_digit(p) < 0) {
			*out++ = *p++;
			continue;
		}
		/* read the run before writing: out may stand where it starts */
		char digits[64];
		size_t n = 0;
		for (; notation_sub_digit(p) >= 0; p += 3)
			if (n < sizeof digits)
				digits[n++] = (char)('0' + notation_sub_digit(p));
		if (out > s && out[-1] >= 'A' && out[-1] <= 'Z') /* 2 bytes for the first 3 */
			*out++ = '_';
		memcpy(out, digits, n);
		out += n;
	}
	*out = '\0';
}
