/*
 * probe.c - the previous-token score and prefix matching of every head of
 * a stack, measured on sequences generated here (probe.h): random filler,
 * then p distinct tokens twice, for each period p, embedded with the
 * caller's token and position features. It checks a hand-built circuit
 * (a previous-token head in one layer, an induction head in the next)
 * without any training; the trained models' figures are src/train's
 * (circ_scores.c), on the same per-query rules. Nothing here changes the
 * weights; no files, no terminal.
 */
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROBE_PERIOD_LO = 2, PROBE_PERIOD_HI = PROBE_PERIOD_LO + MHA_PROBE_PERIODS_MAX - 1 };

enum mha_status mha_probe_alloc(struct mha_probe *pr, const struct mha_config *c)
{
	memset(pr, 0, sizeof *pr);
	if (c->m > 0 || c->n < 1 || c->d < 1)
		return MHA_EINVAL; /* a second sequence has no place in a generated one */
	pr->c = *c;
	pr->x = malloc(sizeof(float) * (size_t)c->n * c->d);
	if (!pr->x || mha_stack_alloc(&pr->stack, c) != MHA_OK) {
		free(pr->x);
		memset(pr, 0, sizeof *pr);
		return MHA_ENOMEM;
	}
	return MHA_OK;
}

void mha_probe_free(struct mha_probe *pr)
{
	if (pr->x)
		mha_stack_free(&pr->stack);
	free(pr->x);
	memset(pr, 0, sizeof *pr);
}

int mha_probe_periods(int n, int vocab, int *period)
{
	int k = 0;
	for (int p = PROBE_PERIOD_LO; p <= PROBE_PERIOD_HI && 2 * p <= n && p <= vocab; p++)
		period[k++] = p;
	return k;
}

/* An integer in 0 .. k-1 (k small: the modulo's bias is below 2^-58). */
static int draw(uint64_t *rng, int k)
{
	return (int)(mha_rand64(rng) % (uint64_t)k);
}

void mha_probe_tokens(int n, int vocab, int p, int b, uint64_t seed, int *tokens)
{
	/* one stream per (seed, period, sequence): a sequence does not depend
	 * on how many others are drawn */
	uint64_t rng = seed ^ ((uint64_t)p << 32) ^ (uint64_t)b * 0xD1B54A32D192ED03ull;
	int f = n - 2 * p, perm[MHA_PROBE_VOCAB_MAX];
	for (int i = 0; i < f; i++)
		tokens[i] = draw(&rng, vocab);
	/* the block: the first p of a Fisher-Yates shuffle of the vocabulary */
	for (int t = 0; t < vocab; t++)
		perm[t] = t;
	for (int t = 0; t < p; t++) {
		int u = t + draw(&rng, vocab - t), tmp = perm[t];
		perm[t] = perm[u];
		perm[u] = tmp;
	}
	for (int t = 0; t < p; t++)
		tokens[f + t] = tokens[f + p + t] = perm[t];
}

/* One head's weights P (n, n; row q the query) on tokens t, added to the
 * sums: prev += P[q,q-1] over q >= 1; ind += sum of P[q,j+1] over earlier
 * j with t_j = t_q, for each query that has one (counted in nind). */
static void accumulate(const float *P, int n, const int *t, double *prev, double *ind, double *nind)
{
	for (int q = 1; q < n; q++) {
		*prev += P[(size_t)q * n + q - 1];
		double s = 0;
		bool seen = false;
		for (int j = 0; j < q; j++)
			if (t[j] == t[q]) {
				s += P[(size_t)q * n + j + 1];
				seen = true;
			}
		if (seen) {
			*ind += s;
			*nind += 1;
		}
	}
}

static enum mha_status fits(const struct mha_probe *pr, const struct mha_config *c,
                            const struct mha_probe_spec *sp, char *msg, size_t len)
{
	const struct mha_config *a = &pr->c;
	if (!pr->x || a->n != c->n || a->d != c->d || a->h != c->h || a->g != c->g || a->dk != c->dk ||
	    a->layers != c->layers || c->m > 0) {
		snprintf(msg, len, "the probe was made for another shape");
		return MHA_EINVAL;
	}
	if (sp->vocab < 2 || sp->vocab > MHA_PROBE_VOCAB_MAX || !sp->tok || !sp->pos ||
	    sp->per_period < 1 || sp->per_period > MHA_PROBE_PER_PERIOD_MAX) {
		snprintf(msg, len, "the probe needs 2..%d token rows, a row for each position and 1..%d "
		         "sequences a period", MHA_PROBE_VOCAB_MAX, MHA_PROBE_PER_PERIOD_MAX);
		return MHA_EINVAL;
	}
	int period[MHA_PROBE_PERIODS_MAX];
	if (mha_probe_periods(c->n, sp->vocab, period) < 2) {
		snprintf(msg, len, "%d tokens and %d token rows allow fewer than two repeat periods: "
		         "give at least 6 tokens and 3 token rows", c->n, sp->vocab);
		return MHA_EINVAL;
	}
	return MHA_OK;
}

enum mha_status mha_probe_run(struct mha_probe *pr, const struct mha_config *c, const struct mha_weights *w,
                              const struct mha_probe_spec *sp, struct mha_probe_scores *out,
                              char *msg, size_t len)
{
	enum mha_status st = fits(pr, c, sp, msg, len);
	if (st != MHA_OK)
		return st;
	if ((st = mha_weights_check(w, c, msg, len)) != MHA_OK)
		return st;
	const int n = c->n, d = c->d, L = c->layers > 1 ? c->layers : 1, h = c->h;
	memset(out, 0, sizeof *out);
	out->layers = L;
	out->heads = h;
	out->nperiods = mha_probe_periods(n, sp->vocab, out->period);
	/* the learner's weights with X in place of theirs (the struct is
	 * copied, the matrices shared and only read) */
	struct mha_weights pw = *w;
	pw.x = pr->x;
	int tok[MHA_MAX_TOKENS];
	double prev[MHA_MAX_LAYERS][MHA_MAX_HEADS] = { { 0 } }, nprev = 0;
	for (int k = 0; k < out->nperiods; k++) {
		double ind[MHA_MAX_LAYERS][MHA_MAX_HEADS] = { { 0 } }, nind[MHA_MAX_LAYERS][MHA_MAX_HEADS] = { { 0 } };
		for (int b = 0; b < sp->per_period; b++) {
			mha_probe_tokens(n, sp->vocab, out->period[k], b, sp->seed, tok);
			/* x_i = tok[t_i] + pos[i] (n, d) */
			for (int i = 0; i < n; i++)
				for (int j = 0; j < d; j++)
					pr->x[(size_t)i * d + j] = sp->tok[tok[i]][j] + sp->pos[i][j];
			mha_stack_forward(c, &pw, &pr->stack);
			for (int l = 0; l < L; l++)
				for (int i = 0; i < h; i++)
					accumulate(pr->stack.layer[l].weights + (size_t)i * n * n, n, tok, &prev[l][i],
					           &ind[l][i], &nind[l][i]);
			nprev += n - 1;
		}
		for (int l = 0; l < L; l++)
			for (int i = 0; i < h; i++)
				out->prefix[l][i][k] = nind[l][i] > 0 ? ind[l][i] / nind[l][i] : 0.0;
	}
	for (int l = 0; l < L; l++)
		for (int i = 0; i < h; i++) {
			out->previous[l][i] = nprev > 0 ? prev[l][i] / nprev : 0.0;
			int worst = 0;
			for (int k = 1; k < out->nperiods; k++)
				if (!(out->prefix[l][i][k] >= out->prefix[l][i][worst]))
					worst = k;
			out->weakest[l][i] = worst;
			out->prefix_min[l][i] = out->prefix[l][i][worst];
		}
	return MHA_OK;
}
