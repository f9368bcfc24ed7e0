/*
 * circ_patch.c - taking heads out and putting the clean run's parts back
 * (circuits.h): zero, mean and resample ablation of each head's output
 * and of each path from a head into one input (Q, K or V) of the next
 * layer; activation patching of each head's output and path patching
 * from a head into one input of one later head (or of the whole later
 * layer), as the share of the clean answer's log-probability that comes
 * back; and the clean / corrupt pairs the report runs them on. Every run
 * is the hooked float64 forward of circ_model.c, looped sequence by
 * sequence so that nothing grows with the data set but the results.
 */
#include "circ_int.h"
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *circ_ablation_name(enum circ_ablation k)
{
	static const char *names[CIRC_ABLATIONS] = { "zero", "mean", "resample" };
	return (unsigned)k < CIRC_ABLATIONS ? names[k] : "?";
}

/* Running totals of one intervention over the data set. */
struct tally {
	double logp;
	long correct, counted;
};

static void tally_run(const struct circ_model *cm, struct circ_run *r, const int *targets,
                      struct tally *t)
{
	circ_run_score(cm, r, targets, &t->logp, &t->correct, &t->counted);
}

static struct train_stats tally_stats(const struct tally *t)
{
	struct train_stats st = { 0 };
	st.counted = t->counted;
	if (t->counted) {
		st.loss = -t->logp / (double)t->counted;
		st.accuracy = (double)t->correct / (double)t->counted;
	}
	return st;
}

/* Three runs: the one measured, the one it is compared with, the hooked
 * one. false when out of memory (all freed). */
static bool runs_alloc(const struct circ_model *cm, struct circ_run run[3])
{
	memset(run, 0, 3 * sizeof *run);
	for (int k = 0; k < 3; k++)
		if (circ_run_alloc(&run[k], cm) != MHA_OK) {
			while (k-- > 0)
				circ_run_free(&run[k]);
			return false;
		}
	return true;
}

static void runs_free(struct circ_run run[3])
{
	for (int k = 0; k < 3; k++)
		circ_run_free(&run[k]);
}

/* ---- ablation ---- */

enum mha_status circ_ablate(const struct circ_model *cm, const int *tokens, const int *targets,
                            int count, struct circ_ablation_result *out)
{
	const struct train_shape *s = &cm->s;
	const int n = s->n, h = s->h, L = s->layers, heads = L * h, senders = (L - 1) * h;
	const size_t ndk = (size_t)n * s->dk, nd = (size_t)n * s->d;
	memset(out, 0, sizeof *out);
	if (!circ_data_fits(cm, tokens, targets, count))
		return MHA_EINVAL;
	out->sequences = count;
	out->head = calloc((size_t)heads * CIRC_ABLATIONS, sizeof *out->head);
	out->path = calloc((size_t)(senders > 0 ? senders : 1) * CIRC_INPUTS * CIRC_ABLATIONS,
	                   sizeof *out->path);
	struct tally *th = calloc((size_t)heads * CIRC_ABLATIONS + (size_t)(senders > 0 ? senders : 1) *
	                          CIRC_INPUTS * CIRC_ABLATIONS + 1, sizeof *th);
	// the means of every head's O_i and write per position, zeros, and the deltas
	double *mem = calloc((size_t)heads * (ndk + nd) + ndk + nd, sizeof(double));
	struct circ_run run[3];
	bool ok = out->head && out->path && th && mem && count >= 1 && runs_alloc(cm, run);
	if (!ok) {
		free(th);
		free(mem);
		circ_ablation_free(out);
		return MHA_ENOMEM;
	}
	struct circ_run base = run[0], next = run[1], hooked = run[2];
	struct tally *tp = th + (size_t)heads * CIRC_ABLATIONS, *tc = tp + (size_t)(senders > 0 ? senders : 1) *
	                   CIRC_INPUTS * CIRC_ABLATIONS;
	double *zmean = mem, *wmean = zmean + (size_t)heads * ndk, *zero = wmean + (size_t)heads * nd;
	double *delta = zero + ndk;
	// pass 1: the means over the data set, position by position
	for (int b = 0; b < count; b++) {
		circ_forward(cm, tokens + (size_t)b * n, NULL, NULL, &base);
		for (int k = 0; k < heads; k++) {
			const double *z = circ_run_z(cm, &base, k / h, k % h), *w = circ_run_write(cm, &base, k / h, k % h);
			for (size_t e = 0; e < ndk; e++)
				zmean[(size_t)k * ndk + e] += z[e] / count;
			for (size_t e = 0; e < nd; e++)
				wmean[(size_t)k * nd + e] += w[e] / count;
		}
	}
	// pass 2: each sequence clean, then with each intervention; next holds
	// sequence b + 1's run, the resample source
	circ_forward(cm, tokens, NULL, NULL, &next);
	for (int b = 0; b < count; b++) {
		const int *tok = tokens + (size_t)b * n, *tgt = targets + (size_t)b * n;
		struct circ_run swap = base;
		base = next;
		next = swap;
		circ_forward(cm, tokens + (size_t)((b + 1) % count) * n, NULL, NULL, &next);
		tally_run(cm, &base, tgt, tc);
		for (int k = 0; k < heads; k++) {
			int l = k / h, i = k % h;
			const double *repl[CIRC_ABLATIONS] = { zero, zmean + (size_t)k * ndk, circ_run_z(cm, &next, l, i) };
			for (int a = 0; a < CIRC_ABLATIONS; a++) {
				struct circ_hooks hk;
				memset(&hk, 0, sizeof hk);
				hk.z[l][i] = repl[a];
				circ_forward(cm, tok, &hk, &base, &hooked);
				tally_run(cm, &hooked, tgt, &th[(size_t)k * CIRC_ABLATIONS + a]);
			}
		}
		// paths: receivers read, through one input, the stream with a's write
		// replaced: delta = replacement - a's write on this sequence
		for (int k = 0; k < senders; k++) {
			int l = k / h, i = k % h;
			const double *w = circ_run_write(cm, &base, l, i);
			const double *repl[CIRC_ABLATIONS] = { NULL, wmean + (size_t)k * nd, circ_run_write(cm, &next, l, i) };
			for (int a = 0; a < CIRC_ABLATIONS; a++) {
				for (size_t e = 0; e < nd; e++)
					delta[e] = (repl[a] ? repl[a][e] : 0.0) - w[e];
				for (int in = 0; in < CIRC_INPUTS; in++) {
					struct circ_hooks hk;
					memset(&hk, 0, sizeof hk);
					for (int j = 0; j < h; j++)
						hk.delta[l + 1][j][in] = delta;
					circ_forward(cm, tok, &hk, &base, &hooked);
					tally_run(cm, &hooked, tgt, &tp[((size_t)k * CIRC_INPUTS + in) * CIRC_ABLATIONS + a]);
				}
			}
		}
	}
	out->clean = tally_stats(tc);
	for (size_t e = 0; e < (size_t)heads * CIRC_ABLATIONS; e++)
		out->head[e] = tally_stats(&th[e]);
	for (size_t e = 0; e < (size_t)senders * CIRC_INPUTS * CIRC_ABLATIONS; e++)
		out->path[e] = tally_stats(&tp[e]);
	run[0] = base; /* swapped above: free each buffer once */
	run[1] = next;
	runs_free(run);
	free(th);
	free(mem);
	return MHA_OK;
}

void circ_ablation_free(struct circ_ablation_result *r)
{
	free(r->head);
	free(r->path);
	r->head = NULL;
	r->path = NULL;
}

/* ---- patching ---- */

static double restored(double m, double clean, double corrupt)
{
	return fabs(clean - corrupt) < CIRC_PATCH_MIN_GAP ? NAN : (m - corrupt) / (clean - corrupt);
}

enum mha_status circ_patch(const struct circ_model *cm, const int *clean, const int *corrupt,
                           const int *targets, int count, struct circ_patching *out)
{
	const struct train_shape *s = &cm->s;
	const int n = s->n, h = s->h, L = s->layers, heads = L * h, senders = (L - 1) * h;
	const size_t nd = (size_t)n * s->d;
	const size_t npath = (size_t)(senders > 0 ? senders : 1) * (h + 1) * CIRC_INPUTS;
	memset(out, 0, sizeof *out);
	if (!circ_data_fits(cm, clean, targets, count) || !circ_data_fits(cm, corrupt, NULL, count))
		return MHA_EINVAL;
	out->pairs = count;
	out->named_layer = out->named_head = -1;
	out->head = calloc((size_t)heads, sizeof *out->head);
	out->path = calloc(npath, sizeof *out->path);
	struct tally *t = calloc((size_t)heads + npath + 2, sizeof *t);
	double *delta = malloc(sizeof(double) * nd);
	struct circ_run run[3];
	if (!out->head || !out->path || !t || !delta || !runs_alloc(cm, run)) {
		free(t);
		free(delta);
		circ_patching_free(out);
		return MHA_ENOMEM;
	}
	struct circ_run *rc = &run[0], *rx = &run[1], *hooked = &run[2];
	struct tally *th = t, *tp = t + heads, *tc = tp + npath, *tx = tc + 1;
	for (int b = 0; b < count; b++) {
		const int *tgt = targets + (size_t)b * n, *xtok = corrupt + (size_t)b * n;
		circ_forward(cm, clean + (size_t)b * n, NULL, NULL, rc);
		circ_forward(cm, xtok, NULL, NULL, rx);
		tally_run(cm, rc, tgt, tc);
		tally_run(cm, rx, tgt, tx);
		// activation patching: the corrupt run with head (l, i)'s O_i from the clean run
		for (int k = 0; k < heads; k++) {
			struct circ_hooks hk;
			memset(&hk, 0, sizeof hk);
			hk.z[k / h][k % h] = circ_run_z(cm, rc, k / h, k % h);
			circ_forward(cm, xtok, &hk, rx, hooked);
			tally_run(cm, hooked, tgt, &th[k]);
		}
		// path patching: receiver b (or all, b = h) of layer l + 1 reads,
		// through one input, the corrupt stream + (clean - corrupt) write of a
		for (int k = 0; k < senders; k++) {
			int l = k / h, a = k % h;
			const double *wc = circ_run_write(cm, rc, l, a), *wx = circ_run_write(cm, rx, l, a);
			for (size_t e = 0; e < nd; e++)
				delta[e] = wc[e] - wx[e];
			for (int r = 0; r <= h; r++)
				for (int in = 0; in < CIRC_INPUTS; in++) {
					struct circ_hooks hk;
					memset(&hk, 0, sizeof hk);
					for (int j = 0; j < h; j++)
						if (r == h || j == r)
							hk.delta[l + 1][j][in] = delta;
					circ_forward(cm, xtok, &hk, rx, hooked);
					tally_run(cm, hooked, tgt, &tp[((size_t)k * (h + 1) + r) * CIRC_INPUTS + in]);
				}
		}
	}
	out->counted = tc->counted;
	if (tc->counted) {
		double c = tc->logp / tc->counted, x = tx->logp / tx->counted;
		out->clean = (struct circ_outcome){ c, (double)tc->correct / tc->counted, 1 };
		out->corrupt = (struct circ_outcome){ x, (double)tx->correct / tx->counted, 0 };
		if (isnan(restored(c, c, x)))
			out->clean.restored = out->corrupt.restored = NAN;
		for (size_t e = 0; e < (size_t)heads + npath; e++) {
			struct circ_outcome *o = e < (size_t)heads ? &out->head[e] : &out->path[e - heads];
			double m = t[e].logp / t[e].counted;
			*o = (struct circ_outcome){ m, (double)t[e].correct / t[e].counted, restored(m, c, x) };
		}
		if (senders == 0)
			memset(out->path, 0, sizeof *out->path * npath);
		// the named path: into a whole layer (b = h), the one restoring most
		for (int k = 0; k < senders; k++)
			for (int in = 0; in < CIRC_INPUTS; in++) {
				double r = out->path[((size_t)k * (h + 1) + h) * CIRC_INPUTS + in].restored;
				if (!isnan(r) && r > 0 && (out->named_layer < 0 || r > out->named_restored)) {
					out->named_layer = k / h;
					out->named_head = k % h;
					out->named_input = (enum circ_input)in;
					out->named_restored = r;
				}
			}
	}
	runs_free(run);
	free(t);
	free(delta);
	return MHA_OK;
}

void circ_patching_free(struct circ_patching *p)
{
	free(p->head);
	free(p->path);
	p->head = NULL;
	p->path = NULL;
}

/* ---- the pairs ---- */

enum { PAIR_CORRUPT_STREAM = 0x636f7272 }; /* "corr" */

void circ_pairs_make(const struct train_task *t, int n, int vocab, int count, uint64_t seed,
                     int *clean, int *corrupt, int *targets)
{
	uint64_t rng = seed, rng2 = seed ^ PAIR_CORRUPT_STREAM;
	for (int b = 0; b < count; b++) {
		int *c = clean + (size_t)b * n, *x = corrupt + (size_t)b * n, *tg = targets + (size_t)b * n;
		int lo = n / 4 > 1 ? n / 4 : 1, hi = n / 2 > lo ? n / 2 : lo;
		int m = lo + (int)(train_rand(&rng) % (uint64_t)(hi - lo + 1));
		// room for the block and a fresh token for each even position of it
		bool induction = (!t || t->id == TRAIN_INDUCTION) && m >= 2 && m + (m + 1) / 2 <= vocab;
		if (!induction && !t) { /* too few tokens for the design: no pair scored */
			for (int i = 0; i < n; i++) {
				c[i] = x[i] = (int)(train_rand(&rng) % (uint64_t)vocab);
				tg[i] = -1;
			}
			continue;
		}
		if (!induction) {
			int scratch[MHA_MAX_TOKENS];
			train_task_sample(t, n, vocab, &rng, c, tg);
			train_task_sample(t, n, vocab, &rng2, x, scratch);
			continue;
		}
		// m + (m - 1 + 1) / 2 distinct tokens: the block, then one fresh token
		// for each even position j < m - 1
		int pool[MHA_MAX_TOKENS + MHA_MAX_TOKENS / 2];
		circ_draw_distinct(&rng, vocab, m + m / 2, pool);
		for (int i = 0; i < n; i++) {
			c[i] = x[i] = pool[i % m];
			tg[i] = -1;
		}
		// even j < m - 1 of the first copy get a token from outside the
		// block; scored: j + m, whose answer is the token at j + 1
		for (int j = 0, f = m; j + 1 < m; j += 2, f++) {
			x[j] = pool[f];
			if (j + m + 1 < n)
				tg[j + m] = c[j + m + 1];
		}
	}
}
