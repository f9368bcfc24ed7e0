/*
 * circuits.h - what each head of a trained model reads and writes, and
 * how two heads in consecutive layers compose (doc/CIRCUITS.md). Row
 * vectors as everywhere in mha-tui (x W); legend as in train.h: n tokens,
 * d d_model, h heads, dk head size, L layers, V vocabulary, C classes.
 *
 * For head i of layer l, with Q_i = the columns i dk .. (i+1) dk - 1 of
 * W^Q (d, dk), likewise K_i, V_i, and O_i = those rows of W^O (dk, d):
 *
 *   W_QK = Q_i K_i^T  (d, d)    score(x_q, x_k) = x_q W_QK x_k^T / sqrt(dk)
 *   W_OV = V_i O_i    (d, d)    attending to x writes x W_OV into the stream
 *   E W_QK E^T (V, V), P W_QK P^T (n, n), E W_OV U (V, C)   the views
 *   copying = sum(lambda) / sum(|lambda|) over the eigenvalues of E W_OV U
 *
 * Everything is float64 (the model's float32 weights read exactly). The
 * whole report, for the command line and for views that only read it:
 *
 *     struct circ_report r;
 *     char msg[MHA_MSG_MAX];
 *     if (circ_report_make(&r, &model, task, NULL, msg, sizeof msg) != MHA_OK) ...
 *     const struct circ_head *hd = circ_report_head(&r, 1, 0);
 *     printf("copying %.3f, prefix matching at 8: %.3f, induction %d\n",
 *            hd->copying, hd->prefix[1], hd->induction);
 *     printf("K-composition L0H1 -> L1H0: %.3f (random: %.3f)\n",
 *            r.comp[0].score[CIRC_K][1 * r.s.h + 0], r.comp[0].baseline.mean[CIRC_K]);
 *     circ_report_free(&r);
 *
 * The parts take their data explicitly (circ_model_make, then
 * circ_head_scores, circ_ablate, circ_patch, circ_lens on sequences the
 * caller chose), which is how tests/train/test_circuits_fixtures.c holds
 * each figure to tools/gen_circuit_fixtures.py's numpy. Nothing here
 * prints, exits or changes the model.
 */
#ifndef TRAIN_CIRCUITS_H
#define TRAIN_CIRCUITS_H

#include "train.h"

/* The three inputs of a head: its queries, keys or values read the stream. */
enum circ_input { CIRC_Q, CIRC_K, CIRC_V, CIRC_INPUTS };
const char *circ_input_name(enum circ_input in); /* "q", "k", "v" */

/* Repeat periods prefix matching is measured at (a period is scored when
 * the model's vocabulary holds that many distinct tokens and its context
 * at least period + 2 tokens). */
enum { CIRC_PERIODS = 7, CIRC_TOP = 5 };
extern const int circ_periods[CIRC_PERIODS]; /* 4, 8, 12, 16, 24, 32, 48 */

/* A head is called induction when it prefix-matches at every scored
 * period, at least CIRC_MIN_PERIODS of them, with a score of at least
 * CIRC_PREFIX_CLEAR, and its copying score is positive. */
#define CIRC_PREFIX_CLEAR TRAIN_PATTERN_CLEAR
enum { CIRC_MIN_PERIODS = 2 };

/* A numeric rank counts singular values above sigma_1 * d * 2^-24 (the
 * float32 weights' rounding, scaled as numpy's matrix_rank scales it). */
#define CIRC_RANK_TOL (1.0 / 16777216.0)

/* ---- the model in float64 ---- */

struct circ_model; /* the model's tensors as doubles, heads switched off as it says */
/* MHA_OK or MHA_ENOMEM. m is copied: it may change or go afterwards. */
enum mha_status circ_model_make(struct circ_model **out, const struct train_model *m);
void circ_model_free(struct circ_model *cm);
const struct train_shape *circ_model_shape(const struct circ_model *cm);

/* ---- what a head reads and writes: its weights alone (circ_weights.c) ---- */

struct circ_rank {
	int rank;     /* singular values above the tolerance (<= dk) */
	double norm;  /* Frobenius norm */
	double *sv;   /* (dk) the largest singular values, descending; the other d - dk are 0 */
};

struct circ_head {
	int layer, head;
	bool off;             /* switched off in the model: it attends but writes nothing */
	struct circ_rank qk, ov;  /* W_QK and W_OV */
	/* The direct path's token map, defined when V = C (tokens in and out
	 * are the same set): copying = sum(lambda) / sum(|lambda|) over the
	 * eigenvalues of E W_OV U, found as those of W^O_i U E W^V_i (dk, dk),
	 * which has the same nonzero eigenvalues (eig(AB) = eig(BA) with
	 * A = E V_i, B = O_i U); own_top = the share of tokens t whose own
	 * logit (E W_OV U)[t][t] is strictly the largest of row t.
	 * NAN for both when V != C (or every eigenvalue is 0). */
	bool token_space;
	double copying, own_top;
	double *eig_re, *eig_im; /* (dk) those eigenvalues, largest |lambda| first */
	/* Attention on probes the training never saw (circ_scores.c):
	 * prefix[p] the induction pattern on sequences of period
	 * circ_periods[p] (a block of distinct random tokens, repeated: the
	 * weight from a repeated token to the token after its earlier copy),
	 * NAN where not scored; previous, first, self, duplicate over every
	 * scored probe together (train_pattern_accumulate's rules). */
	double prefix[CIRC_PERIODS];
	double prefix_min;    /* the lowest scored prefix[p] (NAN: none scored) */
	int periods_scored;
	double previous, first, self, duplicate;
	bool induction;       /* prefix matching across periods and copying > 0 */
};

/* Every head's weight figures: heads[l * h + i] (the prefix and pattern
 * fields are left 0 for circ_head_scores). Allocates each head's arrays:
 * circ_heads_free. MHA_OK, MHA_ENOMEM, or MHA_ERANGE when an eigenvalue
 * problem did not converge (msg says which head). */
enum mha_status circ_heads_make(const struct circ_model *cm, struct circ_head *heads, char *msg,
                                size_t len);
void circ_heads_free(struct circ_head *heads, int count);

/* The matrices themselves, any rows of them (a view that scrolls need not
 * hold a V x V matrix whole). */
enum circ_view {
	CIRC_VIEW_QK,        /* W_QK = Q_i K_i^T        (d, d) */
	CIRC_VIEW_OV,        /* W_OV = V_i O_i          (d, d) */
	CIRC_VIEW_QK_TOKENS, /* E W_QK E^T              (V, V): query token row, key token column */
	CIRC_VIEW_QK_POS,    /* P W_QK P^T              (n, n): query position row, key position column */
	CIRC_VIEW_OV_TOKENS, /* E W_OV U                (V, C): attended token row, logit column */
	CIRC_VIEWS
};
struct circ_view_info { const char *key, *formula; int rows, cols; };
/* key as in the JSON ("W_QK", "E_W_QK_E", ...), formula as written above. */
struct circ_view_info circ_view_info(const struct circ_model *cm, enum circ_view v);
/* Rows row0 .. row0 + rows - 1 of the view of head (l, i) into out (rows,
 * cols). MHA_OK, MHA_EINVAL (out of range), MHA_ENOMEM. */
enum mha_status circ_view_rows(const struct circ_model *cm, int l, int i, enum circ_view v,
                               int row0, int rows, double *out);

/* ---- composition between layer l and l + 1 (circ_weights.c) ---- */

/* For head a of layer l and head b of layer l + 1:
 *   Q: ||W_OV^a W_QK^b|| / (||W_OV^a|| ||W_QK^b||)   a's write read by b's queries
 *   K: ||W_QK^b (W_OV^a)^T|| / (||W_QK^b|| ||W_OV^a||)   ... by b's keys
 *   V: ||W_OV^a W_OV^b|| / (||W_OV^a|| ||W_OV^b||)   ... by b's values
 * (Frobenius norms, computed from the dk-wide factors: no d x d product).
 * The baseline is the same score for random matrices of the same shapes:
 * every factor (V_a, O_a, Q_b, K_b, V_b, O_b) drawn with i.i.d. N(0, 1)
 * entries, so each product has rank dk as a head's does, mean and sample
 * sd over `draws` independent draws. */
struct circ_baseline {
	double mean[CIRC_INPUTS], sd[CIRC_INPUTS];
	int draws;
};
struct circ_composition {
	int layer;                   /* from layer `layer` to layer + 1 */
	double *score[CIRC_INPUTS];  /* (h, h): score[in][a * h + b] */
	struct circ_baseline baseline;
};
/* comp->score arrays allocated here (circ_composition_free); the baseline
 * from `draws` draws of seed CIRC_BASELINE_SEED. MHA_OK, MHA_EINVAL (no
 * layer l + 1), MHA_ENOMEM. */
enum mha_status circ_composition_make(const struct circ_model *cm, int l, int draws,
                                      struct circ_composition *comp);
void circ_composition_free(struct circ_composition *comp);
#define CIRC_BASELINE_SEED 0x636f6d706f7365ULL /* "compose" */
/* The baseline for d and dk, seeded (the same draws every call). */
void circ_baseline_draw(int d, int dk, int draws, uint64_t seed, struct circ_baseline *out);

/* ---- head scores on probes (circ_scores.c) ---- */

/* count sequences of n tokens into tokens (count, n): a block of `period`
 * distinct tokens drawn from [0, vocab), repeated to the end. false (and
 * nothing written) when the period is not scored for this n and vocab. */
bool circ_probe_period(int n, int vocab, int period, int count, uint64_t seed, int *tokens);
/* The mean pattern scores of every head over count sequences (count, n):
 * scores[(l * h + i) * TRAIN_PAT_COUNT + p] (train_pattern_accumulate's
 * rules); with sums and counts for pooling: sum and cnt (same shape) get
 * added to when not NULL. MHA_OK, MHA_ENOMEM, or MHA_EINVAL for a token
 * outside [0, V) (here and wherever sequences are given; a target must be
 * -1 or in [0, C)). */
enum mha_status circ_patterns(const struct circ_model *cm, const int *tokens, int count,
                              double *scores, double *sum, double *cnt);
/* Fill every head's prefix and pattern fields and the induction call from
 * the probes circ_probe_period draws (count sequences a period, seeded):
 * circ_heads_make first (copying decides the call). */
enum mha_status circ_head_scores(const struct circ_model *cm, int count, uint64_t seed,
                                 struct circ_head *heads);

/* ---- ablation and patching (circ_patch.c) ---- */

enum circ_ablation { CIRC_ZERO, CIRC_MEAN, CIRC_RESAMPLE, CIRC_ABLATIONS };
const char *circ_ablation_name(enum circ_ablation k); /* "zero", "mean", "resample" */

/* On count sequences with their targets (-1: no loss there), each head's
 * output O_i (n, dk) replaced, in every sequence, by
 *   zero: 0;  mean: its mean over the count sequences at the same
 *   position;  resample: its value on the next sequence (s + 1 mod count);
 * and each path from a head a of layer l to the whole of layer l + 1
 * through one input: a's write O_a W^O_a replaced in that input only
 * (the other inputs, the later layers' residual and the read-out keep it).
 * loss: mean cross-entropy; accuracy: share of argmax = target. */
struct circ_ablation_result {
	int sequences;
	struct train_stats clean;
	struct train_stats *head;  /* (L h, ABLATIONS): [(l h + i) * ABLATIONS + k] */
	struct train_stats *path;  /* ((L-1) h, INPUTS, ABLATIONS): [((l h + a) * INPUTS + in) * ABLATIONS + k] */
};
enum mha_status circ_ablate(const struct circ_model *cm, const int *tokens, const int *targets,
                            int count, struct circ_ablation_result *out);
void circ_ablation_free(struct circ_ablation_result *r);

/* Activation and path patching on count pairs (clean (count, n), corrupt
 * (count, n), targets (count, n): the clean run's answers, -1 where none
 * is scored). m(run) = the mean over every scored position of every pair
 * of log p(target), and
 *     restored = (m(patched) - m(corrupt)) / (m(clean) - m(corrupt))
 * (0: nothing of the clean answer came back, 1: all of it; NAN when
 * |m(clean) - m(corrupt)| < CIRC_PATCH_MIN_GAP nats: the corruption
 * changed too little for a share of it to mean anything, and no path is
 * named). Patched runs are the corrupt one with
 *   head (l, i): O_i replaced by the clean run's;
 *   path a -> b through input in: the receiver b in layer l + 1 (or every
 *     head of it: b = h) reads, through `in` only, the corrupt stream with
 *     a's write replaced by the clean run's; nothing else changes. */
#define CIRC_PATCH_MIN_GAP 0.1
struct circ_outcome { double log_prob, accuracy, restored; };
struct circ_patching {
	int pairs;
	long counted;                    /* scored positions over all pairs */
	struct circ_outcome clean, corrupt;
	struct circ_outcome *head;       /* (L h): [l h + i] */
	struct circ_outcome *path;       /* ((L-1) h, h + 1, INPUTS): [((l h + a) (h + 1) + b) * INPUTS + in] */
	/* the path into a whole layer that restores most: sender, input, share */
	int named_layer, named_head;     /* -1: none (one layer, or nothing restored) */
	enum circ_input named_input;
	double named_restored;
};
enum mha_status circ_patch(const struct circ_model *cm, const int *clean, const int *corrupt,
                           const int *targets, int count, struct circ_patching *out);
void circ_patching_free(struct circ_patching *p);
/* Pairs for the task, seeded. induction (or t NULL: any model can be given
 * repeated random tokens): a block of m distinct tokens (m drawn from
 * n/4 .. n/2, as the task draws it) repeated; the corrupt copy changes the
 * block's first occurrence at every even position j < m - 1 to a token
 * outside the block, and the scored positions are j + m (whose answer, the
 * token at j + 1, stands unchanged in both): only matching the current
 * token against an earlier "previous token" finds it. Other tasks: a clean
 * and a corrupt sequence drawn independently, scored at the clean one's
 * targets. */
void circ_pairs_make(const struct train_task *t, int n, int vocab, int count, uint64_t seed,
                     int *clean, int *corrupt, int *targets);

/* ---- logit lens and direct logit attribution (circ_lens.c) ---- */

/* The read-out U applied to one position's vectors: the residual stream
 * x_l after each layer (x_0: the embeddings), and what went into it: E[t]
 * and P[p] and each head's write. With no bias and no norm these add up:
 * logits(x_L) = embed + pos + sum of the heads' (tested). */
struct circ_lens_entry {
	double *logits;       /* (C) */
	double target_logit;  /* NAN with no target */
	int target_rank;      /* 1 = the largest logit; 0 with no target */
	int top[CIRC_TOP];    /* classes with the largest logits, largest first */
};
struct circ_lens {
	int position, target; /* target -1: none */
	int *tokens;          /* (n) the sequence */
	struct circ_lens_entry resid[TRAIN_MAX_LAYERS + 1], embed, pos;
	struct circ_lens_entry *head; /* (L h) */
};
enum mha_status circ_lens(const struct circ_model *cm, const int *tokens, int position, int target,
                          struct circ_lens *out);
void circ_lens_free(struct circ_lens *lens);

/* ---- the workbench's one layer (circ_bench.c) ---- */

/* Any weights the workbench holds (GQA, biases, heads off; no E, P or U):
 * head i's write into Y, C_i = O_i W^O_i (n, d), its rows i dk .. of W^O,
 * with Y = sum_i C_i (+ b^O) (concat then W^O is a sum of heads), and its
 * two circuits with kv head j = mha_kv_head(c, i):
 *   W_QK = W^Q_i (W^K_j)^T, W_OV = W^V_j W^O_i   (d, d, rank <= dk)
 * (biases left out: with b^Q and b^K the scores gain terms linear in x).
 * Without biases S_i = X W_QK X^T * s (s = 1/sqrt(dk), or 1 with
 * --no-scale), which the tests check against the forward's scores. */
struct circ_bench {
	int h, n, d, dk;
	double *write;        /* (h, n, d) C_i; 0 for a head switched off */
	double sum_error;     /* max over cells of |sum_i C_i (+ b^O) - Y|, Y the forward's (float) */
	double y_max;         /* max |Y|, the scale sum_error is read against */
	struct circ_rank *qk, *ov; /* (h) */
	void *mem;
};
/* a: the forward's activations for c and w. MHA_OK, MHA_ENOMEM. */
enum mha_status circ_bench_make(const struct mha_config *c, const struct mha_weights *w,
                                const struct mha_acts *a, struct circ_bench *out);
void circ_bench_free(struct circ_bench *b);
/* Rows row0 .. row0 + rows - 1 of head i's W_QK (v = CIRC_VIEW_QK) or
 * W_OV (CIRC_VIEW_OV) into out (rows, d): one head at a time, as a
 * d_model of 1024 makes the matrices 8 MiB each. MHA_OK, MHA_EINVAL. */
enum mha_status circ_bench_view_rows(const struct mha_config *c, const struct mha_weights *w, int i,
                                     enum circ_view v, int row0, int rows, double *out);

/* ---- the whole report (circ_report.c) ---- */

struct circ_options {
	int probe_sequences;    /* a period; default 32 */
	int ablation_sequences; /* the task's held-out sequences; default 64 */
	int pairs;              /* patching pairs; default 32 */
	int baseline_draws;     /* default 256 */
	int position;           /* the logit lens's position on the first held-out sequence;
	                         * -1: the last position with a target */
	/* The held-out sequences (sequences, n) and their targets for the
	 * ablations and the lens, or NULL: the task's (train_heldout_seed). A
	 * language model gives windows of its held-out text here, each target
	 * the next token; the report keeps no pointer to them. */
	const int *tokens, *targets;
	int sequences;
};
#define CIRC_OPTIONS_DEFAULT { 32, 64, 32, 256, -1, NULL, NULL, 0 }

struct circ_report {
	struct train_shape s;
	const struct train_task *task;  /* NULL for a model with no task (the language model) */
	char task_name[32];             /* the task's name, or "lm" */
	struct circ_options o;
	struct circ_head *heads;        /* (L h): circ_report_head */
	/* every view of every head, [(l h + i) * CIRC_VIEWS + v], NULL where
	 * the view has more than CIRC_VIEW_MAX elements (circ_view_rows gives
	 * any rows of it) */
	double **views;
	int ncomp;                      /* L - 1 */
	struct circ_composition comp[TRAIN_MAX_LAYERS > 1 ? TRAIN_MAX_LAYERS - 1 : 1];
	struct circ_ablation_result ablation;
	struct circ_patching patching;
	int *pair_clean, *pair_corrupt, *pair_targets; /* (pairs, n) each */
	struct circ_lens lens;          /* on the first held-out sequence */
	struct circ_model *cm;
};
enum { CIRC_VIEW_MAX = 65536 };
/* Everything above for the model with the default data: probes from fixed
 * seeds, the task's held-out sequences (or o->tokens), circ_pairs_make's
 * pairs. o NULL: defaults (0 fields too). t may be NULL when o->tokens is
 * given: then the pairs are repeated random tokens and the name "lm". MHA_OK, or with msg MHA_ENOMEM, MHA_EINVAL (a
 * position outside the context) or MHA_ERANGE (an eigenvalue that did not
 * converge; a task whose answers the model's classes cannot hold). */
enum mha_status circ_report_make(struct circ_report *r, const struct train_model *m,
                                 const struct train_task *t, const struct circ_options *o,
                                 char *msg, size_t len);
void circ_report_free(struct circ_report *r);
const struct circ_head *circ_report_head(const struct circ_report *r, int l, int i);

#endif
