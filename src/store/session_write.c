/*
 * session_write.c - save the workbench as a session file (format:
 * doc/SESSION.md): the configuration, the token labels (and the
 * source's) and every input matrix (every layer's), as text a person
 * reads, or a big matrix as binary float32 (version 2). Saving is the one
 * write path's (writefile_write): atomic, and never over a file that is
 * not a session.
 *
 * It deliberately does not read sessions (session_read.c: the strict,
 * line-numbered parser) and knows no terminal: files only.
 */
#include "session.h"
#include "statefile.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A matrix of more than this many values is written in binary (version
 * 2, doc/SESSION.md): at d_model 1024 with 64 heads the text of 17M
 * values took 7-10 s to write and 6-8 s to read; small sessions stay text
 * a person reads. */
enum { SESSION_TEXT_VALUES_MAX = 65536 };

static bool is_binary(int rows, int cols)
{
	return (size_t)rows * (size_t)cols > SESSION_TEXT_VALUES_MAX;
}

/* IEEE-754 float32 little-endian, whatever the host's byte order. */
static void put_f32le(FILE *f, const float *p, size_t n)
{
	const uint32_t one = 1;
	if (*(const unsigned char *)&one == 1) { /* little-endian host: as it is */
		fwrite(p, sizeof *p, n, f);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &p[i], 4);
		unsigned char b[4] = { (unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
		                       (unsigned char)(u >> 24) };
		fwrite(b, 1, 4, f);
	}
}

static void write_matrix(FILE *f, const char *key, const float *p, int rows, int cols)
{
	if (is_binary(rows, cols)) {
		fprintf(f, "%s %d %d f32le\n", key, rows, cols);
		put_f32le(f, p, (size_t)rows * (size_t)cols);
		fputc('\n', f);
		return;
	}
	fprintf(f, "%s %d %d\n", key, rows, cols);
	for (int r = 0; r < rows; r++) {
		for (int col = 0; col < cols; col++)
			fprintf(f, col ? " %.9g" : "%.9g", (double)p[(size_t)r * cols + col]);
		fputc('\n', f);
	}
}

/* ---- masks beyond causal and biases (optional lines, written only when
 * set, so a session without them is unchanged): "pad T..", "window W",
 * "hidden I J .." (query, key pairs of the custom mask), "bias 1" (then
 * b_Q, b_K, b_V, b_O follow W_O as 1-row matrices). ---- */

static void write_masks(FILE *f, const struct mha_config *c)
{
	bool any = false;
	for (int t = 0; t < mha_keys(c); t++) /* keys: the source's tokens with cross-attention */
		if (mha_is_pad(c, t)) {
			fprintf(f, any ? " %d" : "pad %d", t);
			any = true;
		}
	if (any)
		fputc('\n', f);
	if (c->window > 0)
		fprintf(f, "window %d\n", c->window);
	any = false;
	for (int i = 0; i < c->n && i < MHA_MAX_TOKENS; i++)
		for (int j = 0; j < mha_keys(c) && j < 64; j++)
			if ((c->hide[i] >> j) & 1u) {
				fprintf(f, any ? " %d %d" : "hidden %d %d", i, j);
				any = true;
			}
	if (any)
		fputc('\n', f);
	if (c->bias)
		fputs("bias 1\n", f);
	/* positions, the source, the stack: written when set, as the masks are */
	if (c->pos != MHA_POS_NONE)
		fprintf(f, "pos %s\n", mha_pos_name(c->pos));
	if (c->pos_offset > 0)
		fprintf(f, "pos_offset %d\n", c->pos_offset);
	if (c->m > 0)
		fprintf(f, "kv_tokens %d\n", c->m);
	if (c->layers > 1)
		fprintf(f, "layers %d\n", c->layers);
}

static void write_labels(FILE *f, const char *key, const char (*labels)[MHA_LABEL_MAX], int count)
{
	fputs(key, f);
	for (int i = 0; i < count; i++)
		fprintf(f, " %s", labels[i]);
	fputc('\n', f);
}

/* Layer l's W^Q .. W^O (and biases), as layer 0's are written. */
static void write_layer(FILE *f, const struct mha_config *c, const struct mha_weights *w, int l)
{
	for (enum mha_tensor t = MHA_T_WQ; t <= MHA_T_WO; t++) {
		struct mha_shape s = mha_tensor_shape(c, t);
		write_matrix(f, mha_tensor_info(t)->key, mha_tensor_data_layer(w, NULL, l, t), s.rows, s.cols);
	}
	for (int k = 0; c->bias && k < MHA_BIASES; k++) {
		struct mha_bias b = mha_bias_layer(w, c, l, k);
		write_matrix(f, b.key, b.p, 1, b.len);
	}
}

static void write_session(FILE *f, const struct mha_config *c, const struct mha_weights *w)
{
	bool binary = false; /* version 2 only when a matrix needs it: small files stay version 1 */
	for (enum mha_tensor t = MHA_T_X; t < MHA_T_COUNT; t++) {
		struct mha_shape sh = mha_tensor_shape(c, t);
		binary |= mha_tensor_info(t)->input && mha_tensor_used(c, t) && is_binary(sh.rows, sh.cols);
	}
	fprintf(f, "%s %d\n", SESSION_MAGIC, binary ? SESSION_VERSION_BINARY : SESSION_VERSION);
	fprintf(f, "# mha-tui workbench; format described in doc/SESSION.md\n");
	fprintf(f, "tokens %d\nd_model %d\nheads %d\nkv_heads %d\nd_k %d\n", c->n, c->d, c->h, c->g, c->dk);
	fprintf(f, "causal %d\ntop_k %d\nscale %d\nseed %" PRIu64 "\n", c->causal, c->top_k, c->scale, c->seed);
	fputs("heads_off", f);
	for (int i = 0; i < c->h; i++)
		if (c->head_off[i])
			fprintf(f, " %d", i);
	fputc('\n', f);
	write_masks(f, c);
	write_labels(f, "labels", (const char (*)[MHA_LABEL_MAX])w->labels, c->n);
	if (c->m > 0)
		write_labels(f, "kv_labels", (const char (*)[MHA_LABEL_MAX])w->kv_labels, c->m);
	struct mha_shape sx = mha_tensor_shape(c, MHA_T_X);
	write_matrix(f, mha_tensor_info(MHA_T_X)->key, w->x, sx.rows, sx.cols);
	write_layer(f, c, w, 0);
	/* then the source and the learned positions, then every later layer */
	static const enum mha_tensor added[] = { MHA_T_XKV, MHA_T_POS };
	for (size_t k = 0; k < sizeof added / sizeof added[0]; k++) {
		struct mha_shape s = mha_tensor_shape(c, added[k]);
		if (mha_tensor_used(c, added[k]))
			write_matrix(f, mha_tensor_info(added[k])->key, mha_tensor_data(w, NULL, added[k]), s.rows,
			             s.cols);
	}
	for (int l = 1; l < c->layers; l++) {
		fprintf(f, "layer %d\n", l);
		write_layer(f, c, w, l);
	}
	fputs("end\n", f);
}

struct session_ref {
	const struct mha_config *c;
	const struct mha_weights *w;
};

static int write_ref(FILE *f, const void *ctx, char *why, size_t len)
{
	const struct session_ref *ref = ctx;
	return session_write_to(f, ref->c, ref->w, why, len);
}

/* Every label (the source's too) one a load takes back (a space would
 * split it in two). */
static int labels_check(const struct mha_config *c, const struct mha_weights *w, char *why, size_t len)
{
	for (int i = 0; i < c->n + c->m; i++) {
		bool kv = i >= c->n;
		if (!mha_label_valid(kv ? w->kv_labels[i - c->n] : w->labels[i])) {
			snprintf(why, len, "%slabel %d is empty or holds a space or control character",
			         kv ? "source " : "", (kv ? i - c->n : i) + 1);
			return -1;
		}
	}
	return 0;
}

int session_write_to(FILE *f, const struct mha_config *c, const struct mha_weights *w, char *why, size_t len)
{
	if (labels_check(c, w, why, len) != 0)
		return -1;
	write_session(f, c, w);
	return 0;
}

int session_save(const char *path, const struct mha_config *c, const struct mha_weights *w,
                 char *msg, size_t len)
{
	return session_save_checked(path, c, w, NULL, msg, len);
}

int session_save_checked(const char *path, const struct mha_config *c, const struct mha_weights *w,
                         struct statefile_check *chk, char *msg, size_t len)
{
	char why[128];
	if (labels_check(c, w, why, sizeof why) != 0) { /* before the file is touched */
		snprintf(msg, len, "%.200s: not saved: %s", path, why);
		return -1;
	}
	struct session_ref ref = { c, w };
	return writefile_write(path, WRITEFILE_SESSION, write_ref, &ref, chk, msg, len);
}

int session_default_path(char *out, size_t outlen, char *msg, size_t len)
{
	return statefile_path("session.txt", out, outlen, msg, len);
}
