/*
 * circ_int.h - what the circuits' files share (internal): the model in
 * float64 and its forward pass with hooks, the way TransformerLens's
 * hooked model lets an analysis replace what one head outputs or what one
 * head's query, key or value reads.
 */
#ifndef TRAIN_CIRC_INT_H
#define TRAIN_CIRC_INT_H

#include "circuits.h"

struct circ_model {
	struct train_shape s;
	bool off[TRAIN_MAX_LAYERS][MHA_MAX_HEADS];
	double *emb;                 /* (V, d)    E                     */
	double *pos;                 /* (n, d)    P                     */
	double *wq[TRAIN_MAX_LAYERS]; /* (d, h dk) W^Q, head i: columns i dk .. */
	double *wk[TRAIN_MAX_LAYERS];
	double *wv[TRAIN_MAX_LAYERS];
	double *wo[TRAIN_MAX_LAYERS]; /* (h dk, d) W^O, head i: rows i dk .. */
	double *unemb;               /* (d, C)    U                     */
	double *mem;
};

/* One sequence through the model, every hook point kept. */
struct circ_run {
	double *x;       /* (L+1, n, d)   residual stream x_0 .. x_L               */
	double *pattern; /* (L, h, n, n)  P_i, causal softmax                      */
	double *z;       /* (L, h, n, dk) O_i = P_i V_i, as used (after a hook)     */
	double *write;   /* (L, h, n, d)  O_i W^O_i; 0 for a head switched off      */
	double *qkv;     /* (L, h, 3, n, dk) q, k, v of each head, after the deltas */
	double *logits;  /* (n, C)        x_L U                                    */
	double *tmp;     /* (n, dk)       scratch: a delta's projection            */
	double *mem;
};

/* Interventions; NULL: none. */
struct circ_hooks {
	const double *z[TRAIN_MAX_LAYERS][MHA_MAX_HEADS];   /* (n, dk) replaces O_i */
	/* (n, d) added to x_l where head i of layer l reads its Q, K or V only */
	const double *delta[TRAIN_MAX_LAYERS][MHA_MAX_HEADS][CIRC_INPUTS];
};

enum mha_status circ_run_alloc(struct circ_run *r, const struct circ_model *cm);
void circ_run_free(struct circ_run *r);
/* tokens (n) through the model with hooks hk (NULL: none). base: NULL,
 * or the run of the same tokens without hooks, from which whatever the
 * hooks cannot change is copied instead of computed again (the layers
 * before the first hook, the heads of a layer that are neither hooked nor
 * behind a change): r is then the same as a whole forward, at the cost of
 * the hooked heads and what follows them. */
void circ_forward(const struct circ_model *cm, const int *tokens, const struct circ_hooks *hk,
                  const struct circ_run *base, struct circ_run *r);
/* Over the positions with targets[p] >= 0: add log p(target) to *logp,
 * 1 per argmax = target to *correct (the first largest logit, as the
 * trainer counts), 1 per position to *counted. */
void circ_run_score(const struct circ_model *cm, const struct circ_run *r, const int *targets,
                    double *logp, long *correct, long *counted);
/* Every token of count sequences (count, n) in [0, V) and every target
 * (NULL: none) in [-1, C): what the forward and the scoring may index. */
bool circ_data_fits(const struct circ_model *cm, const int *tokens, const int *targets, int count);
/* Head (l, i)'s block of r->z (n, dk) and of r->write (n, d), of
 * r->pattern (n, n). */
double *circ_run_z(const struct circ_model *cm, const struct circ_run *r, int l, int i);
double *circ_run_write(const struct circ_model *cm, const struct circ_run *r, int l, int i);
double *circ_run_pattern(const struct circ_model *cm, const struct circ_run *r, int l, int i);
/* ... and its q (c = CIRC_Q), k or v (n, dk) */
double *circ_run_qkv(const struct circ_model *cm, const struct circ_run *r, int l, int i, int c);

/* Head i's factors of layer l: Q_i, K_i, V_i (d, dk) copied out of their
 * column blocks, O_i (dk, d) its rows, each row-major and contiguous. */
void circ_head_factors(const struct circ_model *cm, int l, int i, double *q, double *k, double *v,
                       double *o);

/* out->sv (dk, the caller's), rank and norm of A B^T, A and B (d, dk)
 * contiguous: the singular values (linalg.c), sqrt(sum sigma^2), and the
 * count above sigma_1 d CIRC_RANK_TOL. 0, or -1 (no convergence). */
int circ_rank_of(int d, int dk, const double *a, const double *b, struct circ_rank *out);

/* k distinct tokens of [0, vocab) into out (k <= vocab), uniform, by
 * rejection: no table the size of the vocabulary (a language model's is
 * 8192), and k is a repeat block's length. */
void circ_draw_distinct(uint64_t *rng, int vocab, int k, int *out);

/* Standard normal draws from train_rand's stream (Box-Muller). */
double circ_gauss(uint64_t *rng);

#endif
