/*
 * lm.h - a small language model trained by mha-tui on real English
 * (doc/LANGUAGE_MODEL.md): the corpus (WordNet 3.0's glosses from Debian's
 * wordnet-base), a word-level tokenizer fitted to it, the model (the
 * attention-only model of train.h with the vocabulary as its read-out),
 * its batched trainer, held-out evaluation beside unigram and bigram
 * baselines, the head analysis on held-out text, and model files.
 *
 * Legend as in train.h: n tokens, d d_model, h heads, dk head size,
 * L layers, V vocabulary (= the read-out's classes), B batch.
 *
 *     struct lm_corpus c;  lm_corpus_read(&c, "/usr/share/wordnet", msg, len);
 *     struct lm_vocab v;   lm_vocab_fit(&v, &c, 8192, msg, len);
 *     struct lm_stream tr, ho;
 *     lm_stream_encode(&tr, &v, &c, LM_SPLIT_TRAIN);  ... (LM_SPLIT_HELDOUT)
 *     struct train_model m;  train_model_alloc(&m, &shape);  train_model_init(&m, seed);
 *     struct lm_trainer *t;  lm_trainer_create(&t, &m, &tr, &opts, seed, msg, len);
 *     for (...) lm_trainer_step(t, &stats);
 *     lm_evaluate(&m, &ho, 0, &stats);        // nats per token on held-out text
 *
 * Nothing here prints or exits; errors come back as messages.
 */
#ifndef TRAIN_LM_H
#define TRAIN_LM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grad.h"
#include "train.h"

enum {
	LM_MAX_VOCAB = 16384,  /* tokens of a vocabulary, the specials included */
	LM_WORD_MAX = 15,      /* bytes of a vocabulary entry: every token is a label */
	LM_HELDOUT_EVERY = 20, /* document k is held out when k % 20 == 19 */
	LM_UNK = 0,            /* "<unk>": a word the vocabulary lacks */
	LM_DOC = 1,            /* "<doc>": before every document */
	LM_SPECIALS = 2,
};

/* ---- the corpus (lm_corpus.c) ---- */

/* WordNet's data.noun, data.verb, data.adj, data.adv in that order, one
 * document a synset: its gloss (definitions and quoted examples), as
 * written after " | " on its line, trailing blanks removed. */
struct lm_corpus {
	int ndocs;
	char **doc;          /* (ndocs) NUL-terminated */
	size_t bytes;        /* of all documents */
	char *mem;
	uint64_t fingerprint[2]; /* FNV-1a 64 of the training and of the held-out documents */
	char dir[512];
};
enum lm_split { LM_SPLIT_TRAIN, LM_SPLIT_HELDOUT };
/* The data files of dir; 0, or -1 with msg naming the file and what to install. */
int lm_corpus_read(struct lm_corpus *c, const char *dir, char *msg, size_t len);
void lm_corpus_free(struct lm_corpus *c);
/* Document k's split: held out when k % LM_HELDOUT_EVERY == LM_HELDOUT_EVERY - 1. */
enum lm_split lm_doc_split(int k);
/* The gloss of one data-file line (after " | ", trailing blanks and the
 * newline cut); NULL for a line that holds none (the licence header). */
const char *lm_gloss_of(const char *line, size_t *glen);
/* FNV-1a 64 of bytes, continuing from h (start: LM_FNV_START). */
#define LM_FNV_START 0xcbf29ce484222325ULL
uint64_t lm_fnv(uint64_t h, const void *p, size_t n);

/* ---- the tokenizer (lm_vocab.c) ---- */

/* One token of a text as typed: its bytes [start, start + len). */
struct lm_piece { int start, len; };
/* Split text into tokens: ASCII letters lower-cased; a word is a run of
 * letters, digits and bytes >= 0x80; an apostrophe right after a word and
 * followed by letters starts a token of its own ("dog's" -> dog 's; after
 * "<unk>" too);
 * "<unk>" and "<doc>" are one token each; every other byte but a blank is
 * a token by itself. Returns the count (at most max pieces written). */
int lm_split_text(const char *text, struct lm_piece *pieces, int max);

struct lm_vocab {
	int size;            /* V, the specials included */
	char (*word)[LM_WORD_MAX + 1]; /* (V) id -> token */
	int *slot;           /* open-addressing table of ids, (cap) */
	int cap;
	uint64_t fingerprint; /* FNV-1a 64 of the file's bytes */
};
/* The V - 2 tokens of the training documents seen most often (ties: byte
 * order), at most LM_WORD_MAX bytes, after "<unk>" and "<doc>". */
int lm_vocab_fit(struct lm_vocab *v, const struct lm_corpus *c, int size, char *msg, size_t len);
void lm_vocab_free(struct lm_vocab *v);
/* id of a token (lower-cased bytes, len of them), LM_UNK when absent. */
int lm_vocab_id(const struct lm_vocab *v, const char *tok, int len);
/* The vocabulary file: "mha-tui vocab 1", "size V", then one token a line
 * in id order. Atomic write; loading refuses anything else with file:line. */
int lm_vocab_save(const struct lm_vocab *v, const char *path, char *msg, size_t len);
int lm_vocab_load(struct lm_vocab *v, const char *path, char *msg, size_t len);
/* The same from the file's size bytes in text (NUL-terminated after them;
 * written into), path only for messages. */
int lm_vocab_parse(const char *path, char *text, size_t size, struct lm_vocab *v, char *msg, size_t len);
/* ids of text (at most max); pieces, when not NULL (room for max),
 * receive where each token is in text, so an unknown word (id LM_UNK)
 * can be shown as typed. Returns the count, -1 when out of memory. */
int lm_encode(const struct lm_vocab *v, const char *text, int *ids, struct lm_piece *pieces, int max);
/* The ids as text (the inverse of lm_encode up to case and blanks): no
 * blank before , . ; : ) ! ? or a contraction after a word, none after (,
 * none around -, double quotes taken as opening and closing in turn,
 * "<doc>" at the start of a line (and "<unk>" as it is spelled), so that
 * encoding the text gives the ids back. Writes at most cap bytes with the NUL; returns the
 * length the whole text needs. */
size_t lm_decode(const struct lm_vocab *v, const int *ids, int n, char *out, size_t cap);

/* ---- token streams ---- */

/* One split encoded: "<doc>" then the document's tokens, document after
 * document, in corpus order. */
struct lm_stream {
	int *ids;
	long len;
	long unknown;  /* tokens that are LM_UNK */
	int docs;
};
int lm_stream_encode(struct lm_stream *s, const struct lm_vocab *v, const struct lm_corpus *c,
                     enum lm_split split, char *msg, size_t len);
void lm_stream_free(struct lm_stream *s);

/* ---- the model's batched passes (lm_model.c) ---- */

/* The model is a struct train_model with classes = vocab. Its forward on
 * B sequences of n <= s.n tokens at once, read-out as one GEMM. */
enum { LM_MAX_THREADS = 16 };
struct pool;
struct lm_batch {
	int cap_b, n_max;      /* room for cap_b sequences of up to n_max = s.n tokens */
	int b, n;              /* the last forward's */
	struct mha_acts *acts; /* (L, cap_b) every intermediate of each layer */
	struct mha_grads grads[LM_MAX_THREADS]; /* each thread's layer backward */
	float *x;              /* (L+1) blocks of (cap_b * n_max, d): residual streams x_0 .. x_L,
	                        * sequence j's rows at j * n (this call's n) */
	float *logits;         /* (cap_b * n_max, V) logits, then probabilities, then dlogits */
	float *dx;             /* (cap_b * n_max, d) dL/dx_l on the way down, rows as x */
	float *mem;
	struct pool *pool;     /* lm_batch_alloc's threads, started once (pool.h) */
};
/* threads: the batch's pool of threads (each has its own grads), used by
 * lm_forward and lm_backward when their threads > 1; 1 runs all in the
 * caller. */
enum mha_status lm_batch_alloc(struct lm_batch *bt, const struct train_model *m, int cap_b, int threads);
void lm_batch_free(struct lm_batch *bt);
/* x_0 = E[t] + P, the positions' one place (rows 0..n-1 of P). */
void lm_embed(const struct train_model *m, const int *tokens, int n, float *x0);
/* Forward of b sequences of n tokens (tokens, targets: b * n; target -1:
 * not counted). Leaves probabilities in bt->logits. loss: summed
 * cross-entropy (nats) over counted positions; correct: argmax hits. */
struct lm_result { double loss; long counted, correct; };
void lm_forward(const struct train_model *m, struct lm_batch *bt, const int *tokens,
                const int *targets, int b, int n, int threads, struct lm_result *r);
/* One sequence (b = 1) of n tokens from layer `from` on (0..L): x (n, d)
 * is the stream x_from entering it (copied into bt's stream `from`); the
 * layers from..L-1 run with m's weights and heads off, then the read-out,
 * whose probabilities are left in bt->logits. The streams and layers
 * below `from` are left as they are: how a layer changed by hand (the
 * workbench's) reaches the predictions. */
void lm_forward_from(const struct train_model *m, struct lm_batch *bt, int from, int n, const float *x);
/* The same after layer l, run by the caller on x_l = x with output y:
 * x_{l+1} = x + y, then lm_forward_from(l + 1). bt's layer l acts are
 * not touched (they are the caller's). */
void lm_forward_after(const struct train_model *m, struct lm_batch *bt, int l, int n, const float *x,
                      const float *y);
/* After lm_forward: the gradient of scale * summed loss into g (a model
 * view of a gradient array; every tensor overwritten). slots: (b, layer
 * parameters) room for each sequence's layer gradients, summed in order. */
void lm_backward(const struct train_model *m, struct lm_batch *bt, const int *tokens,
                 const int *targets, float scale, int threads, float *slots, struct train_model *g);
/* Floats of one sequence's slot in lm_backward. */
size_t lm_slot_floats(const struct train_model *m);

/* ---- training (lm_trainer.c) ---- */

struct lm_train_options {
	int batch;        /* sequences a step, default 32 */
	int threads;      /* default 1 */
	int steps;        /* the schedule's length (needed for its decay) */
	int warmup;       /* linear warm-up steps, default 100 */
	float lr;         /* peak AdamW learning rate, default 3e-3 */
	float lr_end;     /* cosine decay to this fraction of lr, default 0.1 */
};
struct lm_trainer;
enum mha_status lm_trainer_create(struct lm_trainer **out, struct train_model *m,
                                  const struct lm_stream *train, const struct lm_train_options *o,
                                  uint64_t seed, char *msg, size_t len);
void lm_trainer_destroy(struct lm_trainer *t);
/* One AdamW step on a fresh batch of windows at random offsets; stats of
 * that batch before the step. */
void lm_trainer_step(struct lm_trainer *t, struct train_stats *st);
/* The learning rate of step k (1-based) under the schedule. */
float lm_lr_at(const struct lm_train_options *o, long k);
/* The options with every default filled in. */
struct lm_train_options lm_train_defaults(const struct lm_train_options *o);

/* ---- evaluation ---- */

/* Cross-entropy in nats per token over the stream cut into windows of
 * s.n tokens (window w: inputs ids[w n .. w n + n - 1], targets the next
 * token each), the first max_windows (0: all). counted = predictions. */
void lm_evaluate(const struct train_model *m, const struct lm_stream *s, int max_windows,
                 int threads, struct train_stats *st);
/* The same predictions' cross-entropy under add-one unigram and bigram
 * models counted on train: P(b) = (c(b) + 1) / (N + V),
 * P(b | a) = (c(a b) + 1) / (c(a .) + V). */
struct lm_baselines { double unigram, bigram; long counted; };
int lm_baselines(const struct lm_stream *train, const struct lm_stream *heldout, int vocab, int n,
                 int max_windows, struct lm_baselines *out);

/* The k most probable next tokens after each of the n positions of one
 * sequence: ids[i * k + j], probs[i * k + j], most probable first. */
int lm_next(const struct train_model *m, const int *tokens, int n, int k, int *ids, float *probs);
/* The k largest of the V probabilities p: ids and probs, largest first
 * (ties: the lower id first). */
void lm_top_k(const float *p, int V, int k, int *ids, float *probs);
/* Layer l's weights as the core sees them for sequence j of bt's last
 * forward: X is the residual stream x_l entering the layer. */
struct mha_weights lm_layer_weights(const struct train_model *m, const struct lm_batch *bt, int l, int j);
/* The residual stream x_l (n, d) of sequence j of bt's last forward. */
float *lm_stream_at(const struct train_model *m, const struct lm_batch *bt, int l, int j);

/* ---- generating, a token at a time (lm_decode.c) ---- */

/* The model as a decoder: a K/V cache a layer (the core's mha_decoder),
 * the residual streams' rows so far, the last token's logits and
 * probabilities. Reads m's weights and heads off at every push.
 *
 *     struct lm_decoder dec;  lm_decoder_alloc(&dec, &m);
 *     lm_decoder_prefill(&dec, prompt, k, msg, len);      // tokens 0..k-1
 *     int next = lm_decoder_pick(&dec, 0.0, seed, NULL);   // greedy
 *     lm_decoder_push(&dec, next, msg, len);               // token k, ...
 */
struct lm_decoder {
	const struct train_model *m;
	int len;                                  /* tokens cached */
	int cap;                                  /* the context the model was trained with: s.n */
	int ids[MHA_MAX_TOKENS];                  /* the tokens so far */
	struct mha_config c[TRAIN_MAX_LAYERS];    /* layer l as the core sees it, n = cap */
	struct mha_weights w[TRAIN_MAX_LAYERS];   /* X: the stream x_l's rows; W's: the model's */
	struct mha_decoder dec[TRAIN_MAX_LAYERS]; /* layer l's cache, its last query row and output */
	float *xs;                                /* (L+1, cap, d) the streams x_0..x_L, rows 0..len-1 */
	float *logits;                            /* (V) the last token's logits */
	float *probs;                             /* (V) softmax(logits) */
	float *mem;
};
int lm_decoder_alloc(struct lm_decoder *dec, const struct train_model *m);
void lm_decoder_free(struct lm_decoder *dec);
void lm_decoder_reset(struct lm_decoder *dec);
/* Token id at position len, through every layer and the read-out; -1
 * with msg when the context is full (len = s.n) or id is not a token. */
int lm_decoder_push(struct lm_decoder *dec, int id, char *msg, size_t len);
/* Reset, then the count prompt tokens pushed in order. */
int lm_decoder_prefill(struct lm_decoder *dec, const int *ids, int count, char *msg, size_t len);
/* The next token from the last logits: greedy (the most probable; ties:
 * the lower id) when temperature <= 0, else drawn from
 * softmax(logits / temperature) with lm_sample_uniform(seed, len). prob:
 * its probability under that distribution (may be NULL). */
int lm_decoder_pick(const struct lm_decoder *dec, double temperature, uint64_t seed, double *prob);
/* The uniform in [0, 1) that decides position t's draw under seed. */
double lm_sample_uniform(uint64_t seed, int t);
/* Step t (0-based: the token at position t) over the whole stack. */
struct lm_decode_cost {
	int64_t step_flops;      /* every layer's decode step (mha_decode_cost) */
	int64_t recompute_flops; /* every layer's causal pass over t+1 tokens */
	int64_t readout_flops;   /* one row of logits and its softmax: the same either way */
	int64_t cache_values;    /* K and V of every layer after the step */
	int64_t cache_bytes;     /* as float32 */
};
struct lm_decode_cost lm_decode_cost(const struct train_model *m, int t);

/* ---- the heads (lm_heads.c) ---- */

enum lm_head_kind { LM_HEAD_PREVIOUS, LM_HEAD_FIRST, LM_HEAD_SAME, LM_HEAD_INDUCTION, LM_HEAD_SELF,
                    LM_HEAD_KINDS };
struct lm_head_report {
	/* means over held-out windows: previous P[q][q-1], first P[q][0],
	 * self (the current token) P[q][q] (q >= 1); same word: weight on
	 * earlier keys with the query's token (queries that have one);
	 * induction: on repeated text (32 held-out tokens twice), weight on
	 * the key after the query's earlier copy, in the second half */
	double score[TRAIN_MAX_LAYERS][MHA_MAX_HEADS][LM_HEAD_KINDS];
	/* what a head that spreads evenly over the keys it sees would score */
	double uniform[LM_HEAD_KINDS];
	/* held-out loss with the head off minus with every head on */
	double importance[TRAIN_MAX_LAYERS][MHA_MAX_HEADS];
	double base_loss;
	int kind[TRAIN_MAX_LAYERS][MHA_MAX_HEADS]; /* best kind scoring >= LM_HEAD_CLEAR, or -1 */
	int windows;
};
#define LM_HEAD_CLEAR 0.4
const char *lm_head_kind_name(int kind); /* "previous-token", ..., "current-token"; "mixed" for -1 */
/* windows: held-out windows measured (0: 256). */
int lm_head_analysis(struct train_model *m, const struct lm_stream *heldout, int windows,
                     struct lm_head_report *r);

/* ---- model files (lm_file.c), version 2 ---- */

struct lm_meta {
	char vocab_file[256];       /* beside the model file */
	uint64_t vocab_fingerprint;
	uint64_t corpus_fingerprint[2]; /* training and held-out text */
	uint64_t seed;
	long steps;
	int batch;
	float lr;
	double seconds;             /* training time: the process's CPU seconds (one thread) */
	double heldout_loss;        /* nats per token when saved */
};
int lm_model_save(const struct train_model *m, const struct lm_meta *meta, const char *path,
                  char *msg, size_t len);
/* The model alone from a file's size bytes in text (NUL-terminated after
 * them; written into), path only for messages; allocated. */
int lm_model_parse(const char *path, char *text, size_t size, struct train_model *m, struct lm_meta *meta,
                   char *msg, size_t len);
/* The model (allocated) and its vocabulary, read from beside it. */
int lm_model_load(struct train_model *m, struct lm_vocab *v, struct lm_meta *meta,
                  const char *path, char *msg, size_t len);
/* The shipped model: $MHA_TUI_MODEL, the source tree's assets/lm.model
 * (from a build directory), the installed one; -1 with the places tried. */
int lm_model_find(char *out, size_t outlen, char *msg, size_t len);
#define LM_MODEL_NAME "lm.model"
/* file, or the shipped model when NULL (its path into path), loaded. */
int lm_model_open(const char *file, char *path, size_t pathlen, struct train_model *m, struct lm_vocab *v,
                  struct lm_meta *meta, char *msg, size_t len);

#endif
