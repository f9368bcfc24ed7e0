/*
 * probe.h - how the heads of a stack attend on sequences the program
 * generates (probe.c): the previous-token score of every head and its
 * prefix matching (the induction pattern) at several repeat periods, for
 * the weights a learner built by hand. Legend as in mha.h: n tokens, d
 * d_model, h heads, L layers, V the vocabulary of the token features.
 *
 * Each generated sequence, for a period p, is n - 2p random tokens and
 * then p distinct random tokens twice (a repeated half when p = n/2):
 *
 *     f_0 .. f_{n-2p-1}  b_0 .. b_{p-1}  b_0 .. b_{p-1}
 *
 * and is embedded as the workbench's X is: x_i = tok[t_i] + pos[i]. The
 * weights are the caller's (every layer's W's, the configuration's mask,
 * scale and positions); only X changes. Scores, over the queries q >= 1
 * of every sequence (the training screen's rules, doc/CIRCUITS.md):
 *
 *     previous = mean P[q, q-1]
 *     prefix(p) = mean over queries with an earlier j < q, t_j = t_q,
 *                 of sum over those j of P[q, j+1]   (period p's sequences)
 *
 * A head that attends a fixed distance back matches one period only; one
 * that finds the token after the earlier copy matches them all, so the
 * figure that counts is the weakest period's. Usage:
 *
 *     struct mha_probe pr;
 *     mha_probe_alloc(&pr, &cfg);
 *     struct mha_probe_spec sp = { .vocab = 4, .tok = rows, .pos = pos_rows, .seed = 7, .per_period = 8 };
 *     struct mha_probe_scores *sc = malloc(sizeof *sc);
 *     if (mha_probe_run(&pr, &cfg, &w, &sp, sc, msg, sizeof msg) == MHA_OK)
 *         printf("%.2f\n", sc->prefix_min[1][0]);
 *     mha_probe_free(&pr);
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdint.h>

#include "mha.h"

enum {
	MHA_PROBE_PERIODS_MAX = 8, /* periods 2 .. 9 at most */
	MHA_PROBE_VOCAB_MAX = 64,  /* rows of token features */
	MHA_PROBE_PER_PERIOD_MAX = 64,
};

/* What the sequences are made of: V token feature rows and n position
 * rows, each d wide (tok[t] is token t's; pos[i] position i's). */
struct mha_probe_spec {
	int vocab;
	const float *const *tok;  /* (V) rows of d */
	const float *const *pos;  /* (n) rows of d */
	uint64_t seed;
	int per_period;           /* sequences for each period */
};

struct mha_probe_scores {
	int layers, heads;
	int nperiods;
	int period[MHA_PROBE_PERIODS_MAX];   /* 2 .. min(n/2, V) */
	double previous[MHA_MAX_LAYERS][MHA_MAX_HEADS];
	double prefix[MHA_MAX_LAYERS][MHA_MAX_HEADS][MHA_PROBE_PERIODS_MAX];
	double prefix_min[MHA_MAX_LAYERS][MHA_MAX_HEADS]; /* the weakest period's */
	int weakest[MHA_MAX_LAYERS][MHA_MAX_HEADS];       /* its index into period */
};

/* Room for one sequence's X and every layer's intermediates. MHA_EINVAL
 * with cross-attention (m > 0: a generated sequence has no second one),
 * MHA_ENOMEM; either way pr is left empty (mha_probe_free is safe). */
struct mha_probe {
	struct mha_config c;    /* the shape it was allocated for */
	float *x;               /* (n, d) */
	struct mha_stack stack;
};
enum mha_status mha_probe_alloc(struct mha_probe *pr, const struct mha_config *c);
void mha_probe_free(struct mha_probe *pr);

/* The periods scored for n tokens and V token rows: 2 .. min(n/2, V, 9). */
int mha_probe_periods(int n, int vocab, int *period);
/* Sequence b of period p (0 <= b < per_period) for seed: n tokens in 0..V-1. */
void mha_probe_tokens(int n, int vocab, int p, int b, uint64_t seed, int *tokens);

/* Score every head of c's layers with w's weights on the generated
 * sequences. MHA_EINVAL with msg when the spec does not fit c (fewer than
 * two periods, rows missing), MHA_ERANGE when the weights are not finite. */
enum mha_status mha_probe_run(struct mha_probe *pr, const struct mha_config *c, const struct mha_weights *w,
                              const struct mha_probe_spec *sp, struct mha_probe_scores *out,
                              char *msg, size_t len);

#endif
