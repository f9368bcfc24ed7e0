/*
 * wrap.c - lesson text to lines of a given width: paragraphs re-wrapped at
 * word boundaries, indented lines kept verbatim (cut at the width), key
 * placeholders {key:ACTION} replaced by the TUI's key names. Widths are
 * display columns on a UTF-8 terminal (wcwidth under C.UTF-8, whatever the
 * process locale, so that --check-lessons and the tests measure alike: a
 * CJK character or an emoji takes 2, an invalid byte 1, the '?' drawn for
 * it); a character is never split. No terminal here.
 */
#include "pane.h"
#include "lesson_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <locale.h>
#include <string.h>
#include <wchar.h>

const char *const lesson_key_actions[] = {
	"next", "prev", "hint", "solution", "answer", "menu", "leave", "undo", "edit",
	"nudge-up", "nudge-down", "matrix-scale", "heads-more", "heads-less", "causal", "scale",
	"dk-more", "dk-less", "kv-more", "kv-less", "tokens-more", "tokens-less", "topk-more",
	"topk-less", "head-toggle", "stage-next", "save", "quit", "help", "kv-cache", "train", "flash", "masks", "decode",
	"positions", "shift", "shuffle", "layer-next", "layer-prev", "layers-more", "layers-less",
	"source", "model", NULL,
};

/* What a placeholder reads as when the TUI gives no key (the checker, the
 * tests): the keys the product promises never change (n, p, u, Enter, q,
 * ?...) by name, the others as "[action]". */
static const char *fallback(const char *action, char *buf, size_t len)
{
	static const struct { const char *action, *key; } fixed[] = {
		{ "next", "n" }, { "prev", "p" }, { "undo", "u" }, { "edit", "Enter" },
		{ "nudge-up", "+" }, { "nudge-down", "-" }, { "heads-more", "]" },
		{ "heads-less", "[" }, { "causal", "m" }, { "stage-next", "Tab" }, { "save", "w" },
		{ "quit", "q" }, { "help", "?" },
	};
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (!strcmp(fixed[i].action, action))
			return fixed[i].key;
	snprintf(buf, len, "[%s]", action);
	return buf;
}

bool lesson_key_action_known(const char *action)
{
	for (int i = 0; lesson_key_actions[i]; i++)
		if (!strcmp(lesson_key_actions[i], action))
			return true;
	return false;
}

void lesson_text_free(struct lesson_text *t)
{
	for (int i = 0; i < t->count; i++)
		free(t->lines[i].text);
	free(t->lines);
	memset(t, 0, sizeof *t);
}

static int add_line(struct lesson_text *t, enum lesson_line_kind kind, const char *s, size_t n)
{
	if (t->count == t->cap) {
		int cap = t->cap ? t->cap * 2 : 32;
		struct lesson_line *grown = realloc(t->lines, (size_t)cap * sizeof *grown);
		if (!grown)
			return -1;
		t->lines = grown;
		t->cap = cap;
	}
	char *copy = malloc(n + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, n);
	copy[n] = '\0';
	t->lines[t->count++] = (struct lesson_line){ kind, copy };
	return 0;
}

/* The character at s (a non-empty string): its bytes in *len and the
 * display columns it takes. An undecodable byte is one byte, one column
 * (the TUI draws it as '?'); a combining mark 0 columns. */
static int char_cols(const char *s, size_t *len)
{
	static locale_t utf8; /* made once; never freed, like the C locale */
	if (!utf8)
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	locale_t was = utf8 ? uselocale(utf8) : (locale_t)0;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	wchar_t wc;
	size_t n = mbrtowc(&wc, s, strlen(s), &st);
	int w = 1;
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0)
		n = 1;
	else if ((w = wcwidth(wc)) < 0)
		w = 1;
	if (utf8)
		uselocale(was);
	*len = n;
	return w;
}

/* Replace placeholders and tabs: a new malloc'ed string. */
static char *expand(const char *s, lesson_key_fn *keys, const void *ctx)
{
	size_t cap = strlen(s) * 4 + 64, n = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	while (*s) {
		const char *close = !strncmp(s, "{key:", 5) ? strchr(s, '}') : NULL;
		char action[32], buf[40];
		const char *rep = NULL;
		if (close && close - s - 5 < (long)sizeof action) {
			memcpy(action, s + 5, (size_t)(close - s - 5));
			action[close - s - 5] = '\0';
			rep = keys ? keys(action, ctx) : NULL;
			if (!rep)
				rep = fallback(action, buf, sizeof buf);
		} else if (*s == '\t') {
			rep = "    ";
		}
		size_t rl = rep ? strlen(rep) : 1;
		if (n + rl + 1 > cap) {
			cap = (n + rl + 1) * 2;
			char *grown = realloc(out, cap);
			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		if (rep) {
			memcpy(out + n, rep, rl);
			s = *s == '\t' ? s + 1 : close + 1;
		} else {
			out[n] = *s++;
		}
		n += rl;
	}
	out[n] = '\0';
	return out;
}

/* Greedy word wrap of one paragraph (words separated by blanks). */
static int wrap_paragraph(struct lesson_text *out, const char *text, int width,
                          enum lesson_line_kind kind)
{
	char *line = malloc(strlen(text) + 1);
	if (!line)
		return -1;
	size_t ln = 0;
	int lw = 0, rc = 0;
	const char *p = text;
	while (*p && rc == 0) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *w = p;
		int ww = 0;
		while (*p && *p != ' ') {
			size_t cl;
			ww += char_cols(p, &cl);
			p += cl;
		}
		if (lw > 0 && lw + 1 + ww > width) { /* the word goes to the next line */
			rc = add_line(out, kind, line, ln);
			ln = 0;
			lw = 0;
		}
		/* a word longer than the width is cut into width-sized pieces */
		for (const char *q = w; q < p && rc == 0;) {
			size_t cl;
			int cw = char_cols(q, &cl);
			if (lw > 0 && lw + (q == w) + cw > width) {
				rc = add_line(out, kind, line, ln);
				ln = 0;
				lw = 0;
			}
			if (lw > 0 && q == w)
				line[ln++] = ' ', lw++;
			memcpy(line + ln, q, cl);
			ln += cl;
			lw += cw;
			q += cl;
		}
	}
	if (rc == 0 && lw > 0)
		rc = add_line(out, kind, line, ln);
	free(line);
	return rc;
}

size_t lesson_utf8_prefix(const char *s, int cols)
{
	size_t n = 0, cl;
	for (int w = 0; s[n];) {
		int cw = char_cols(s + n, &cl);
		if (w + cw > cols)
			break;
		w += cw;
		n += cl;
	}
	return n;
}

int lesson_utf8_width(const char *s)
{
	int w = 0;
	for (size_t n = 0, cl; s[n]; n += cl)
		w += char_cols(s + n, &cl);
	return w;
}

int lesson_unbreakable_width(const char *word)
{
	int widest = 0, run = 0;
	for (size_t n = 0, cl; word[n]; n += cl) {
		int cw = char_cols(word + n, &cl);
		run = cw >= 2 ? 0 : run + cw; /* a wide (CJK) character: a break on either side */
		widest = cw > widest ? cw : widest;
		widest = run > widest ? run : widest;
	}
	return widest;
}

int lesson_text_add(struct lesson_text *t, enum lesson_line_kind kind, const char *s, int width)
{
	size_t n = width <= 0 ? strlen(s) : lesson_utf8_prefix(s, width);
	while (n && s[n - 1] == ' ')
		n--;
	return add_line(t, kind, s, n);
}

int lesson_wrap(struct lesson_text *out, const char *prose, int width, enum lesson_line_kind kind,
                lesson_key_fn *keys, const void *ctx)
{
	if (width < 1)
		width = 1;
	char *text = expand(prose ? prose : "", keys, ctx);
	if (!text)
		return -1;
	/* paragraphs gather here, one space between the lines they join */
	char *para = malloc(strlen(text) + 2);
	size_t pn = 0;
	int rc = para ? 0 : -1;
	bool blank_pending = false;
	for (char *l = text, *nl; rc == 0 && l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		bool blank = l[strspn(l, " ")] == '\0';
		bool verbatim = !blank && l[0] == ' ';
		if ((blank || verbatim) && pn) { /* the paragraph ends */
			para[pn] = '\0';
			rc = wrap_paragraph(out, para, width, kind);
			pn = 0;
		}
		if (rc != 0)
			break;
		if (blank) {
			blank_pending = out->count > 0;
			continue;
		}
		if (blank_pending) { /* one blank line between blocks, never at the ends */
			rc = add_line(out, LESSON_LINE_BLANK, "", 0);
			blank_pending = false;
		}
		if (verbatim) {
			rc = lesson_text_add(out, LESSON_LINE_VERBATIM, l, width);
			continue;
		}
		if (pn)
			para[pn++] = ' ';
		memcpy(para + pn, l, strlen(l));
		pn += strlen(l);
	}
	if (rc == 0 && pn) {
		para[pn] = '\0';
		rc = wrap_paragraph(out, para, width, kind);
	}
	free(para);
	free(text);
	return rc;
}
