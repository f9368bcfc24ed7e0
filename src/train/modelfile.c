/*
 * modelfile.c - trained models as text files (doc/TRAINING.md, "Model
 * files"), version 1:
 *
 *     mha-tui model 1
 *     task induction
 *     shape layers 2 d_model 32 heads 2 d_k 16 vocab 32 classes 32 tokens 32
 *     heads_off 1 1 0          count, then layer head pairs
 *     tensor E 32 32           name rows cols, then rows lines of cols numbers
 *     ...                      E, P, then per layer l: W_Q.l W_K.l W_V.l W_O.l, then U
 *     end
 *
 * Floats as %.9g (exact for float32). Saving is the one write path's
 * (writefile_write: atomic, through symlinks, never over a file that is
 * not a model). Loading (a regular file only: readfile_open; or text in
 * memory, as the fuzzer gives it) refuses anything else with
 * "file:line: message". This file does not train or evaluate.
 */
#include "model.h"
#include "readfile.h"
#include "writefile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tensor_ref {
	char name[16];
	float *p;
	int rows, cols;
};

/* The model's tensors in file order; returns how many. */
static int tensors(const struct train_model *m, struct tensor_ref *t)
{
	const struct train_shape *s = &m->s;
	int k = 0, hw = s->h * s->dk;
	t[k++] = (struct tensor_ref){ "E", m->emb, s->vocab, s->d };
	t[k++] = (struct tensor_ref){ "P", m->pos, s->n, s->d };
	for (int l = 0; l < s->layers; l++) {
		float *w[4] = { m->wq[l], m->wk[l], m->wv[l], m->wo[l] };
		static const char *nm[4] = { "W_Q", "W_K", "W_V", "W_O" };
		for (int j = 0; j < 4; j++) {
			t[k] = (struct tensor_ref){ "", w[j], j == 3 ? hw : s->d, j == 3 ? s->d : hw };
			snprintf(t[k].name, sizeof t[k].name, "%s.%d", nm[j], l);
			k++;
		}
	}
	t[k++] = (struct tensor_ref){ "U", m->unemb, s->d, s->classes };
	return k;
}

void train_heads_off_write(FILE *f, const struct train_model *m)
{
	int off = 0;
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++)
			off += m->head_off[l][i];
	fprintf(f, "heads_off %d", off);
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++)
			if (m->head_off[l][i])
				fprintf(f, " %d %d", l, i);
	fputc('\n', f);
}

struct model_ref {
	const struct train_model *m;
	const struct train_task *task;
};

static int write_model(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct model_ref *ref = ctx;
	const struct train_model *m = ref->m;
	(void)why;
	(void)len;
	const struct train_shape *s = &m->s;
	fprintf(f, "mha-tui model 1\ntask %s\nshape layers %d d_model %d heads %d d_k %d vocab %d "
	        "classes %d tokens %d\n", ref->task->name, s->layers, s->d, s->h, s->dk, s->vocab,
	        s->classes, s->n);
	train_heads_off_write(f, m);
	struct tensor_ref t[2 + 4 * TRAIN_MAX_LAYERS + 1];
	int nt = tensors(m, t);
	for (int k = 0; k < nt; k++) {
		fprintf(f, "tensor %s %d %d\n", t[k].name, t[k].rows, t[k].cols);
		for (int r = 0; r < t[k].rows; r++)
			for (int c = 0; c < t[k].cols; c++)
				fprintf(f, "%.9g%c", (double)t[k].p[(size_t)r * t[k].cols + c],
				        c + 1 < t[k].cols ? ' ' : '\n');
	}
	fputs("end\n", f);
	return 0;
}

int train_model_save(const struct train_model *m, const struct train_task *task,
                     const char *path, char *msg, size_t len)
{
	struct model_ref ref = { m, task };
	return writefile_write(path, WRITEFILE_MODEL, write_model, &ref, NULL, msg, len);
}

struct reader {
	FILE *f;
	const char *path;
	int line;
	char *msg;
	size_t len;
	bool broken; /* a line could not be read (said): the next message is not put over it */
};

static int bad(struct reader *r, const char *what)
{
	if (r->broken)
		return -1;
	snprintf(r->msg, r->len, "%.200s:%d: %s", r->path, r->line > 0 ? r->line : 1, what);
	return -1;
}

/* One line into buf, without its newline; -1 at the end of the file, or
 * for a line that cannot be one of a model file (a NUL byte, longer than
 * buf, a read error: said, and the reader stops). */
static int next_line(struct reader *r, char *buf, size_t cap)
{
	size_t n = 0;
	int ch;
	if (r->broken)
		return -1;
	while ((ch = getc(r->f)) != EOF && ch != '\n') {
		if (ch == '\0' || n + 1 == cap) {
			r->line++;
			bad(r, ch == '\0' ? "a NUL byte: not a text file" : "line too long: not a model file line");
			r->broken = true;
			return -1;
		}
		buf[n++] = (char)ch;
	}
	if (ch == EOF && ferror(r->f)) {
		char why[160];
		snprintf(why, sizeof why, "cannot read: %s", strerror(errno));
		r->line++;
		bad(r, why);
		r->broken = true;
		return -1;
	}
	if (ch == EOF && n == 0)
		return -1;
	r->line++;
	buf[n] = '\0';
	return 0;
}

static int read_tensor(struct reader *r, const struct tensor_ref *t)
{
	char line[65536], name[32];
	int rows, cols, used = 0;
	if (next_line(r, line, sizeof line) != 0)
		return bad(r, "the file ends before its tensors");
	if (sscanf(line, "tensor %31s %d %d %n", name, &rows, &cols, &used) != 3 || line[used])
		return bad(r, "expected 'tensor NAME ROWS COLS'");
	if (strcmp(name, t->name) != 0 || rows != t->rows || cols != t->cols) {
		char m[160];
		snprintf(m, sizeof m, "expected tensor %s %d %d (the shape line says so)", t->name,
		         t->rows, t->cols);
		return bad(r, m);
	}
	for (int row = 0; row < rows; row++) {
		if (next_line(r, line, sizeof line) != 0)
			return bad(r, "the file ends inside a tensor");
		char *p = line;
		for (int c = 0; c < cols; c++) {
			char *end;
			errno = 0;
			double v = strtod(p, &end);
			if (end == p || errno == ERANGE || !isfinite(v) || fabs(v) > MHA_VALUE_MAX)
				return bad(r, "expected a finite number within +-1e6");
			t->p[(size_t)row * cols + c] = (float)v;
			p = end;
		}
		while (*p == ' ')
			p++;
		if (*p)
			return bad(r, "too many numbers in this row");
	}
	return 0;
}

/* Read the model from f (name in messages): the body of train_model_parse. */
static int parse_model(FILE *f, const char *name_, struct train_model *m, const struct train_task **task,
                       char *msg, size_t len)
{
	struct reader r = { .f = f, .path = name_, .msg = msg, .len = len };
	char line[4096], name[64];
	int rc = -1, used = 0, version = 0;
	struct train_shape s = { 0 };
	if (next_line(&r, line, sizeof line) != 0 || sscanf(line, "mha-tui model %d %n", &version, &used) != 1
	    || line[used]) {
		bad(&r, "not an mha-tui model file (first line 'mha-tui model 1')");
		goto out;
	}
	if (version != 1) {
		bad(&r, "model file version not supported: this mha-tui reads version 1");
		goto out;
	}
	if (next_line(&r, line, sizeof line) != 0 || sscanf(line, "task %63s %n", name, &used) != 1
	    || line[used] || !(*task = train_task_find(name))) {
		bad(&r, "expected 'task NAME': previous, first, duplicate, multi or induction");
		goto out;
	}
	if (next_line(&r, line, sizeof line) != 0 ||
	    sscanf(line, "shape layers %d d_model %d heads %d d_k %d vocab %d classes %d tokens %d %n",
	           &s.layers, &s.d, &s.h, &s.dk, &s.vocab, &s.classes, &s.n, &used) != 7 || line[used]) {
		bad(&r, "expected 'shape layers L d_model D heads H d_k K vocab V classes C tokens N'");
		goto out;
	}
	char why[MHA_MSG_MAX];
	if (train_shape_check(&s, why, sizeof why) != MHA_OK) {
		bad(&r, why);
		goto out;
	}
	if (train_model_alloc(m, &s) != MHA_OK) {
		bad(&r, "out of memory");
		goto out;
	}
	int off = 0, pos = 0;
	if (next_line(&r, line, sizeof line) != 0 || sscanf(line, "heads_off %d %n", &off, &pos) != 1
	    || off < 0 || off > s.layers * s.h) {
		bad(&r, "expected 'heads_off COUNT' and COUNT 'layer head' pairs");
		goto out;
	}
	for (int k = 0; k < off; k++) {
		int l, i;
		if (sscanf(line + pos, "%d %d %n", &l, &i, &used) != 2 || l < 0 || l >= s.layers || i < 0 || i >= s.h) {
			bad(&r, "heads_off: a pair is not 'layer head' within the shape");
			goto out;
		}
		m->head_off[l][i] = true;
		pos += used;
	}
	if (line[pos]) {
		bad(&r, "heads_off: more numbers than its count");
		goto out;
	}
	struct tensor_ref t[2 + 4 * TRAIN_MAX_LAYERS + 1];
	int nt = tensors(m, t);
	for (int k = 0; k < nt; k++)
		if (read_tensor(&r, &t[k]) != 0)
			goto out;
	if (next_line(&r, line, sizeof line) != 0 || strcmp(line, "end") != 0) {
		bad(&r, "expected 'end'");
		goto out;
	}
	if (next_line(&r, line, sizeof line) == 0) {
		bad(&r, "text after 'end'");
		goto out;
	}
	rc = 0;
out:
	if (rc)
		train_model_free(m);
	return rc;
}

int train_model_parse(const char *name, const char *text, size_t size, struct train_model *m,
                      const struct train_task **task, char *msg, size_t len)
{
	memset(m, 0, sizeof *m);
	if (size == 0) {
		snprintf(msg, len, "%.200s:1: empty file: not an mha-tui model file", name);
		return -1;
	}
	FILE *f = fmemopen((void *)(uintptr_t)text, size, "r");
	if (!f) {
		snprintf(msg, len, "%.200s: cannot read: %s", name, strerror(errno));
		return -1;
	}
	int rc = parse_model(f, name, m, task, msg, len);
	fclose(f);
	return rc;
}

int train_model_load(struct train_model *m, const struct train_task **task,
                     const char *path, char *msg, size_t len)
{
	char why[256];
	memset(m, 0, sizeof *m);
	FILE *f = readfile_open(path, why, sizeof why); /* a regular file: a FIFO cannot hang it */
	if (!f) {
		snprintf(msg, len, "%.200s: cannot open: %s", path, why);
		return -1;
	}
	int rc = parse_model(f, path, m, task, msg, len);
	fclose(f);
	return rc;
}
