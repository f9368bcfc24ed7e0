/*
 * asset.c - the files lessons draw on: matrices (NAME.mat: rows of numbers),
 * feature tables (NAME.feat: a key, then numbers, per line) and text to
 * include in prose (NAME.txt). All live in one assets directory; a name is
 * a plain file name, never a path, so a lesson cannot read elsewhere.
 * Shapes are not checked here: the parser knows the step's configuration.
 */
#include "lesson_int.h"
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* all the assets and includes of one lesson, together: 3,000 includes of
 * a 1 MB file must not take 3 GB */
enum { LESSON_ASSETS_MAX = 32 << 20 };

static bool name_ok(const char *name)
{
	if (!name[0] || name[0] == '.' || strlen(name) > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

int lesson_asset_read(const char *dir, const char *name, const char *ext, struct lesson_arena *a,
               char **text, size_t *size, char *why, size_t len)
{
	if (!name_ok(name)) {
		snprintf(why, len, "'%.40s' is not an asset name: letters, digits, '-', '_' and '.' only",
		         name);
		return -1;
	}
	if (!dir) {
		snprintf(why, len, "asset %s%s: no assets directory here", name, ext);
		return -1;
	}
	char path[4096], reason[256];
	snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
	char *tmp;
	size_t n;
	if (readfile_all(path, LESSON_FILE_MAX, &tmp, &n, reason, sizeof reason) != 0) {
		snprintf(why, len, "asset %.3000s: %s", path, reason); /* never a FIFO's hang */
		return -1;
	}
	/* what a lesson's assets and includes may take, all together */
	bool over = lesson_arena_size(a) + n > LESSON_ASSETS_MAX;
	char *buf = over || memchr(tmp, '\0', n) ? NULL : lesson_arena_alloc(a, n + 1);
	if (!buf) {
		snprintf(why, len, "asset %.3000s: %s", path,
		         over ? "the lesson's assets and includes pass 32 MB: not read"
		         : memchr(tmp, '\0', n) ? "holds a NUL byte: not text" : "out of memory");
		free(tmp);
		return -1;
	}
	memcpy(buf, tmp, n);
	free(tmp);
	buf[n] = '\0';
	*text = buf;
	*size = n;
	return 0;
}

/* Next line without its newline or CR; NULL at the end. Advances *p. */
static char *next_line(char **p, int *lineno)
{
	if (!**p)
		return NULL;
	char *l = *p, *nl = strchr(l, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = l + strlen(l);
	}
	size_t n = strlen(l);
	if (n && l[n - 1] == '\r')
		l[n - 1] = '\0';
	(*lineno)++;
	return l;
}

static bool blank_or_comment(const char *l)
{
	l = lesson_skip_blanks(l);
	return !*l || *l == '#';
}

/* Numbers of one line into out (at most max); count in *n. */
static int read_numbers(const char *l, float *out, int max, int *n)
{
	*n = 0;
	for (l = lesson_skip_blanks(l); *l; l = lesson_skip_blanks(l)) {
		double v;
		if (lesson_parse_number(l, &l, &v) != 0 || (*l && *l != ' ' && *l != '\t') ||
		    v > MHA_VALUE_MAX || v < -MHA_VALUE_MAX)
			return -1;
		if (*n >= max)
			return -2;
		out[(*n)++] = (float)v;
	}
	return 0;
}

int lesson_asset_matrix(const char *dir, struct lesson_op *op, struct lesson_arena *a,
                      char *why, size_t len)
{
	char *text, *p;
	size_t size;
	if (lesson_asset_read(dir, op->asset, ".mat", a, &text, &size, why, len) != 0)
		return -1;
	/* at most one float per two bytes of text: "0 " */
	int max = (int)(size / 2 + 1), rows = 0, cols = -1, lineno = 0;
	float *data = lesson_arena_alloc(a, (size_t)max * sizeof(float));
	if (!data) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	p = text;
	int used = 0;
	for (char *l; (l = next_line(&p, &lineno));) {
		if (blank_or_comment(l))
			continue;
		int n;
		if (read_numbers(l, data + used, max - used, &n) != 0) {
			snprintf(why, len, "%s.mat:%d: not a row of numbers within +-1e6", op->asset, lineno);
			return -1;
		}
		if (cols >= 0 && n != cols) {
			snprintf(why, len, "%s.mat:%d: %d numbers where the rows above have %d", op->asset,
			         lineno, n, cols);
			return -1;
		}
		cols = n;
		used += n;
		rows++;
	}
	if (rows == 0) {
		snprintf(why, len, "%s.mat: holds no rows", op->asset);
		return -1;
	}
	op->data = data;
	op->rows = rows;
	op->cols = cols;
	return 0;
}

/* A .feat table: "KEY v1 v2 ... vW" per line, every line W numbers. */
static int load_features(const char *dir, const char *name, struct lesson_arena *a,
                         struct lesson_feature **out, int *count, int *width,
                         char *why, size_t len)
{
	char *text, *p;
	size_t size;
	if (lesson_asset_read(dir, name, ".feat", a, &text, &size, why, len) != 0)
		return -1;
	int cap = 0, lineno = 0;
	*count = 0;
	*width = -1;
	*out = NULL;
	float tmp[MHA_MAX_D_MODEL];
	p = text;
	for (char *l; (l = next_line(&p, &lineno));) {
		if (blank_or_comment(l))
			continue;
		char key[MHA_LABEL_MAX + 8];
		const char *rest = lesson_skip_blanks(l);
		size_t kl = strcspn(rest, " \t");
		int n;
		if (kl >= MHA_LABEL_MAX || read_numbers(rest + kl, tmp, MHA_MAX_D_MODEL, &n) != 0 || n == 0) {
			snprintf(why, len, "%s.feat:%d: expected a key (at most %d bytes) and numbers", name,
			         lineno, MHA_LABEL_MAX - 1);
			return -1;
		}
		if (*width >= 0 && n != *width) {
			snprintf(why, len, "%s.feat:%d: %d numbers where the rows above have %d", name,
			         lineno, n, *width);
			return -1;
		}
		*width = n;
		memcpy(key, rest, kl);
		key[kl] = '\0';
		struct lesson_feature *f = lesson_arena_push(a, (void **)out, count, &cap, sizeof *f);
		float *v = lesson_arena_alloc(a, (size_t)n * sizeof(float));
		if (!f || !v || !(f->key = lesson_arena_strdup(a, key))) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		memcpy(v, tmp, (size_t)n * sizeof(float));
		f->v = v;
	}
	if (*count == 0) {
		snprintf(why, len, "%s.feat: holds no rows", name);
		return -1;
	}
	return 0;
}

int lesson_asset_embed(const char *dir, struct lesson_op *op, struct lesson_arena *a,
                     char *why, size_t len)
{
	int wt, wp;
	if (load_features(dir, op->asset, a, &op->tokens, &op->ntokens, &wt, why, len) != 0 ||
	    load_features(dir, op->asset2, a, &op->positions, &op->npositions, &wp, why, len) != 0)
		return -1;
	if (wt != wp) {
		snprintf(why, len, "token features are %d wide but position features %d: they are added",
		         wt, wp);
		return -1;
	}
	op->cols = wt;
	return 0;
}
