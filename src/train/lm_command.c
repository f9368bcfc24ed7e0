/*
 * lm_command.c - `mha-tui --train lm` and `mha-tui --eval` without a
 * terminal: read the corpus, fit the vocabulary, train, save; or load,
 * evaluate beside the baselines and report the heads. Every number comes
 * from the library (lm_*.c); this file only sequences, times and formats.
 */
#include "lm_command.h"
#include "clock.h"
#include "lm.h"
#include "report.h"
#include "writefile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* CPU time of the process: on a shared machine, what one core spent */
static double cpu_now(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

void lm_vocab_path(const char *model_path, char *out, size_t len)
{
	size_t n = strlen(model_path);
	if (n > 6 && !strcmp(model_path + n - 6, ".model"))
		n -= 6;
	snprintf(out, len, "%.*s.vocab", (int)n, model_path);
}

/* The corpus and both streams under vocabulary v; 0 or 1 with a message */
static int open_text(const char *dir, const struct lm_vocab *v, struct lm_corpus *c, struct lm_stream *tr,
                     struct lm_stream *ho, FILE *err)
{
	char msg[1024];
	memset(tr, 0, sizeof *tr);
	memset(ho, 0, sizeof *ho);
	if (lm_stream_encode(tr, v, c, LM_SPLIT_TRAIN, msg, sizeof msg) != 0 ||
	    lm_stream_encode(ho, v, c, LM_SPLIT_HELDOUT, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: %s: %s\n", dir, msg);
		lm_stream_free(tr);
		lm_stream_free(ho);
		return 1;
	}
	return 0;
}

static struct train_shape request_shape(const struct lm_request *rq, int vocab)
{
	struct train_shape s = { .layers = rq->layers ? rq->layers : LM_DEFAULT_LAYERS,
	                         .d = rq->d_model ? rq->d_model : LM_DEFAULT_D,
	                         .h = rq->heads ? rq->heads : LM_DEFAULT_HEADS,
	                         .vocab = vocab, .classes = vocab, .n = LM_DEFAULT_CONTEXT };
	s.dk = s.d % s.h == 0 ? s.d / s.h : 0;
	return s;
}

/* Both files --save writes (the model, its vocabulary beside it),
 * checked before the corpus is read and the training starts, so that a
 * name that cannot be written costs nothing. 0, or 1 said on err. */
static int check_saves(const char *path, FILE *err)
{
	char vpath[4200], why[MHA_MSG_MAX + 4400], msg[MHA_MSG_MAX + 4500];
	struct writefile_target t;
	lm_vocab_path(path, vpath, sizeof vpath);
	if (writefile_check(path, WRITEFILE_MODEL, &t, why, sizeof why) == 0 &&
	    writefile_check(vpath, WRITEFILE_VOCAB, &t, why, sizeof why) == 0)
		return 0;
	snprintf(msg, sizeof msg, "--save: %s: nothing trained", why);
	return report_line(err, 1, msg);
}

static int train_save(const struct lm_request *rq, const struct train_model *m, const struct lm_vocab *v,
                      struct lm_meta *meta, FILE *err)
{
	char vpath[4200], msg[MHA_MSG_MAX + 4400], line[MHA_MSG_MAX + 8800];
	lm_vocab_path(rq->save, vpath, sizeof vpath);
	const char *slash = strrchr(vpath, '/');
	snprintf(meta->vocab_file, sizeof meta->vocab_file, "%.255s", slash ? slash + 1 : vpath);
	if (lm_vocab_save(v, vpath, msg, sizeof msg) != 0)
		return report_line(err, 1, msg);
	/* what was written is what loads: the fingerprint is of the file's bytes */
	struct lm_vocab back;
	if (lm_vocab_load(&back, vpath, msg, sizeof msg) != 0)
		return report_line(err, 1, msg);
	meta->vocab_fingerprint = back.fingerprint;
	lm_vocab_free(&back);
	if (lm_model_save(m, meta, rq->save, msg, sizeof msg) != 0)
		return report_line(err, 1, msg);
	snprintf(line, sizeof line, "saved %s and its vocabulary %s", rq->save, vpath);
	mha_text_clean(line); /* the names, as every message, cannot drive the terminal */
	fprintf(err, "%s\n", line);
	return 0;
}

int lm_train_command(const struct lm_request *rq, FILE *out, FILE *err)
{
	char msg[1024];
	const char *dir = rq->corpus ? rq->corpus : LM_DEFAULT_CORPUS;
	int V = rq->vocab ? rq->vocab : LM_DEFAULT_VOCAB, steps = rq->steps ? rq->steps : LM_DEFAULT_STEPS;
	struct train_shape s = request_shape(rq, V);
	if (train_shape_check_limit(&s, LM_MAX_VOCAB, msg, sizeof msg) != MHA_OK) {
		fprintf(err, "mha-tui: --train lm: %s\n", msg);
		return 2;
	}
	if (rq->save && check_saves(rq->save, err) != 0)
		return 1;
	struct lm_corpus c;
	if (lm_corpus_read(&c, dir, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --train lm: %s\n", msg);
		return 1;
	}
	struct lm_vocab v;
	struct lm_stream tr, ho;
	if (lm_vocab_fit(&v, &c, V, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --train lm: %s\n", msg);
		lm_corpus_free(&c);
		return 1;
	}
	s.vocab = s.classes = v.size;
	int rc = open_text(dir, &v, &c, &tr, &ho, err);
	if (rc) {
		lm_vocab_free(&v);
		lm_corpus_free(&c);
		return rc;
	}
	fprintf(err, "corpus %s: %d glosses, %zu bytes; training %ld tokens, held out %ld (%d glosses); "
	        "vocabulary %d (%.1f%% of training tokens unknown)\n", dir, c.ndocs, c.bytes, tr.len, ho.len,
	        ho.docs, v.size, 100.0 * (double)tr.unknown / (double)tr.len);
	struct lm_train_options o = { .steps = steps, .threads = rq->threads };
	o = lm_train_defaults(&o);
	fprintf(err, "training 'lm': %d layers, d_model %d, %d heads of d_k %d, context %d, vocabulary %d; "
	        "batch %d, %d steps, AdamW lr %g (warm-up %d, cosine to %g), seed %llu\n", s.layers, s.d, s.h,
	        s.dk, s.n, s.vocab, o.batch, steps, (double)o.lr, o.warmup, (double)(o.lr * o.lr_end),
	        (unsigned long long)rq->seed);
	struct train_model m;
	struct lm_trainer *t = NULL;
	if (train_model_alloc(&m, &s) != MHA_OK) {
		fprintf(err, "mha-tui: out of memory for the model\n");
		rc = 1;
		goto out;
	}
	train_model_init(&m, rq->seed);
	if (lm_trainer_create(&t, &m, &tr, &o, rq->seed, msg, sizeof msg) != MHA_OK) {
		fprintf(err, "mha-tui: --train lm: %s\n", msg);
		rc = 1;
		goto free_model;
	}
	double t0 = clock_wall(), c0 = cpu_now(), smooth = 0;
	for (int k = 1; k <= steps; k++) {
		struct train_stats st;
		lm_trainer_step(t, &st);
		smooth = k == 1 ? st.loss : 0.98 * smooth + 0.02 * st.loss;
		if (k % 100 == 0 || k == steps) {
			double el = clock_wall() - t0;
			fprintf(err, "step %5d/%d  loss %.4f (smoothed %.4f)  lr %.2e  %.2f steps/s  %.0f s (cpu %.0f s), "
			        "%.0f s to go\n", k, steps, st.loss, smooth, (double)lm_lr_at(&o, k), k / el, el,
			        cpu_now() - c0, el / k * (steps - k));
		}
	}
	double seconds = cpu_now() - c0, wall = clock_wall() - t0;
	lm_trainer_destroy(t);
	struct train_stats held;
	lm_evaluate(&m, &ho, 0, rq->threads, &held);
	struct lm_meta meta = { .vocab_fingerprint = v.fingerprint, .seed = rq->seed, .steps = steps,
	                        .batch = o.batch, .lr = o.lr, .seconds = seconds, .heldout_loss = held.loss };
	meta.corpus_fingerprint[0] = c.fingerprint[0];
	meta.corpus_fingerprint[1] = c.fingerprint[1];
	if (rq->save && train_save(rq, &m, &v, &meta, err) != 0)
		rc = 1;
	fprintf(out, "lm: steps %d  %.1f s of cpu (%.1f s wall)  held-out loss %.4f nats/token  accuracy %.3f  "
	        "(%ld predictions)\n", steps, seconds, wall, held.loss, held.accuracy, held.counted);
free_model:
	train_model_free(&m);
out:
	lm_stream_free(&tr);
	lm_stream_free(&ho);
	lm_vocab_free(&v);
	lm_corpus_free(&c);
	return rc;
}

static void print_heads(const struct train_model *m, const struct lm_head_report *r, FILE *out)
{
	fprintf(out, "\nheads, measured on %d held-out windows of %d tokens (mean attention weight; induction "
	        "on 32 held-out tokens repeated once):\n"
	        "  head  previous  first  same-word  induction  current  importance  what it does\n", r->windows,
	        m->s.n);
	for (int l = 0; l < m->s.layers; l++)
		for (int i = 0; i < m->s.h; i++)
			fprintf(out, "  L%dH%d  %6.3f   %6.3f   %6.3f     %6.3f    %6.3f   %+8.4f   %s%s\n", l, i,
			        r->score[l][i][LM_HEAD_PREVIOUS], r->score[l][i][LM_HEAD_FIRST],
			        r->score[l][i][LM_HEAD_SAME], r->score[l][i][LM_HEAD_INDUCTION], r->score[l][i][LM_HEAD_SELF],
			        r->importance[l][i], lm_head_kind_name(r->kind[l][i]),
			        m->head_off[l][i] ? " (switched off)" : "");
	fprintf(out, "  even  %6.3f   %6.3f   %6.3f     %6.3f    %6.3f              (a head that spreads evenly "
	        "over what it sees)\n", r->uniform[LM_HEAD_PREVIOUS], r->uniform[LM_HEAD_FIRST],
	        r->uniform[LM_HEAD_SAME], r->uniform[LM_HEAD_INDUCTION], r->uniform[LM_HEAD_SELF]);
	fprintf(out, "  a head is named by its best score of at least %.2f, else mixed; importance: held-out loss "
	        "with the head off minus %.4f with every head on (the same windows)\n", LM_HEAD_CLEAR, r->base_loss);
}

int lm_eval_command(const struct lm_request *rq, FILE *out, FILE *err)
{
	char msg[4400], path[4200];
	const char *file = path;
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	if (lm_model_open(rq->model, path, sizeof path, &m, &v, &meta, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --eval: %s\n", msg);
		return 1;
	}
	const char *dir = rq->corpus ? rq->corpus : LM_DEFAULT_CORPUS;
	struct lm_corpus c;
	struct lm_stream tr, ho;
	if (lm_corpus_read(&c, dir, msg, sizeof msg) != 0) {
		fprintf(err, "mha-tui: --eval: %s\n", msg);
		train_model_free(&m);
		lm_vocab_free(&v);
		return 1;
	}
	int rc = open_text(dir, &v, &c, &tr, &ho, err);
	if (rc)
		goto out;
	if (c.fingerprint[0] != meta.corpus_fingerprint[0] || c.fingerprint[1] != meta.corpus_fingerprint[1])
		fprintf(err, "mha-tui: --eval: the corpus in %s is not the text %s was trained and measured on "
		        "(fingerprints differ): the figures below are for this text\n", dir, file);
	const struct train_shape *s = &m.s;
	fprintf(out, "model %s: %d layers, d_model %d, %d heads of d_k %d, vocabulary %d, context %d, "
	        "%zu parameters; trained %ld steps (seed %llu, %.0f s)\n", file, s->layers, s->d, s->h, s->dk,
	        s->vocab, s->n, m.nparams, meta.steps, (unsigned long long)meta.seed, meta.seconds);
	fprintf(out, "held-out text: %d of WordNet 3.0's %d glosses (every %dth), %ld tokens, %.1f%% of them "
	        "<unk>\n", ho.docs, c.ndocs, LM_HELDOUT_EVERY, ho.len, 100.0 * (double)ho.unknown / (double)ho.len);
	struct train_stats st;
	struct lm_baselines bl;
	lm_evaluate(&m, &ho, 0, rq->threads, &st);
	if (lm_baselines(&tr, &ho, s->vocab, s->n, 0, &bl) != 0) {
		fprintf(err, "mha-tui: --eval: out of memory for the baselines\n");
		rc = 1;
		goto out;
	}
	fprintf(out, "\ncross-entropy on the held-out text, nats per token (%ld predictions, windows of %d):\n"
	        "  attention model   %.4f   (perplexity %.1f, next token right %.1f%%)\n"
	        "  bigram, add-one   %.4f   (perplexity %.1f)\n"
	        "  unigram, add-one  %.4f   (perplexity %.1f)\n", st.counted, s->n, st.loss, exp(st.loss),
	        100.0 * st.accuracy, bl.bigram, exp(bl.bigram), bl.unigram, exp(bl.unigram));
	fprintf(out, "  the attention model is %.4f nats per token %s the bigram; saved with %.4f\n",
	        fabs(bl.bigram - st.loss), st.loss < bl.bigram ? "below" : "ABOVE", meta.heldout_loss);
	struct lm_head_report hr;
	if (lm_head_analysis(&m, &ho, 0, &hr) == 0)
		print_heads(&m, &hr, out);
	else
		fprintf(err, "mha-tui: --eval: the heads could not be measured (out of memory or too little text)\n");
out:
	lm_stream_free(&tr);
	lm_stream_free(&ho);
	lm_corpus_free(&c);
	train_model_free(&m);
	lm_vocab_free(&v);
	return rc;
}

int lm_model_check(const char *path, char *msg, size_t len)
{
	struct train_model m;
	struct lm_vocab v;
	struct lm_meta meta;
	char where[4200], why[4400];
	if (lm_model_open(path, where, sizeof where, &m, &v, &meta, why, sizeof why) != 0) {
		snprintf(msg, len, "--model %.300s: %.3000s", path, why);
		return -1;
	}
	train_model_free(&m);
	lm_vocab_free(&v);
	return 0;
}
