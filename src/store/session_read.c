/*
 * session_read.c - load a session file (format: doc/SESSION.md) into a
 * configuration and freshly allocated weights. Loading is strict and
 * line-numbered: anything unexpected is refused with "file:line: message",
 * and the file is never written to.
 *
 * It deliberately does not write sessions (session_write.c) nor decide
 * where they live (session_default_path, there too); no terminal here.
 */
#include "session.h"
#include "readfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest line a valid session has: a row of MHA_MAX_WIDTH values of
 * at most 16 bytes each ("-1.23456789e-05 "), with room to spare. A longer
 * line is refused before it is all in memory. */
enum { LINE_MAX_BYTES = MHA_MAX_WIDTH * 24 };

struct reader {
	FILE *f;
	const char *name;
	int line;
	char buf[LINE_MAX_BYTES + 2];
	bool broken; /* a line was too long or held a NUL byte: stop reading */
	bool again;  /* next_line gives the line in buf once more (an optional line was absent) */
	int version; /* of the file: 2 allows binary matrices */
	char *msg;
	size_t len;
};

static int bad(struct reader *rd, const char *fmt, const char *a, int b);

/* Read one raw line into rd->buf without its line end (LF or CRLF) and
 * trailing blanks. Returns false at end of file or when the line is bad
 * (rd->broken set, message written). */
static bool read_raw_line(struct reader *rd)
{
	size_t n = 0;
	int ch;
	while ((ch = getc(rd->f)) != EOF && ch != '\n') {
		if (ch == '\0' || n == LINE_MAX_BYTES) {
			rd->line++;
			rd->broken = true;
			bad(rd, ch == '\0' ? "a NUL byte: this is not a text file%s"
			                   : "line too long (over %s%d bytes): not a session line", "",
			    LINE_MAX_BYTES);
			return false;
		}
		rd->buf[n++] = (char)ch;
	}
	if (ch == EOF && ferror(rd->f)) { /* e.g. /proc/self/mem: opens, then every read fails */
		rd->line++;
		rd->broken = true;
		bad(rd, "cannot read: %s%.0d", strerror(errno), 0);
		return false;
	}
	if (ch == EOF && n == 0)
		return false;
	rd->line++;
	while (n > 0 && (rd->buf[n - 1] == '\r' || rd->buf[n - 1] == ' ' || rd->buf[n - 1] == '\t'))
		n--;
	rd->buf[n] = '\0';
	return true;
}

/* Next line that is neither blank nor a comment. NULL at end of file or
 * after a bad line. */
static char *next_line(struct reader *rd)
{
	if (rd->again) {
		rd->again = false;
		return rd->buf;
	}
	while (!rd->broken && read_raw_line(rd)) {
		char *p = rd->buf;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '\0' && *p != '#')
			return rd->buf;
	}
	return NULL;
}

static int bad(struct reader *rd, const char *fmt, const char *a, int b)
{
	if (rd->broken && rd->msg[0])
		return -1; /* keep the first message: it says why reading stopped */
	char why[MHA_MSG_MAX];
	snprintf(why, sizeof why, fmt, a, b);
	snprintf(rd->msg, rd->len, "%s:%d: %s", rd->name, rd->line > 0 ? rd->line : 1, why);
	return -1;
}

static char *expect_line(struct reader *rd, const char *what)
{
	char *l = next_line(rd);
	if (!l)
		bad(rd, "file ends early: expected %s (the file is truncated)%.0d", what, 0);
	return l;
}

/* "key VALUE" with an integer value in [lo, hi]. */
static int read_int(struct reader *rd, const char *key, long lo, long hi, long *out)
{
	char *l = expect_line(rd, key);
	if (!l)
		return -1;
	size_t kl = strlen(key);
	if (strncmp(l, key, kl) != 0 || l[kl] != ' ')
		return bad(rd, "expected '%s N' here", key, 0);
	char *end;
	errno = 0;
	long v = strtol(l + kl + 1, &end, 10);
	if (end == l + kl + 1 || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
		char why[96];
		snprintf(why, sizeof why, "%s must be a whole number in %ld..%ld", key, lo, hi);
		return bad(rd, "%s", why, 0);
	}
	*out = v;
	return 0;
}

/* "seed S", S in 0..2^64-1. */
static int read_seed(struct reader *rd, uint64_t *out)
{
	char *l = expect_line(rd, "seed");
	if (!l)
		return -1;
	if (strncmp(l, "seed ", 5) != 0)
		return bad(rd, "expected '%s N' here", "seed", 0);
	char *end;
	errno = 0;
	*out = strtoull(l + 5, &end, 10);
	if (l[5] < '0' || l[5] > '9' || *end != '\0' || errno == ERANGE)
		return bad(rd, "seed must be a whole number in 0..%s", "18446744073709551615", 0);
	return 0;
}

/* Lines of the configuration's fields, for a message about a rule across
 * them: the eight fixed ones, then the optional pos, pos_offset,
 * kv_tokens and layers (0: not in the file). */
enum { NFIELDS = 8, NOPTIONAL = 4 };
static const struct { const char *key; long lo, hi; } fields[NFIELDS] = {
	{ "tokens", 1, MHA_MAX_TOKENS }, { "d_model", 1, MHA_MAX_D_MODEL },
	{ "heads", 1, MHA_MAX_HEADS }, { "kv_heads", 1, MHA_MAX_HEADS },
	{ "d_k", 1, MHA_MAX_DK }, { "causal", 0, 1 }, { "top_k", 0, MHA_MAX_TOKENS },
	{ "scale", 0, 1 },
};
static const char *const optional_keys[NOPTIONAL] = { "pos", "pos_offset", "kv_tokens", "layers" };

struct field_lines {
	int line[NFIELDS + NOPTIONAL];
	int pad, hidden; /* the pad and hidden lines, checked once kv_tokens is known */
};

static int read_config(struct reader *rd, struct mha_config *c, struct field_lines *fl)
{
	long v[NFIELDS];
	for (int i = 0; i < NFIELDS; i++) {
		if (read_int(rd, fields[i].key, fields[i].lo, fields[i].hi, &v[i]) != 0)
			return -1;
		fl->line[i] = rd->line;
	}
	*c = mha_config_default();
	c->n = (int)v[0]; c->d = (int)v[1]; c->h = (int)v[2]; c->g = (int)v[3]; c->dk = (int)v[4];
	c->causal = v[5]; c->top_k = (int)v[6]; c->scale = v[7];
	return read_seed(rd, &c->seed);
}

/* The rules across fields (mha_config_check), once every line is read.
 * The core's message starts with the field at fault in flag spelling
 * (kv-heads); point at that field's line and speak of it by its key here
 * (kv_heads). */
static int check_config(struct reader *rd, const struct mha_config *c, const struct field_lines *fl)
{
	char why[MHA_MSG_MAX];
	if (mha_config_check(c, why, sizeof why) == MHA_OK)
		return 0;
	int at = -1;
	size_t at_len = 0;
	for (int i = 0; i < NFIELDS + NOPTIONAL; i++) {
		char flag[32];
		snprintf(flag, sizeof flag, "%s ", i < NFIELDS ? fields[i].key : optional_keys[i - NFIELDS]);
		for (char *p = flag; *p; p++)
			if (*p == '_')
				*p = '-';
		if (fl->line[i] > 0 && strncmp(why, flag, strlen(flag)) == 0 && strlen(flag) > at_len) {
			at = i;
			at_len = strlen(flag);
		}
	}
	if (at >= 0) {
		rd->line = fl->line[at];
		char keyed[MHA_MSG_MAX + 32];
		snprintf(keyed, sizeof keyed, "%s %s", at < NFIELDS ? fields[at].key : optional_keys[at - NFIELDS],
		         why + at_len);
		return bad(rd, "%s", keyed, 0);
	}
	return bad(rd, "%s", why, 0);
}

static int read_heads_off(struct reader *rd, struct mha_config *c)
{
	char *l = expect_line(rd, "heads_off");
	if (!l)
		return -1;
	if (strncmp(l, "heads_off", 9) != 0 || (l[9] != ' ' && l[9] != '\0'))
		return bad(rd, "expected 'heads_off' with the numbers of the heads switched off%s", "", 0);
	for (char *tok = strtok(l + 9, " \t"); tok; tok = strtok(NULL, " \t")) {
		char *end;
		long i = strtol(tok, &end, 10);
		if (*end != '\0' || i < 0 || i >= c->h)
			return bad(rd, "heads_off: '%.20s' is not a head: heads are 0..%d", tok, c->h - 1);
		c->head_off[i] = true;
	}
	return 0;
}

/* Whole numbers in [0, hi) after "key", count of them in *count (at most max). */
static int read_list(struct reader *rd, char *l, const char *key, int hi, int *v, int max, int *count)
{
	*count = 0;
	for (char *tok = strtok(l + strlen(key), " \t"); tok; tok = strtok(NULL, " \t")) {
		char *end;
		long x = strtol(tok, &end, 10);
		if (*end != '\0' || x < 0 || x >= hi || *count == max) {
			char why[96];
			snprintf(why, sizeof why, "%s: '%.20s' is not a token: tokens are 0..%d", key, tok, hi - 1);
			return bad(rd, "%s", why, 0);
		}
		v[(*count)++] = (int)x;
	}
	return 0;
}

/* "key N" with N in [lo, hi]: one whole number after the key. */
static int read_one(struct reader *rd, char *l, const char *key, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(l + strlen(key) + 1, &end, 10);
	if (end == l + strlen(key) + 1 || *end != '\0' || v < lo || v > hi) {
		char why[96];
		snprintf(why, sizeof why, "%s must be one whole number in %d..%d", key, lo, hi);
		return bad(rd, "%s", why, 0);
	}
	*out = (int)v;
	return 0;
}

/* The optional lines, in any order, before the labels: masks, biases,
 * positions, the source's length, the layers. pad and hidden name keys,
 * which kv_tokens (possibly later) decides: their bounds are checked
 * after the last of them (check_keys). */
static int read_masks(struct reader *rd, struct mha_config *c, struct field_lines *fl)
{
	int v[2 * MHA_MAX_TOKENS * MHA_MAX_TOKENS], count, x;
	for (char *l; (l = next_line(rd));) {
		if (strncmp(l, "pad ", 4) == 0) {
			if (read_list(rd, l, "pad", MHA_MAX_TOKENS, v, MHA_MAX_TOKENS, &count) != 0)
				return -1;
			for (int k = 0; k < count; k++)
				c->pad |= (uint64_t)1 << v[k];
			fl->pad = rd->line;
		} else if (strncmp(l, "window ", 7) == 0) {
			if (read_list(rd, l, "window", c->n + 1, v, 1, &count) != 0 || count != 1)
				return bad(rd, "window must be one whole number in 0..%s%d", "", c->n);
			c->window = v[0];
		} else if (strncmp(l, "bias ", 5) == 0) {
			if (read_list(rd, l, "bias", 2, v, 1, &count) != 0 || count != 1)
				return bad(rd, "bias must be 0 or 1%s", "", 0);
			c->bias = v[0];
		} else if (strncmp(l, "hidden ", 7) == 0) {
			if (read_list(rd, l, "hidden", MHA_MAX_TOKENS, v, 2 * MHA_MAX_TOKENS * MHA_MAX_TOKENS,
			              &count) != 0)
				return -1;
			if (count % 2)
				return bad(rd, "hidden: pairs of query and key expected, got %s%d numbers", "", count);
			for (int k = 0; k < count; k += 2)
				mha_mask_set(c, v[k], v[k + 1], true);
			fl->hidden = rd->line;
		} else if (strncmp(l, "pos ", 4) == 0) {
			int p = mha_pos_by_name(l + 4);
			if (p < 0 || p == MHA_POS_NONE) /* none is the line left out */
				return bad(rd, "pos '%.20s' is not a kind of position: learned, sinusoidal or rope "
				           "(leave the line out for none)", l + 4, 0);
			c->pos = (enum mha_pos)p;
			fl->line[NFIELDS] = rd->line;
		} else if (strncmp(l, "pos_offset ", 11) == 0) {
			if (read_one(rd, l, "pos_offset", 0, MHA_MAX_POS_OFFSET, &c->pos_offset) != 0)
				return -1;
			fl->line[NFIELDS + 1] = rd->line;
		} else if (strncmp(l, "kv_tokens ", 10) == 0) {
			if (read_one(rd, l, "kv_tokens", 1, MHA_MAX_KV_TOKENS, &c->m) != 0)
				return -1;
			fl->line[NFIELDS + 2] = rd->line;
		} else if (strncmp(l, "layers ", 7) == 0) {
			if (read_one(rd, l, "layers", 1, MHA_MAX_LAYERS, &x) != 0)
				return -1;
			c->layers = x;
			fl->line[NFIELDS + 3] = rd->line;
		} else {
			rd->again = true;
			return 0;
		}
	}
	return rd->broken ? -1 : 0;
}

/* pad and hidden within the keys (the source's tokens with kv_tokens) and
 * the queries, said as read_list says a number out of range. */
static int check_keys(struct reader *rd, const struct mha_config *c, const struct field_lines *fl)
{
	const int nk = mha_keys(c);
	const char *what = c->m > 0 ? "a source token: the source's tokens" : "a token: tokens";
	char why[160];
	for (int t = nk; t < MHA_MAX_TOKENS; t++)
		if ((c->pad >> t) & 1u) {
			rd->line = fl->pad;
			snprintf(why, sizeof why, "pad: '%d' is not %s are 0..%d", t, what, nk - 1);
			return bad(rd, "%s", why, 0);
		}
	for (int i = 0; i < MHA_MAX_TOKENS; i++) {
		if (!c->hide[i] || (i < c->n && (nk >= 64 || !(c->hide[i] >> nk))))
			continue;
		rd->line = fl->hidden;
		if (i >= c->n)
			snprintf(why, sizeof why, "hidden: '%d' is not a query: tokens are 0..%d", i, c->n - 1);
		else
			snprintf(why, sizeof why, "hidden: a key of query %d is not %s are 0..%d", i, what, nk - 1);
		return bad(rd, "%s", why, 0);
	}
	return 0;
}

/* "labels w1 .. wn" (or "kv_labels" for the source's m): one word per token. */
static int read_labels(struct reader *rd, const char *key, int count, char (*labels)[MHA_LABEL_MAX])
{
	char *l = expect_line(rd, key);
	if (!l)
		return -1;
	size_t kl = strlen(key);
	if (strncmp(l, key, kl) != 0 || l[kl] != ' ')
		return bad(rd, "expected '%s' and one word per token", key, 0);
	int i = 0;
	for (char *tok = strtok(l + kl + 1, " \t"); tok; tok = strtok(NULL, " \t"), i++) {
		if (i >= count)
			return bad(rd, "more labels than the %s%d tokens", "", count);
		if (strlen(tok) >= MHA_LABEL_MAX)
			return bad(rd, "label '%.20s' is too long: at most %d bytes", tok, MHA_LABEL_MAX - 1);
		if (!mha_label_valid(tok))
			return bad(rd, "label %.0s%d is not valid UTF-8 text without control characters", "", i + 1);
		memcpy(labels[i], tok, strlen(tok) + 1);
	}
	if (i != count)
		return bad(rd, "%s%d labels given, one per token expected", "", i);
	return 0;
}

/* n float32 little-endian values right after the matrix's line, then a
 * newline; each finite and within +-MHA_VALUE_MAX, as typed values are. */
static int read_binary(struct reader *rd, const char *key, float *p, size_t n)
{
	if (fread(p, 4, n, rd->f) != n)
		return bad(rd, "%s: the file ends inside the matrix's binary values", key, 0);
	const uint32_t one = 1;
	for (size_t i = 0; i < n; i++) {
		if (*(const unsigned char *)&one != 1) {
			unsigned char b[4];
			memcpy(b, &p[i], 4);
			uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
			memcpy(&p[i], &u, 4);
		}
		if (!isfinite(p[i]) || fabsf(p[i]) > MHA_VALUE_MAX)
			return bad(rd, "%s: a binary value is not a number within +-1e6", key, 0);
	}
	rd->line++;
	if (getc(rd->f) != '\n')
		return bad(rd, "%s: the binary values must end in a newline (the file is cut or changed)", key, 0);
	return 0;
}

static int read_matrix(struct reader *rd, const char *key, float *p, int rows, int cols)
{
	char *l = expect_line(rd, key);
	if (!l)
		return -1;
	char head[64], bin[80];
	snprintf(head, sizeof head, "%s %d %d", key, rows, cols);
	snprintf(bin, sizeof bin, "%s f32le", head);
	if (rd->version >= SESSION_VERSION_BINARY && strcmp(l, bin) == 0)
		return read_binary(rd, key, p, (size_t)rows * (size_t)cols);
	if (strcmp(l, head) != 0) {
		char why[160];
		snprintf(why, sizeof why, "expected '%s' (matrix name and shape from the configuration)", head);
		return bad(rd, "%s", why, 0);
	}
	for (int r = 0; r < rows; r++) {
		l = expect_line(rd, key);
		if (!l)
			return -1;
		int col = 0;
		for (char *tok = strtok(l, " \t"); tok; tok = strtok(NULL, " \t"), col++) {
			if (col >= cols)
				return bad(rd, "%s: row has more than %d values", key, cols);
			char why[MHA_MSG_MAX];
			if (mha_parse_value(tok, &p[(size_t)r * cols + col], why, sizeof why) != MHA_OK)
				return bad(rd, "%s", why, 0);
		}
		if (col != cols)
			return bad(rd, "%s: row has too few values: %d expected", key, cols);
	}
	return 0;
}

/* After layer 0's matrices: X_kv (kv_tokens), P_pos (pos learned), then
 * each later layer as "layer L" and its W's (and biases). */
static int read_added(struct reader *rd, const struct mha_config *c, struct mha_weights *w)
{
	static const enum mha_tensor shared[] = { MHA_T_XKV, MHA_T_POS };
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < sizeof shared / sizeof shared[0]; k++) {
		if (!mha_tensor_used(c, shared[k]))
			continue;
		struct mha_shape s = mha_tensor_shape(c, shared[k]);
		rc = read_matrix(rd, mha_tensor_info(shared[k])->key, mha_tensor_data(w, NULL, shared[k]),
		                 s.rows, s.cols);
	}
	for (int l = 1; rc == 0 && l < c->layers; l++) {
		char head[32];
		snprintf(head, sizeof head, "layer %d", l);
		char *line = expect_line(rd, head);
		if (!line)
			return -1;
		if (strcmp(line, head) != 0)
			return bad(rd, "expected '%s' (the next layer's matrices follow it)", head, 0);
		for (enum mha_tensor t = MHA_T_WQ; rc == 0 && t <= MHA_T_WO; t++) {
			struct mha_shape s = mha_tensor_shape(c, t);
			rc = read_matrix(rd, mha_tensor_info(t)->key, mha_tensor_data_layer(w, NULL, l, t), s.rows,
			                 s.cols);
		}
		for (int k = 0; rc == 0 && c->bias && k < MHA_BIASES; k++) {
			struct mha_bias b = mha_bias_layer(w, c, l, k);
			rc = read_matrix(rd, b.key, b.p, 1, b.len);
		}
	}
	return rc;
}

static int read_session(struct reader *rd, struct mha_config *c, struct mha_weights *w)
{
	char *l = next_line(rd);
	char head[64];
	snprintf(head, sizeof head, "%s %d", SESSION_MAGIC, SESSION_VERSION);
	if (!l && rd->broken)
		return -1; /* said why */
	if (!l)
		return bad(rd, "empty file: not an mha-tui session%s", "", 0);
	if (strncmp(l, "\xef\xbb\xbf", 3) == 0)
		l += 3; /* a UTF-8 byte-order mark, as some editors write: not part of the text */
	if (strncmp(l, SESSION_MAGIC, strlen(SESSION_MAGIC)) != 0)
		return bad(rd, "not an mha-tui session (first line must be '%s')", head, 0);
	if (strchr(l, '\r')) /* the whole file read as its first line */
		return bad(rd, "lines end in CR alone%s: save the file with LF (or CRLF) line ends", "", 0);
	char head2[64];
	snprintf(head2, sizeof head2, "%s %d", SESSION_MAGIC, SESSION_VERSION_BINARY);
	rd->version = strcmp(l, head2) == 0 ? SESSION_VERSION_BINARY : SESSION_VERSION;
	if (strcmp(l, head) != 0 && strcmp(l, head2) != 0)
		return bad(rd, "unsupported session version: this mha-tui reads '%s' and version 2", head, 0);
	struct field_lines fl = { { 0 }, 0, 0 };
	if (read_config(rd, c, &fl) != 0 || read_heads_off(rd, c) != 0 || read_masks(rd, c, &fl) != 0 ||
	    check_config(rd, c, &fl) != 0 || check_keys(rd, c, &fl) != 0)
		return -1;
	if (mha_weights_alloc(w, c) != MHA_OK)
		return bad(rd, "out of memory%s", "", 0);
	int rc = read_labels(rd, "labels", c->n, w->labels);
	if (rc == 0 && c->m > 0)
		rc = read_labels(rd, "kv_labels", c->m, w->kv_labels);
	for (enum mha_tensor t = MHA_T_X; rc == 0 && t <= MHA_T_WO; t++) {
		struct mha_shape s = mha_tensor_shape(c, t);
		rc = read_matrix(rd, mha_tensor_info(t)->key, mha_tensor_data(w, NULL, t), s.rows, s.cols);
	}
	for (int k = 0; rc == 0 && c->bias && k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias(w, c, k);
		rc = read_matrix(rd, b.key, b.p, 1, b.len);
	}
	if (rc == 0)
		rc = read_added(rd, c, w);
	if (rc == 0) {
		l = expect_line(rd, "'end'");
		if (!l)
			rc = -1;
		else if (strcmp(l, "end") != 0)
			rc = bad(rd, "expected 'end' after the last matrix%s", "", 0);
		else if (next_line(rd))
			rc = bad(rd, "unexpected text after 'end'%s", "", 0);
		else if (rd->broken) /* a NUL byte or an endless line after it: said */
			rc = -1;
	}
	if (rc != 0)
		mha_weights_free(w);
	return rc;
}

static int parse_stream(FILE *f, const char *name, int lines_before, struct mha_config *c, struct mha_weights *w,
                        char *msg, size_t len)
{
	struct reader *rd = calloc(1, sizeof *rd); /* ~100 KiB: not on the stack */
	if (!rd) {
		snprintf(msg, len, "%s: out of memory", name);
		return -1;
	}
	*rd = (struct reader){ .f = f, .name = name, .line = lines_before, .msg = msg, .len = len };
	if (len > 0)
		msg[0] = '\0';
	int rc = read_session(rd, c, w);
	free(rd);
	return rc;
}

int session_parse(const char *name, const char *text, size_t size,
                  struct mha_config *c, struct mha_weights *w, char *msg, size_t len)
{
	return session_parse_within(name, 0, text, size, c, w, msg, len);
}

int session_parse_within(const char *name, int lines_before, const char *text, size_t size,
                         struct mha_config *c, struct mha_weights *w, char *msg, size_t len)
{
	if (size == 0) {
		snprintf(msg, len, "%s:%d: empty file: not an mha-tui session", name, lines_before + 1);
		return -1;
	}
	FILE *f = fmemopen((void *)(uintptr_t)text, size, "r");
	if (!f) {
		snprintf(msg, len, "%s: cannot read: %s", name, strerror(errno));
		return -1;
	}
	int rc = parse_stream(f, name, lines_before, c, w, msg, len);
	fclose(f);
	return rc;
}

int session_load(const char *path, struct mha_config *c, struct mha_weights *w,
                 char *msg, size_t len)
{
	char why[256];
	FILE *f = readfile_open(path, why, sizeof why);
	if (!f) {
		if (errno == EISDIR)
			snprintf(msg, len, "%s: is a directory, not a session file", path);
		else if (errno == EINVAL)
			snprintf(msg, len, "%s: is not a regular file (a device or pipe), not a session file", path);
		else
			snprintf(msg, len, "%s: cannot open: %s", path, why);
		return -1;
	}
	int rc = parse_stream(f, path, 0, c, w, msg, len);
	fclose(f);
	return rc;
}
