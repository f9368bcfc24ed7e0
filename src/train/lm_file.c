/*
 * lm_file.c - the language model's file (version 2 of mha-tui's model
 * files, doc/LANGUAGE_MODEL.md): a text header that says what the model
 * is, what it was trained on and how, then every parameter as
 * little-endian float32 in train.h's order, then "end". Its vocabulary is
 * a file of its own beside it, named and fingerprinted in the header.
 * Saving is the one write path's (writefile_write: atomic, through
 * symlinks, never over a file that is not a model); loading refuses
 * anything else with file:line. Also
 * where the shipped model is found. This file does not train or evaluate.
 *
 *     mha-tui model 2
 *     task lm
 *     shape layers 2 d_model 64 heads 4 d_k 16 vocab 8192 classes 8192 tokens 64
 *     positions learned
 *     vocab lm.vocab fnv1a64 0123456789abcdef
 *     corpus wordnet-3.0-glosses train fnv1a64 ... heldout fnv1a64 ...
 *     trained seed 1 steps 3000 batch 32 lr 0.003 seconds 612.3
 *     heldout_loss 4.61234567
 *     heads_off 0
 *     tensors E P W_Q.0 W_K.0 W_V.0 W_O.0 W_Q.1 W_K.1 W_V.1 W_O.1 U
 *     data float32le 1090000
 *     <4 x 1090000 bytes>end
 */
#include "config.h"
#include "datadir.h"
#include "lm.h"
#include "model.h"
#include "readfile.h"
#include "writefile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MODEL_MAX_BYTES = 256 << 20 };

/* The tensors' names in file order, as one line. */
static void tensor_names(const struct train_shape *s, char *out, size_t len)
{
	size_t at = (size_t)snprintf(out, len, "E P");
	for (int l = 0; l < s->layers && at < len; l++)
		at += (size_t)snprintf(out + at, len - at, " W_Q.%d W_K.%d W_V.%d W_O.%d", l, l, l, l);
	if (at < len)
		snprintf(out + at, len - at, " U");
}

/* dir of path, with its slash ("" when path has none) */
static void dir_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	snprintf(out, len, "%.*s", slash ? (int)(slash - path + 1) : 0, path);
}

struct saving {
	const struct train_model *m;
	const struct lm_meta *meta;
};

static int write_model(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct saving *sv = ctx;
	(void)why;
	(void)len;
	const struct train_model *m = sv->m;
	const struct lm_meta *meta = sv->meta;
	const struct train_shape *s = &m->s;
	char names[512];
	tensor_names(s, names, sizeof names);
	fprintf(f, "mha-tui model 2\ntask lm\nshape layers %d d_model %d heads %d d_k %d vocab %d "
	        "classes %d tokens %d\npositions learned\nvocab %s fnv1a64 %016" PRIx64 "\n"
	        "corpus wordnet-3.0-glosses train fnv1a64 %016" PRIx64 " heldout fnv1a64 %016" PRIx64 "\n"
	        "trained seed %" PRIu64 " steps %ld batch %d lr %.9g seconds %.1f\nheldout_loss %.9g\n",
	        s->layers, s->d, s->h, s->dk, s->vocab, s->classes, s->n, meta->vocab_file,
	        meta->vocab_fingerprint, meta->corpus_fingerprint[0], meta->corpus_fingerprint[1], meta->seed,
	        meta->steps, meta->batch, (double)meta->lr, meta->seconds, meta->heldout_loss);
	train_heads_off_write(f, m);
	fprintf(f, "tensors %s\ndata float32le %zu\n", names, m->nparams);
	// little-endian bytes whatever the machine's order
	for (size_t e = 0; e < m->nparams; e++) {
		uint32_t u;
		memcpy(&u, &m->params[e], 4);
		unsigned char b[4] = { (unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
		                       (unsigned char)(u >> 24) };
		fwrite(b, 1, 4, f);
	}
	fputs("end\n", f);
	return 0;
}

int lm_model_save(const struct train_model *m, const struct lm_meta *meta, const char *path,
                  char *msg, size_t len)
{
	struct saving sv = { m, meta };
	return writefile_write(path, WRITEFILE_MODEL, write_model, &sv, NULL, msg, len);
}

struct header {
	char *p, *end; /* what is left of the file */
	int line;
	const char *path;
	char *msg;
	size_t len;
};

/* The next header line, NUL-terminated in place; NULL at the end. */
static char *header_line(struct header *h)
{
	char *nl = memchr(h->p, '\n', (size_t)(h->end - h->p));
	if (!nl || memchr(h->p, '\0', (size_t)(nl - h->p)))
		return NULL; /* the end, or a NUL inside a header line: refused as a wrong line */
	*nl = '\0';
	char *line = h->p;
	h->p = nl + 1;
	h->line++;
	return line;
}

static int refuse(struct header *h, const char *what)
{
	snprintf(h->msg, h->len, "%.300s:%d: %s", h->path, h->line, what);
	return -1;
}

static int read_header(struct header *h, struct train_shape *s, struct lm_meta *meta, bool *off,
                       size_t *count)
{
	char *l;
	int used = 0, version = 0;
	if (!(l = header_line(h)) || sscanf(l, "mha-tui model %d%n", &version, &used) != 1 || l[used])
		return refuse(h, "not an mha-tui model file (first line 'mha-tui model 2')");
	if (version != 2)
		return refuse(h, version == 1 ? "a toy task's model (version 1): open it with --load FILE.layerN"
		                              : "model file version not supported: this mha-tui reads versions 1 and 2");
	if (!(l = header_line(h)) || strcmp(l, "task lm") != 0)
		return refuse(h, "expected 'task lm'");
	if (!(l = header_line(h)) ||
	    sscanf(l, "shape layers %d d_model %d heads %d d_k %d vocab %d classes %d tokens %d%n", &s->layers,
	           &s->d, &s->h, &s->dk, &s->vocab, &s->classes, &s->n, &used) != 7 || l[used])
		return refuse(h, "expected 'shape layers L d_model D heads H d_k K vocab V classes V tokens N'");
	char why[MHA_MSG_MAX];
	if (s->classes != s->vocab)
		return refuse(h, "a language model reads out to its vocabulary: classes must equal vocab");
	if (train_shape_check_limit(s, LM_MAX_VOCAB, why, sizeof why) != MHA_OK)
		return refuse(h, why);
	if (!(l = header_line(h)) || strcmp(l, "positions learned") != 0)
		return refuse(h, "expected 'positions learned'");
	if (!(l = header_line(h)) ||
	    sscanf(l, "vocab %255s fnv1a64 %" SCNx64 "%n", meta->vocab_file, &meta->vocab_fingerprint, &used) != 2 ||
	    l[used] || strchr(meta->vocab_file, '/'))
		return refuse(h, "expected 'vocab FILE fnv1a64 HEX' (FILE beside the model, no '/')");
	if (!(l = header_line(h)) ||
	    sscanf(l, "corpus wordnet-3.0-glosses train fnv1a64 %" SCNx64 " heldout fnv1a64 %" SCNx64 "%n",
	           &meta->corpus_fingerprint[0], &meta->corpus_fingerprint[1], &used) != 2 || l[used])
		return refuse(h, "expected 'corpus wordnet-3.0-glosses train fnv1a64 HEX heldout fnv1a64 HEX'");
	if (!(l = header_line(h)) ||
	    sscanf(l, "trained seed %" SCNu64 " steps %ld batch %d lr %f seconds %lf%n", &meta->seed, &meta->steps,
	           &meta->batch, &meta->lr, &meta->seconds, &used) != 5 || l[used])
		return refuse(h, "expected 'trained seed S steps N batch B lr R seconds T'");
	if (!(l = header_line(h)) || sscanf(l, "heldout_loss %lf%n", &meta->heldout_loss, &used) != 1 || l[used] ||
	    !isfinite(meta->heldout_loss))
		return refuse(h, "expected 'heldout_loss NATS'");
	int n_off = 0, pos = 0;
	if (!(l = header_line(h)) || sscanf(l, "heads_off %d%n", &n_off, &pos) != 1 || n_off < 0 ||
	    n_off > s->layers * s->h)
		return refuse(h, "expected 'heads_off COUNT' and COUNT 'layer head' pairs");
	for (int k = 0; k < n_off; k++) {
		int ly, hd;
		if (sscanf(l + pos, "%d %d%n", &ly, &hd, &used) != 2 || ly < 0 || ly >= s->layers || hd < 0 || hd >= s->h)
			return refuse(h, "heads_off: a pair is not 'layer head' within the shape");
		off[ly * MHA_MAX_HEADS + hd] = true;
		pos += used;
	}
	if (l[pos])
		return refuse(h, "heads_off: more numbers than its count");
	char names[512];
	tensor_names(s, names, sizeof names);
	if (!(l = header_line(h)) || strncmp(l, "tensors ", 8) != 0 || strcmp(l + 8, names) != 0)
		return refuse(h, "expected 'tensors' and the shape's tensors in order");
	if (!(l = header_line(h)) || sscanf(l, "data float32le %zu%n", count, &used) != 1 || l[used])
		return refuse(h, "expected 'data float32le COUNT'");
	return 0;
}

int lm_model_parse(const char *path, char *text, size_t size, struct train_model *m, struct lm_meta *meta,
                   char *msg, size_t len)
{
	memset(m, 0, sizeof *m);
	memset(meta, 0, sizeof *meta);
	struct header h = { text, text + size, 0, path, msg, len };
	struct train_shape s = { 0 };
	bool off[TRAIN_MAX_LAYERS * MHA_MAX_HEADS] = { 0 };
	size_t count = 0;
	int rc = read_header(&h, &s, meta, off, &count);
	if (rc == 0 && train_model_alloc(m, &s) != MHA_OK)
		rc = refuse(&h, "out of memory");
	if (rc == 0 && count != m->nparams)
		rc = refuse(&h, "the data's count is not the shape's number of parameters");
	if (rc == 0 && (size_t)(h.end - h.p) != 4 * count + 4)
		rc = refuse(&h, "the data is not COUNT float32 values followed by 'end' (a cut or altered file)");
	if (rc == 0 && memcmp(h.p + 4 * count, "end\n", 4) != 0)
		rc = refuse(&h, "the data is not followed by 'end'");
	for (size_t e = 0; rc == 0 && e < count; e++) {
		const unsigned char *b = (const unsigned char *)h.p + 4 * e;
		uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		float x;
		memcpy(&x, &u, 4);
		if (!isfinite(x) || fabsf(x) > MHA_VALUE_MAX) {
			char what[128];
			snprintf(what, sizeof what, "parameter %zu is not a finite number within +-1e6", e);
			rc = refuse(&h, what);
		}
		m->params[e] = x;
	}
	for (int l = 0; rc == 0 && l < s.layers; l++)
		for (int i = 0; i < s.h; i++)
			m->head_off[l][i] = off[l * MHA_MAX_HEADS + i];
	if (rc)
		train_model_free(m);
	return rc;
}

int lm_model_load(struct train_model *m, struct lm_vocab *v, struct lm_meta *meta,
                  const char *path, char *msg, size_t len)
{
	memset(m, 0, sizeof *m);
	memset(v, 0, sizeof *v);
	memset(meta, 0, sizeof *meta);
	char *text, why[256];
	size_t size;
	if (readfile_all(path, MODEL_MAX_BYTES, &text, &size, why, sizeof why) != 0) {
		snprintf(msg, len, "%.300s: %.200s", path, why);
		return -1;
	}
	int rc = lm_model_parse(path, text, size, m, meta, msg, len);
	free(text);
	if (rc == 0) {
		char vpath[4400], dir[4096];
		dir_of(path, dir, sizeof dir);
		snprintf(vpath, sizeof vpath, "%s%s", dir, meta->vocab_file);
		if (lm_vocab_load(v, vpath, msg, len) != 0) {
			rc = -1;
		} else if (v->fingerprint != meta->vocab_fingerprint || v->size != m->s.vocab) {
			snprintf(msg, len, "%.300s: its vocabulary %.300s is not the one it was trained with "
			         "(fingerprint or size differs)", path, vpath);
			rc = -1;
		}
		if (rc) {
			train_model_free(m);
			lm_vocab_free(v);
		}
	}
	return rc;
}

/* ---- the shipped model ---- */

static void tried(char *list, size_t len, const char *what, const char *why)
{
	size_t at = strlen(list);
	if (at + 1 < len)
		snprintf(list + at, len - at, "%s%.1000s (%.200s)", at ? "; " : "", what, why);
}

int lm_model_find(char *out, size_t outlen, char *msg, size_t len)
{
	char cand[3][4200], list[4096] = "";
	const char *env = getenv("MHA_TUI_MODEL");
	if (env && *env) { /* asked for by name: no other place will do */
		if (access(env, R_OK) == 0) {
			snprintf(out, outlen, "%s", env);
			return 0;
		}
		snprintf(msg, len, "$MHA_TUI_MODEL=%.300s: %s", env, strerror(errno));
		return -1;
	}
	snprintf(cand[0], sizeof cand[0], "%s/../assets/%s", MHA_LESSONS_SOURCE_DIR, LM_MODEL_NAME);
	snprintf(cand[1], sizeof cand[1], "%s/../assets/%s", MHA_LESSONS_INSTALL_DIR, LM_MODEL_NAME);
	tried(list, sizeof list, "$MHA_TUI_MODEL", "not set");
	for (int i = 0; i < 2; i++) {
		if (i == 0 && !datadir_from_build()) {
			tried(list, sizeof list, cand[0], "source tree: not running from a build directory");
			continue;
		}
		if (access(cand[i], R_OK) == 0) {
			snprintf(out, outlen, "%s", cand[i]);
			return 0;
		}
		tried(list, sizeof list, cand[i], strerror(errno));
	}
	snprintf(msg, len, "no language model found; tried %s. Give the file with --model FILE", list);
	return -1;
}

int lm_model_open(const char *file, char *path, size_t pathlen, struct train_model *m, struct lm_vocab *v,
                  struct lm_meta *meta, char *msg, size_t len)
{
	if (file)
		snprintf(path, pathlen, "%s", file);
	else if (lm_model_find(path, pathlen, msg, len) != 0)
		return -1;
	return lm_model_load(m, v, meta, path, msg, len);
}
