/*
 * lm_dump.c - the language model's JSON dump: the text as the tokenizer
 * split it, each layer as the one-layer dump prints it (dump_json: its X
 * is the residual stream entering the layer, its output what the layer
 * adds to it), the stream the read-out reads, and the five most probable
 * next tokens at every position. Every number comes from src/train
 * (lm_forward); this file only formats.
 */
#include "dump.h"
#include "lm.h"
#include "lm_dump.h"

#include <stdlib.h>
#include <string.h>

enum { TOP = 5 };

static void put_model(FILE *f, const char *file, const struct train_model *m, const struct lm_meta *meta)
{
	const struct train_shape *s = &m->s;
	fputs("{\"model\": {\"file\": ", f);
	dump_put_string(f, file);
	fprintf(f, ", \"layers\": %d, \"d_model\": %d, \"heads\": %d, \"d_k\": %d, \"vocab\": %d, "
	        "\"context\": %d, \"positions\": \"learned\", \"heldout_loss\": %.9g}", s->layers, s->d, s->h,
	        s->dk, s->vocab, s->n, meta->heldout_loss);
}

/* "tokens" (the vocabulary's spelling, <unk> for a word it lacks), "words"
 * (each token as typed), "ids" */
static void put_tokens(FILE *f, const struct lm_vocab *v, const char *text, const int *ids,
                       const struct lm_piece *pc, int n)
{
	fputs(",\n\"tokens\": [", f);
	for (int i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		dump_put_string(f, v->word[ids[i]]);
	}
	fputs("],\n\"words\": [", f);
	for (int i = 0; i < n; i++) {
		char w[256];
		snprintf(w, sizeof w, "%.*s", pc[i].len, text + pc[i].start);
		fputs(i ? ", " : "", f);
		dump_put_string(f, w);
	}
	fputs("],\n\"ids\": [", f);
	for (int i = 0; i < n; i++)
		fprintf(f, i ? ", %d" : "%d", ids[i]);
	fputc(']', f);
}

/* "next": per position the TOP most probable next tokens */
static void put_next(FILE *f, const struct lm_vocab *v, const struct lm_batch *bt, int n)
{
	fputs(",\n\"next\": [", f);
	for (int i = 0; i < n; i++) {
		int id[TOP];
		float p[TOP];
		lm_top_k(bt->logits + (size_t)i * v->size, v->size, TOP, id, p);
		fputs(i ? ",\n  [" : "[", f);
		for (int k = 0; k < TOP; k++) {
			fputs(k ? ", {\"token\": " : "{\"token\": ", f);
			dump_put_string(f, v->word[id[k]]);
			fprintf(f, ", \"p\": %.9g}", (double)p[k]);
		}
		fputc(']', f);
	}
	fputc(']', f);
}

static int dump_text(const char *file, const struct train_model *m, const struct lm_vocab *v,
                     const struct lm_meta *meta, const char *text, FILE *out, FILE *err)
{
	int ids[MHA_MAX_TOKENS], tgt[MHA_MAX_TOKENS];
	struct lm_piece pc[MHA_MAX_TOKENS];
	int total = lm_split_text(text, NULL, 0);
	if (total < 1 || total > m->s.n) {
		fprintf(err, "mha-tui: --text: %d tokens%s: the language model reads 1 to %d "
		        "(words and punctuation marks count one each)\n", total, total ? "" : " (only blanks)", m->s.n);
		return 1;
	}
	int n = lm_encode(v, text, ids, pc, total);
	struct lm_batch bt;
	char (*labels)[MHA_LABEL_MAX] = malloc((size_t)n * sizeof *labels);
	if (!labels || lm_batch_alloc(&bt, m, 1, 1) != MHA_OK) {
		free(labels);
		fprintf(err, "mha-tui: out of memory for the language model\n");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		tgt[i] = -1;
		snprintf(labels[i], MHA_LABEL_MAX, "%s", v->word[ids[i]]);
	}
	struct lm_result r;
	lm_forward(m, &bt, ids, tgt, 1, n, 1, &r);
	put_model(out, file, m, meta);
	put_tokens(out, v, text, ids, pc, n);
	fputs(",\n\"layers\": [", out);
	for (int l = 0; l < m->s.layers; l++) {
		struct mha_config c = train_layer_config(m, l);
		struct mha_weights w = lm_layer_weights(m, &bt, l, 0);
		c.n = n;
		w.labels = labels;
		if (l)
			fputs(",\n", out);
		/* the one-layer dump's object: a stack of this one layer (its stream is x_l + Y) */
		struct mha_stack one = { .layers = 1, .layer = { bt.acts[l * bt.cap_b] } };
		dump_json(out, &c, &w, &one);
	}
	fputs("],\n\"residual\": ", out);
	dump_put_matrix(out, lm_stream_at(m, &bt, m->s.layers, 0), n, m->s.d, m->s.d);
	put_next(out, v, &bt, n);
	fputs("}\n", out);
	lm_batch_free(&bt);
	free(labels);
	if (fflush(out) != 0 || ferror(out)) {
		fprintf(err, "mha-tui: cannot write to standard output\n");
		return 1;
	}
	return 0;
}

int lm_dump_command(const char *model, const char *text, FILE *out, FILE *err)
{
	char path[4200], msg[4400];
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	if (lm_model_open(model, path, sizeof path, &m, &v, &meta, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --model: %s\n", msg);
		return 1;
	}
	int rc = dump_text(path, &m, &v, &meta, text, out, err);
	train_model_free(&m);
	lm_vocab_free(&v);
	return rc;
}
