/*
 * lm_dump.c - the language model's JSON dump: the text as the tokenizer
 * split it, each layer as the one-layer dump prints it (dump_json: its X
 * is the residual stream entering the layer, its output what the layer
 * adds to it), the stream the read-out reads, and the five most probable
 * next tokens at every position; with --generate N, N tokens generated
 * greedily after the text with a K/V cache a layer (lm_decode.c), each
 * with its probability, the caches' bytes and the step's FLOPs. Every
 * number comes from src/train (lm_forward, lm_decoder_*); this file only
 * formats.
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

/* "generated": count tokens after ids[0..n), greedy, a K/V cache a layer;
 * -1 when the decoder cannot be made */
static int put_generated(FILE *f, const struct train_model *m, const struct lm_vocab *v, const int *ids, int n,
                         int count)
{
	struct lm_decoder dec;
	char msg[256];
	if (lm_decoder_alloc(&dec, m) != 0)
		return -1;
	lm_decoder_prefill(&dec, ids, n, msg, sizeof msg);
	fputs(",\n\"generated\": [", f);
	for (int k = 0; k < count; k++) {
		double p;
		int next = lm_decoder_pick(&dec, 0.0, 0, &p);
		lm_decoder_push(&dec, next, msg, sizeof msg);
		struct lm_decode_cost c = lm_decode_cost(m, dec.len - 1);
		fputs(k ? ",\n  {\"token\": " : "{\"token\": ", f);
		dump_put_string(f, v->word[next]);
		fprintf(f, ", \"id\": %d, \"position\": %d, \"p\": %.9g, \"cache_bytes\": %lld, \"step_flops\": %lld, "
		        "\"recompute_flops\": %lld, \"readout_flops\": %lld}", next, dec.len - 1, p, (long long)c.cache_bytes,
		        (long long)c.step_flops, (long long)c.recompute_flops, (long long)c.readout_flops);
	}
	fputc(']', f);
	lm_decoder_free(&dec);
	return 0;
}

static int dump_text(const char *file, const struct train_model *m, const struct lm_vocab *v,
                     const struct lm_meta *meta, const char *text, int generate, FILE *out, FILE *err)
{
	int ids[MHA_MAX_TOKENS], tgt[MHA_MAX_TOKENS];
	struct lm_piece pc[MHA_MAX_TOKENS];
	int total = lm_split_text(text, NULL, 0);
	if (total < 1 || total > m->s.n) {
		fprintf(err, "mha-tui: --text: %d tokens%s: the language model reads 1 to %d "
		        "(words and punctuation marks count one each)\n", total, total ? "" : " (only blanks)", m->s.n);
		return 1;
	}
	if (generate > m->s.n - total) {
		fprintf(err, "mha-tui: --generate %d: the model was trained on %d tokens of context and the text has %d: "
		        "at most %d more\n", generate, m->s.n, total, m->s.n - total);
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
	if (generate > 0 && put_generated(out, m, v, ids, n, generate) != 0) {
		fprintf(err, "mha-tui: out of memory for the decoder\n");
		lm_batch_free(&bt);
		free(labels);
		return 1;
	}
	fputs("}\n", out);
	lm_batch_free(&bt);
	free(labels);
	if (fflush(out) != 0 || ferror(out)) {
		fprintf(err, "mha-tui: cannot write to standard output\n");
		return 1;
	}
	return 0;
}

int lm_dump_command(const char *model, const char *text, int generate, FILE *out, FILE *err)
{
	char path[4200], msg[4400];
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	if (lm_model_open(model, path, sizeof path, &m, &v, &meta, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --model: %s\n", msg);
		return 1;
	}
	int rc = dump_text(path, &m, &v, &meta, text, generate, out, err);
	train_model_free(&m);
	lm_vocab_free(&v);
	return rc;
}
