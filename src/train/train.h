/*
 * train.h - tiny attention-only models that learn, built on the core's
 * forward (mha_forward) and backward (mha_backward). See doc/TRAINING.md.
 *
 * Legend as in mha.h (n tokens, d d_model, h heads, dk head size), plus
 * L layers, V vocabulary (input tokens), C classes (read-out), B batch.
 *
 * The model, for one sequence of n tokens t_0..t_{n-1}:
 *   x_0 = E[t] + P                          token and learned position embedding (n,d)
 *   x_{l+1} = x_l + MHA_l(x_l)              causal attention, no MLP, no norm (l < L)
 *   logits = x_L U                          linear read-out (n,C)
 *   loss = mean over counted positions of cross-entropy(logits_i, target_i)
 *
 *     const struct train_task *task = train_task_find("induction");
 *     struct train_shape s = train_task_shape(task, 0, 0, 0);  // the task's default model
 *     struct train_model m;
 *     train_model_alloc(&m, &s);  train_model_init(&m, seed);
 *     struct trainer *tr;
 *     trainer_create(&tr, &m, task, NULL, seed, msg, sizeof msg);
 *     for (int i = 0; i < task->steps; i++) trainer_step(tr, &stats);
 *     train_evaluate(&m, task, &held_out);      // fixed held-out sequences
 *     trainer_destroy(tr);  train_model_free(&m);
 *
 * Deterministic: the same seed and thread count give bit-identical
 * weights (every sequence's gradient has its own slot, summed in order).
 * Nothing here prints or exits; errors come back as messages.
 */
#ifndef TRAIN_H
#define TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mha.h"

/* d_model at most 256 for training: each of the batch's 16 gradient slots
 * holds every parameter (2.2 MB a slot at 256, 2 layers) */
enum { TRAIN_MAX_LAYERS = 2, TRAIN_MAX_VOCAB = 256, TRAIN_MAX_D = 256 };

/* ---- tasks ---- */

enum train_task_id { TRAIN_PREVIOUS, TRAIN_FIRST, TRAIN_DUPLICATE, TRAIN_MULTI, TRAIN_INDUCTION,
                     TRAIN_TASK_COUNT };

/* Head types the pattern scores measure (TransformerLens-style detector:
 * mean attention weight on the expected key over a probe batch of repeated
 * random sequences, first half r_0..r_{m-1}, second half the same again). */
enum train_pattern {
	TRAIN_PAT_PREVIOUS,  /* P[i][i-1], i >= 1                      */
	TRAIN_PAT_FIRST,     /* P[i][0], i >= 1                        */
	TRAIN_PAT_SELF,      /* P[i][i], i >= 1                        */
	TRAIN_PAT_DUPLICATE, /* P[i][i-m], i in the second half        */
	TRAIN_PAT_INDUCTION, /* P[i][i-m+1], i in the second half      */
	TRAIN_PAT_COUNT
};
const char *train_pattern_name(enum train_pattern p); /* "previous", ... */

struct train_task {
	enum train_task_id id;
	const char *name;      /* on the command line: "previous" */
	const char *what;      /* what is predicted, one line */
	enum train_pattern head; /* the head type that solves it */
	int layer;             /* in which layer that head is expected (0-based) */
	int vocab, classes, tokens, layers, steps; /* the default model and budget */
	float lr;              /* AdamW learning rate */
	double want_accuracy;  /* held-out accuracy the default model reaches in `steps` */
	double want_score;     /* and the expected head's pattern score above this */
	int ablate_steps;      /* --ablate's default budget per model */
};

const struct train_task *train_task_find(const char *name); /* NULL: no such task */
const struct train_task *train_task_get(enum train_task_id id);
/* One sequence of n tokens in [0, vocab) and its targets in [0, classes),
 * -1 where no loss is taken. rng: the caller's stream (advanced). */
void train_task_sample(const struct train_task *t, int n, int vocab, uint64_t *rng,
                       int *tokens, int *targets);
/* Uniform in [0, 2^64), the generator every part of training draws from. */
uint64_t train_rand(uint64_t *state);

/* ---- model ---- */

struct train_shape {
	int layers;  /* L, 1..TRAIN_MAX_LAYERS */
	int d, h, dk; /* per layer: d_model, heads, head size (h * dk = d by default) */
	int vocab, classes, n;
};

/* The task's default shape with overrides (0: keep the default). */
struct train_shape train_task_shape(const struct train_task *t, int layers, int d, int h);
/* MHA_OK or MHA_EINVAL with a message naming what is out of range. */
enum mha_status train_shape_check(const struct train_shape *s, char *msg, size_t len);
/* The same with another vocabulary limit (the language model's, lm.h). */
enum mha_status train_shape_check_limit(const struct train_shape *s, int max_vocab, char *msg, size_t len);

struct train_model {
	struct train_shape s;
	size_t nparams;
	float *params;                 /* every parameter, one array, in the order below */
	float *emb;                    /* (V, d)       token embedding E              */
	float *pos;                    /* (n, d)       position embedding P           */
	float *wq[TRAIN_MAX_LAYERS];   /* (d, h*dk)    per layer, as mha_weights      */
	float *wk[TRAIN_MAX_LAYERS];   /* (d, h*dk)                                   */
	float *wv[TRAIN_MAX_LAYERS];   /* (d, h*dk)                                   */
	float *wo[TRAIN_MAX_LAYERS];   /* (h*dk, d)                                   */
	float *unemb;                  /* (d, C)       read-out U                     */
	bool head_off[TRAIN_MAX_LAYERS][MHA_MAX_HEADS]; /* switched off (pruned) */
};

enum mha_status train_model_alloc(struct train_model *m, const struct train_shape *s);
void train_model_free(struct train_model *m);
/* Seeded: E, P ~ U(-1,1); the W's and U Glorot-uniform. */
void train_model_init(struct train_model *m, uint64_t seed);
/* The configuration of layer l as the core sees it (causal, scale on). */
struct mha_config train_layer_config(const struct train_model *m, int l);
/* Point the tensor fields of a model of shape s at p (nparams floats):
 * how a gradient array reads as tensors. Used by train_model_alloc. */
void train_model_view(struct train_model *v, const struct train_shape *s, float *p);

/* ---- training ---- */

struct train_stats {
	double loss;     /* mean cross-entropy over counted positions */
	double accuracy; /* fraction of counted positions whose argmax is the target */
	long counted;
};

struct train_options {
	int batch;       /* sequences per step, default 16 */
	int threads;     /* workers including the caller, default 1 */
	float beta1, beta2, eps, weight_decay; /* AdamW: 0.9, 0.98, 1e-8, 0.01 */
	float lr;        /* 0: the task's */
};                   /* every field left 0 takes its default */

struct trainer;
/* o may be NULL (defaults). The training data stream is seeded with seed. */
enum mha_status trainer_create(struct trainer **out, struct train_model *m,
                               const struct train_task *t, const struct train_options *o,
                               uint64_t seed, char *msg, size_t len);
void trainer_destroy(struct trainer *tr);
/* One AdamW step on a fresh batch; stats of that batch (before the step). */
void trainer_step(struct trainer *tr, struct train_stats *st);
long trainer_steps(const struct trainer *tr);
/* Gradient norm of each head's W^Q, W^K, W^V blocks and W^O rows in the
 * last step: norms[l * MHA_MAX_HEADS + i]. */
void trainer_head_grad_norms(const struct trainer *tr, double *norms);
/* The same per matrix: the Frobenius norms of head i's slices of the last
 * step's gradient (train_head_slice_norm of it), norms[l * MHA_MAX_HEADS + i]. */
struct train_head_norm { double q, k, v, o, all; };
void trainer_head_grads(const struct trainer *tr, struct train_head_norm *norms);
/* The last step's gradient (nparams floats, summed over the batch, before
 * clipping; read it with train_model_view), or zeros before the first step. */
const float *trainer_last_grad(const struct trainer *tr);
/* The batch the last step drew: tokens and targets (batch, n), row b
 * sequence b, -1 where no loss is taken (zeros before the first step);
 * and the options the trainer runs with (defaults filled in). For an
 * outside check of the loop (tools/compare_torch_train.py). */
void trainer_last_batch(const struct trainer *tr, const int **tokens, const int **targets);
struct train_options trainer_options(const struct trainer *tr);

/* Loss and accuracy on the task's held-out sequences (a fixed seed the
 * training stream never uses), heads switched off as the model says. */
void train_evaluate(const struct train_model *m, const struct train_task *t, int sequences,
                    struct train_stats *st);

/* ---- analysis ---- */

/* scores[(l * MHA_MAX_HEADS + i) * TRAIN_PAT_COUNT + p] over a probe batch
 * of repeated random sequences (seeded, the same every call). */
void train_pattern_scores(const struct train_model *m, double *scores);
/* Importance of head (l, i): held-out loss with it switched off minus the
 * loss with it on. importance[l * MHA_MAX_HEADS + i]. */
void train_head_importance(struct train_model *m, const struct train_task *t,
                           double *importance);
/* Greedy pruning: switch off, one at a time, the head whose removal costs
 * least held-out loss. point k: heads kept, loss, accuracy (k = 0: all on).
 * Returns the number of points (heads + 1). The model's head_off is left
 * as it was. */
struct train_prune_point { int kept; int layer, head; double loss, accuracy; };
int train_prune_curve(struct train_model *m, const struct train_task *t,
                      struct train_prune_point *pts, int max_pts);

/* Add one head's attention weights p (n, n; row q the query) on tokens
 * tok (n) to sum[TRAIN_PAT_COUNT], and to cnt the queries each pattern
 * counted. Queries q >= 1: previous P[q][q-1], first P[q][0], self
 * P[q][q]; queries with an earlier key j < q of the same token: duplicate
 * sum of P[q][j] over those j, induction sum of P[q][j+1] (the key after).
 * Mean score = sum / cnt. */
void train_pattern_accumulate(const float *p, int n, const int *tok, double *sum, double *cnt);
/* The pattern with the highest score at least `clear` among those scored
 * (scored NULL: all); -1 when none. */
int train_pattern_best(const double *scores, const bool *scored, double clear);
/* A best pattern with at least this score is the head's label. */
#define TRAIN_PATTERN_CLEAR 0.5

/* The workbench's layer with any weights (no task, no loss): */
struct train_bench_analysis {
	int h;
	/* mean P over the workbench's own tokens (labels: a repeated label is a
	 * repeated token); scored[p] false: no query counts (no repeats) */
	double score[MHA_MAX_HEADS][TRAIN_PAT_COUNT];
	bool scored[TRAIN_PAT_COUNT];
	int best[MHA_MAX_HEADS];          /* train_pattern_best(score, scored, 0) */
	/* ||Y - Y_without_head|| / ||Y|| (Frobenius; 0 for a head already off,
	 * and for all heads when Y = 0) */
	double importance[MHA_MAX_HEADS];
	int order[MHA_MAX_HEADS];         /* heads by importance, most first (ties: lower index) */
	int rank[MHA_MAX_HEADS];          /* 1 = most important */
	double y_norm;                    /* ||Y|| */
	/* greedy prune from the heads on: each point's loss is ||Y - Y_kept|| /
	 * ||Y||, removing the head that changes Y least (accuracy 0); with no
	 * bias the last point (no head kept, Y_kept = 0) is 1 */
	int points;
	struct train_prune_point prune[MHA_MAX_HEADS + 1];
};
/* MHA_OK or MHA_ENOMEM. c and w are not changed. */
enum mha_status train_bench_analysis(const struct mha_config *c, const struct mha_weights *w,
                                     struct train_bench_analysis *out);
/* The pattern head fits clearly (score >= TRAIN_PATTERN_CLEAR) on the
 * workbench's own P, weights (h, n, n) as mha_forward left them; -1 when
 * none, or the head is off. For a title, without a forward of its own. */
int train_bench_head_pattern(const struct mha_config *c, const struct mha_weights *w,
                             const float *weights, int head);
/* The brief name of pattern p for a narrow title: "prev", "dup", ... */
const char *train_pattern_brief(enum train_pattern p);

/* ---- the heads apart, layer by layer (heads.c) ---- */

/* Frobenius norms of head i's slice of layer l of g (a model, or a
 * gradient read through train_model_view): W^Q[*][i dk .. (i+1) dk - 1],
 * the same columns of W^K and W^V, W^O[i dk .. (i+1) dk - 1][*]; all is
 * the norm of the four together. */
struct train_head_norm train_head_slice_norm(const struct train_model *g, int l, int i);
/* A shared start: every head of every layer becomes a copy of head 0
 * (its W^Q, W^K, W^V columns and W^O rows). Copies get equal gradients,
 * so training keeps them copies: nothing but their start sets heads apart. */
void train_model_share_heads(struct train_model *m);
/* How far apart each layer's heads are: the mean over pairs i < j of
 * ||slice_i - slice_j|| / the mean ||slice_i|| (0: all copies).
 * spread[l], l < TRAIN_MAX_LAYERS (0 for layers the model lacks). */
void train_head_spread(const struct train_model *m, double *spread);
/* How far back a head looks, per query q >= 1 of its weights P (n, n):
 * mean = sum_j P[q][j] (q - j) (1 for a previous-token head, q for a
 * first-token one), and share[b] = the weight on keys at a distance in
 * bucket b: 0, 1, 2-3, 4-7, 8-15, 16-31, 32 and more. */
enum { TRAIN_DIST_BUCKETS = 7 };
struct train_head_distance { double mean, share[TRAIN_DIST_BUCKETS]; };
int train_distance_bucket(int distance); /* 0 -> 0, 1 -> 1, 2..3 -> 2, 4..7 -> 3 ... */
/* Add one head's P (n, n) to *sum, and 1 per query q >= 1 to *cnt
 * (divide by cnt for the means). */
void train_distance_accumulate(const float *p, int n, struct train_head_distance *sum, double *cnt);
/* The means over the probe batch of train_pattern_scores, every head:
 * dist[l * MHA_MAX_HEADS + i]. */
void train_attention_distance(const struct train_model *m, struct train_head_distance *dist);
/* Both in one pass over the probe (either may be NULL). */
void train_probe_measures(const struct train_model *m, double *scores, struct train_head_distance *dist);
/* Several heads as an ensemble: the held-out loss and accuracy with each
 * head of layer l alone (the layer's other heads off; the other layers as
 * they are), alone[i], and with the layer's heads as they are, *all.
 * Two heads doing the same job each nearly solve the task alone and
 * better together; heads with different jobs each fail alone. head_off is
 * put back as it was. */
void train_heads_alone(struct train_model *m, const struct train_task *t, int l, int sequences,
                       struct train_stats *alone, struct train_stats *all);

/* ---- files (doc/TRAINING.md, "Model files") ---- */

/* Write the model as text (version 1) through the one write path
 * (writefile_write: atomic, symlinks followed, never over a file that is
 * not a model); 0 or -1 with msg. */
int train_model_save(const struct train_model *m, const struct train_task *t,
                     const char *path, char *msg, size_t len);
/* Read it back: the model is allocated; *task receives the task. */
int train_model_load(struct train_model *m, const struct train_task **task,
                     const char *path, char *msg, size_t len);
/* The same from text in memory (size bytes, not NUL-terminated); name is
 * used in messages ("name:line: message"). */
int train_model_parse(const char *name, const char *text, size_t size, struct train_model *m,
                      const struct train_task **task, char *msg, size_t len);

/* ---- the workbench ---- */

/* Layer l of the model as a workbench session, on the first probe
 * sequence (repeated random tokens): X is the residual stream entering
 * layer l, W^Q, W^K, W^V, W^O the layer's, heads off as the model says,
 * labels the tokens (a..z, A..Z while V <= 52, else "t5"). c and w are set up here (w allocated:
 * mha_weights_free). MHA_OK, or MHA_ENOMEM / MHA_ERANGE with msg. */
enum mha_status train_layer_workbench(const struct train_model *m, int l, struct mha_config *c,
                                      struct mha_weights *w, char *msg, size_t len);

/* ---- your own Table 3 row (A), a run at a time (ablation.c) ---- */

/* The paper's row (A) (Vaswani et al. 2017, d_model 512, EN-DE dev BLEU):
 * the one place its figures live. */
struct train_paper_point { int h, dk; double bleu; };
enum { TRAIN_PAPER_ROW_A = 5, TRAIN_ABLATE_MAX_H = 11, TRAIN_ABLATE_MAX_SEEDS = 100 };
extern const struct train_paper_point train_paper_row_a[TRAIN_PAPER_ROW_A];

struct train_ablation_row {
	int h;
	int done, solved;      /* seeds finished; of those, at the task's want_accuracy */
	double acc[TRAIN_ABLATE_MAX_SEEDS], loss[TRAIN_ABLATE_MAX_SEEDS]; /* held-out, per seed */
};
struct train_ablation {
	const struct train_task *task;
	int layers, d_model;   /* as asked (0: the task's) */
	int d, seeds, steps, threads;
	uint64_t seed;         /* seeds seed, seed + 1, ... */
	int nh;                /* rows: h = 1, 2, 4, ... dividing d */
	struct train_ablation_row row[TRAIN_ABLATE_MAX_H];
	int k, sd, run_step, runs_done; /* the run under way: row k, seed index sd */
	struct train_model m;
	struct trainer *tr;
};
/* Plan the runs (seeds, steps 0: 5 and the task's ablate_steps); nothing
 * trains yet. MHA_EINVAL with msg for a bad shape. */
enum mha_status train_ablation_start(struct train_ablation *a, const struct train_task *t, int layers,
                                     int d_model, int seeds, int steps, uint64_t seed, int threads,
                                     char *msg, size_t len);
/* Up to max_steps training steps, finishing (evaluating) runs as they end.
 * Returns the steps done, -1 when out of memory. Same seeds, same numbers
 * however the steps are sliced. */
int train_ablation_step(struct train_ablation *a, int max_steps);
bool train_ablation_done(const struct train_ablation *a);
void train_ablation_free(struct train_ablation *a);
/* Mean and sample sd over the row's finished seeds. */
void train_ablation_summary(const struct train_ablation_row *r, double *acc_mean, double *acc_sd,
                            double *loss_mean, double *loss_sd);

#endif
