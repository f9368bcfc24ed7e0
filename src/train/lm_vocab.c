/*
 * lm_vocab.c - the language model's word-level tokenizer: splitting text
 * into tokens, fitting the vocabulary to the training documents, looking
 * tokens up, encoding and decoding, the vocabulary file, and the token
 * streams of the two splits. The rules are in lm.h (lm_split_text,
 * lm_decode) and doc/LANGUAGE_MODEL.md. No model here.
 */
#include "lm.h"
#include "readfile.h"
#include "writefile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const specials[LM_SPECIALS] = { "<unk>", "<doc>" };

static bool is_word_byte(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch >= 0x80;
}

static bool is_letter(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static bool is_blank(unsigned char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static unsigned char lower(unsigned char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch - 'A' + 'a') : ch;
}

int lm_split_text(const char *text, struct lm_piece *pieces, int max)
{
	const unsigned char *s = (const unsigned char *)text;
	int count = 0, i = 0, prev_end = -1;
	bool prev_word = false; /* the piece before was a word or <unk> */
	while (s[i]) {
		if (is_blank(s[i])) {
			i++;
			continue;
		}
		int start = i;
		bool word = false;
		if (is_word_byte(s[i])) {
			while (is_word_byte(s[i]))
				i++;
			word = true;
		} else if (s[i] == '\'' && prev_word && prev_end == i && is_letter(s[i + 1])) {
			/* a contraction right after a word: 's 't 're 'll ... */
			i++;
			while (is_letter(s[i]))
				i++;
		} else if (s[i] == '<' && (!strncmp((const char *)s + i, "<unk>", 5) ||
		                           !strncmp((const char *)s + i, "<doc>", 5))) {
			word = s[i + 1] == 'u';
			i += 5;
		} else {
			i++;
		}
		if (count < max)
			pieces[count] = (struct lm_piece){ start, i - start };
		count++;
		prev_word = word;
		prev_end = i;
	}
	return count;
}

/* ---- a table of short strings (tokens of at most LM_WORD_MAX bytes) ---- */

static uint32_t hash_bytes(const char *p, int n)
{
	return (uint32_t)lm_fnv(LM_FNV_START, p, (size_t)n);
}

/* The lower-cased token of n bytes at p into out (NUL-terminated); false
 * when longer than LM_WORD_MAX. */
static bool token_key(const char *p, int n, char *out)
{
	if (n > LM_WORD_MAX)
		return false;
	for (int i = 0; i < n; i++)
		out[i] = (char)lower((unsigned char)p[i]);
	out[n] = '\0';
	return true;
}

int lm_vocab_id(const struct lm_vocab *v, const char *tok, int len)
{
	char key[LM_WORD_MAX + 1];
	if (!v->cap || !token_key(tok, len, key))
		return LM_UNK;
	int n = (int)strlen(key);
	for (uint32_t h = hash_bytes(key, n) & (uint32_t)(v->cap - 1);; h = (h + 1) & (uint32_t)(v->cap - 1)) {
		int id = v->slot[h];
		if (id < 0)
			return LM_UNK;
		if (!strcmp(v->word[id], key))
			return id;
	}
}

void lm_vocab_free(struct lm_vocab *v)
{
	free(v->word);
	free(v->slot);
	memset(v, 0, sizeof *v);
}

/* The id table over v->word[0 .. size-1]; false when out of memory. */
static bool vocab_index(struct lm_vocab *v)
{
	v->cap = 1;
	while (v->cap < 2 * v->size)
		v->cap *= 2;
	v->slot = malloc((size_t)v->cap * sizeof *v->slot);
	if (!v->slot)
		return false;
	for (int i = 0; i < v->cap; i++)
		v->slot[i] = -1;
	for (int id = 0; id < v->size; id++) {
		uint32_t h = hash_bytes(v->word[id], (int)strlen(v->word[id])) & (uint32_t)(v->cap - 1);
		while (v->slot[h] >= 0)
			h = (h + 1) & (uint32_t)(v->cap - 1);
		v->slot[h] = id;
	}
	return true;
}

/* ---- fitting ---- */

struct count_entry {
	char word[LM_WORD_MAX + 1];
	long count;
};

struct counter {
	struct count_entry *e;
	int cap, used;
};

static bool counter_grow(struct counter *c)
{
	struct counter g = { calloc((size_t)c->cap * 2, sizeof *g.e), c->cap * 2, 0 };
	if (!g.e)
		return false;
	for (int i = 0; i < c->cap; i++) {
		if (!c->e[i].count)
			continue;
		uint32_t h = hash_bytes(c->e[i].word, (int)strlen(c->e[i].word)) & (uint32_t)(g.cap - 1);
		while (g.e[h].count)
			h = (h + 1) & (uint32_t)(g.cap - 1);
		g.e[h] = c->e[i];
		g.used++;
	}
	free(c->e);
	*c = g;
	return true;
}

static bool counter_add(struct counter *c, const char *key)
{
	if (2 * (c->used + 1) > c->cap && !counter_grow(c))
		return false;
	uint32_t h = hash_bytes(key, (int)strlen(key)) & (uint32_t)(c->cap - 1);
	while (c->e[h].count && strcmp(c->e[h].word, key))
		h = (h + 1) & (uint32_t)(c->cap - 1);
	if (!c->e[h].count) {
		memcpy(c->e[h].word, key, sizeof c->e[h].word);
		c->used++;
	}
	c->e[h].count++;
	return true;
}

/* most frequent first; ties in byte order */
static int by_count(const void *a, const void *b)
{
	const struct count_entry *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->word, y->word);
}

static bool is_special(const char *w)
{
	for (int i = 0; i < LM_SPECIALS; i++)
		if (!strcmp(w, specials[i]))
			return true;
	return false;
}

int lm_vocab_fit(struct lm_vocab *v, const struct lm_corpus *c, int size, char *msg, size_t len)
{
	memset(v, 0, sizeof *v);
	if (size < LM_SPECIALS + 1 || size > LM_MAX_VOCAB) {
		snprintf(msg, len, "vocabulary size %d is out of range: allowed %d..%d", size, LM_SPECIALS + 1,
		         LM_MAX_VOCAB);
		return -1;
	}
	struct counter ct = { calloc(1024, sizeof *ct.e), 1024, 0 };
	enum { PIECES = 4096 };
	struct lm_piece *pc = malloc(PIECES * sizeof *pc);
	bool ok = ct.e && pc;
	for (int k = 0; ok && k < c->ndocs; k++) {
		if (lm_doc_split(k) != LM_SPLIT_TRAIN)
			continue;
		int np = lm_split_text(c->doc[k], pc, PIECES);
		for (int i = 0; ok && i < np && i < PIECES; i++) {
			char key[LM_WORD_MAX + 1];
			if (token_key(c->doc[k] + pc[i].start, pc[i].len, key) && !is_special(key))
				ok = counter_add(&ct, key);
		}
	}
	free(pc);
	if (ok) {
		/* gather the used entries, then sort */
		int u = 0;
		for (int i = 0; i < ct.cap; i++)
			if (ct.e[i].count)
				ct.e[u++] = ct.e[i];
		qsort(ct.e, (size_t)u, sizeof *ct.e, by_count);
		v->size = LM_SPECIALS + (u < size - LM_SPECIALS ? u : size - LM_SPECIALS);
		v->word = calloc((size_t)v->size, sizeof *v->word);
		ok = v->word != NULL;
		for (int i = 0; ok && i < v->size; i++)
			snprintf(v->word[i], sizeof v->word[i], "%s",
			         i < LM_SPECIALS ? specials[i] : ct.e[i - LM_SPECIALS].word);
		ok = ok && vocab_index(v);
	}
	free(ct.e);
	if (!ok) {
		lm_vocab_free(v);
		snprintf(msg, len, "vocabulary: out of memory");
		return -1;
	}
	return 0;
}

/* ---- the file ---- */

static int write_vocab(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct lm_vocab *v = ctx;
	(void)why;
	(void)len;
	fprintf(f, "mha-tui vocab 1\nsize %d\n", v->size);
	for (int i = 0; i < v->size; i++)
		fprintf(f, "%s\n", v->word[i]);
	return 0;
}

int lm_vocab_save(const struct lm_vocab *v, const char *path, char *msg, size_t len)
{
	return writefile_write(path, WRITEFILE_VOCAB, write_vocab, v, NULL, msg, len);
}

/* Does the token of n bytes at w come out of lm_split_text whole? A
 * contraction ('s) does so after a word: "a's" splits into a and 's. */
static bool one_token(const char *w, size_t n)
{
	char buf[LM_WORD_MAX + 2];
	struct lm_piece pc[3];
	snprintf(buf, sizeof buf, "a%s", w);
	int k = lm_split_text(w[0] == '\'' ? buf : w, pc, 3), at = w[0] == '\'' ? 1 : 0;
	return k == 1 + at && pc[at].start == at && (size_t)pc[at].len == n;
}

int lm_vocab_load(struct lm_vocab *v, const char *path, char *msg, size_t len)
{
	memset(v, 0, sizeof *v);
	char *text, why[256];
	size_t size;
	if (readfile_all(path, (size_t)LM_MAX_VOCAB * (LM_WORD_MAX + 2) + 64, &text, &size, why, sizeof why) != 0) {
		snprintf(msg, len, "%.300s: %.200s", path, why);
		return -1;
	}
	int rc = lm_vocab_parse(path, text, size, v, msg, len);
	free(text);
	return rc;
}

int lm_vocab_parse(const char *path, char *text, size_t size, struct lm_vocab *v, char *msg, size_t len)
{
	memset(v, 0, sizeof *v);
	int line = 1, count = 0, used = 0;
	const char *what = NULL;
	char *p = text;
	const char *nul = memchr(text, '\0', size);
	uint64_t fingerprint = lm_fnv(LM_FNV_START, text, size);
	if (nul) {
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		what = "a NUL byte: not a text file";
		goto out;
	}
	if (strncmp(p, "mha-tui vocab 1\n", 16) != 0) {
		what = strncmp(p, "mha-tui vocab ", 14) ? "not an mha-tui vocabulary (first line 'mha-tui vocab 1')"
		                                         : "vocabulary version not supported: this mha-tui reads version 1";
		goto out;
	}
	p += 16;
	line++;
	if (sscanf(p, "size %d%n", &count, &used) != 1 || p[used] != '\n' || count < LM_SPECIALS + 1 ||
	    count > LM_MAX_VOCAB) {
		what = "expected 'size V' with V in 3..16384";
		goto out;
	}
	p += used + 1;
	v->word = calloc((size_t)count, sizeof *v->word);
	if (!v->word) {
		what = "out of memory";
		goto out;
	}
	for (v->size = 0; v->size < count; v->size++) {
		line++;
		char *nl = strchr(p, '\n');
		if (!nl) {
			what = "the file ends before its last token (each token ends with a newline)";
			goto out;
		}
		size_t n = (size_t)(nl - p);
		*nl = '\0';
		/* a token splits into itself alone (a contraction after a word), so
		 * what is read is what encoding finds */
		if (n == 0 || n > LM_WORD_MAX || !one_token(p, n)) {
			what = "not a token: 1 to 15 bytes that the tokenizer keeps as one token";
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (lower((unsigned char)p[i]) != (unsigned char)p[i]) {
				what = "a token with an upper-case letter (tokens are lower-cased)";
				goto out;
			}
		if (v->size < LM_SPECIALS ? strcmp(p, specials[v->size]) != 0 : is_special(p)) {
			what = "tokens 0 and 1 are <unk> and <doc>, and only they";
			goto out;
		}
		memcpy(v->word[v->size], p, n + 1);
		p = nl + 1;
	}
	if (*p) {
		line++;
		what = "text after the last token";
		goto out;
	}
	if (!vocab_index(v)) {
		what = "out of memory";
		goto out;
	}
	for (int id = 0; id < v->size; id++)
		if (lm_vocab_id(v, v->word[id], (int)strlen(v->word[id])) != id) {
			line = id + 3;
			what = "a token listed twice";
			goto out;
		}
	v->fingerprint = fingerprint;
out:
	if (what) {
		snprintf(msg, len, "%.300s:%d: %s", path, line, what);
		lm_vocab_free(v);
		return -1;
	}
	return 0;
}

/* ---- encoding and decoding ---- */

int lm_encode(const struct lm_vocab *v, const char *text, int *ids, struct lm_piece *pieces, int max)
{
	int total = lm_split_text(text, NULL, 0);
	struct lm_piece *pc = pieces ? pieces : malloc((size_t)(total ? total : 1) * sizeof *pc);
	if (!pc)
		return -1;
	int n = lm_split_text(text, pc, pieces ? max : total);
	if (n > max)
		n = max;
	for (int i = 0; i < n; i++)
		ids[i] = lm_vocab_id(v, text + pc[i].start, pc[i].len);
	if (!pieces)
		free(pc);
	return n;
}

static bool glued_before(const char *w)
{
	return (w[0] && strchr(",.;:)!?", w[0]) && !w[1]) || !strcmp(w, "-");
}

size_t lm_decode(const struct lm_vocab *v, const int *ids, int n, char *out, size_t cap)
{
	size_t at = 0;
	bool open_quote = false, glue_next = false;
	const char *prev = "";
	for (int i = 0; i < n; i++) {
		const char *w = ids[i] >= 0 && ids[i] < v->size ? v->word[ids[i]] : specials[LM_UNK];
		bool quote = !strcmp(w, "\""), doc = ids[i] == LM_DOC;
		/* after a word or <unk>, as lm_split_text reads one */
		bool contraction = w[0] == '\'' && is_letter((unsigned char)w[1]) &&
		                   (is_word_byte((unsigned char)prev[0]) || !strcmp(prev, specials[LM_UNK]));
		bool glue = i == 0 || glue_next || glued_before(w) || contraction || (quote && open_quote);
		if (quote)
			open_quote = !open_quote;
		const char *sep = glue ? "" : " ";
		if (doc && i > 0)
			sep = "\n"; /* a document starts a line */
		int k = snprintf(at < cap ? out + at : NULL, at < cap ? cap - at : 0, "%s%s", sep, w);
		at += (size_t)k;
		glue_next = !strcmp(w, "(") || !strcmp(w, "-") || (quote && open_quote);
		prev = w;
	}
	if (cap && at >= cap)
		out[cap - 1] = '\0';
	else if (cap)
		out[at] = '\0';
	return at;
}

/* ---- streams ---- */

void lm_stream_free(struct lm_stream *s)
{
	free(s->ids);
	memset(s, 0, sizeof *s);
}

int lm_stream_encode(struct lm_stream *s, const struct lm_vocab *v, const struct lm_corpus *c,
                     enum lm_split split, char *msg, size_t len)
{
	memset(s, 0, sizeof *s);
	long total = 0;
	for (int k = 0; k < c->ndocs; k++)
		if (lm_doc_split(k) == split)
			total += 1 + lm_split_text(c->doc[k], NULL, 0);
	s->ids = malloc((size_t)(total ? total : 1) * sizeof *s->ids);
	if (!s->ids) {
		snprintf(msg, len, "corpus: out of memory for %ld tokens", total);
		return -1;
	}
	for (int k = 0; k < c->ndocs; k++) {
		if (lm_doc_split(k) != split)
			continue;
		s->ids[s->len++] = LM_DOC;
		int got = lm_encode(v, c->doc[k], s->ids + s->len, NULL, (int)(total - s->len));
		if (got < 0) {
			snprintf(msg, len, "corpus: out of memory");
			lm_stream_free(s);
			return -1;
		}
		s->len += got;
		s->docs++;
	}
	for (long i = 0; i < s->len; i++)
		s->unknown += s->ids[i] == LM_UNK;
	return 0;
}
