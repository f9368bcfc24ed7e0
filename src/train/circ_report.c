/*
 * circ_report.c - every circuit figure of one model, with the data the
 * report fixes (circuits.h): probes of each period from their own seed,
 * the task's held-out sequences (which training never draws) for the
 * ablations and the lens, circ_pairs_make's clean / corrupt pairs for
 * patching. The command line prints it (circ_command.c); a view reads it.
 * It computes nothing itself: each figure is its module's.
 */
#include "circ_int.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CIRC_PROBE_SEED 0x7072656669784dULL /* "prefixM" */
#define CIRC_PAIRS_SEED 0x7061697273ULL     /* "pairs" */

const struct circ_head *circ_report_head(const struct circ_report *r, int l, int i)
{
	if (l < 0 || l >= r->s.layers || i < 0 || i >= r->s.h)
		return NULL;
	return &r->heads[l * r->s.h + i];
}

static int pick(int given, int fallback)
{
	return given > 0 ? given : fallback;
}

enum mha_status circ_report_make(struct circ_report *r, const struct train_model *m,
                                 const struct train_task *t, const struct circ_options *o,
                                 char *msg, size_t len)
{
	const struct circ_options def = CIRC_OPTIONS_DEFAULT;
	memset(r, 0, sizeof *r);
	r->s = m->s;
	r->task = t;
	snprintf(r->task_name, sizeof r->task_name, "%s", t ? t->name : "lm");
	r->o = def;
	if (o && !t && !o->tokens) {
		snprintf(msg, len, "a model with no task needs its held-out sequences given");
		return MHA_EINVAL;
	}
	if (o) {
		r->o.probe_sequences = pick(o->probe_sequences, def.probe_sequences);
		r->o.ablation_sequences = pick(o->ablation_sequences, def.ablation_sequences);
		r->o.pairs = pick(o->pairs, def.pairs);
		r->o.baseline_draws = pick(o->baseline_draws, def.baseline_draws);
		r->o.position = o->position;
		r->o.tokens = o->tokens;
		r->o.targets = o->targets;
		r->o.sequences = o->sequences;
	}
	if (!o && !t) {
		snprintf(msg, len, "a model with no task needs its held-out sequences given");
		return MHA_EINVAL;
	}
	const struct train_shape *s = &m->s;
	const int n = s->n, heads = s->layers * s->h;
	if (r->o.position >= n) {
		snprintf(msg, len, "position %d is outside the context: allowed 0..%d", r->o.position, n - 1);
		return MHA_EINVAL;
	}
	enum mha_status st = circ_model_make(&r->cm, m);
	if (st != MHA_OK)
		goto oom;
	r->heads = calloc((size_t)heads, sizeof *r->heads);
	r->views = calloc((size_t)heads * CIRC_VIEWS, sizeof *r->views);
	if (!r->heads || !r->views)
		goto oom;
	st = circ_heads_make(r->cm, r->heads, msg, len);
	if (st != MHA_OK) {
		circ_report_free(r);
		return st;
	}
	for (int k = 0; k < heads; k++)
		for (int v = 0; v < CIRC_VIEWS; v++) {
			struct circ_view_info vi = circ_view_info(r->cm, (enum circ_view)v);
			if ((size_t)vi.rows * vi.cols > CIRC_VIEW_MAX)
				continue;
			double **p = &r->views[k * CIRC_VIEWS + v];
			*p = malloc(sizeof(double) * (size_t)vi.rows * vi.cols);
			if (!*p || circ_view_rows(r->cm, k / s->h, k % s->h, (enum circ_view)v, 0, vi.rows, *p) != MHA_OK)
				goto oom;
		}
	if (circ_head_scores(r->cm, r->o.probe_sequences, CIRC_PROBE_SEED, r->heads) != MHA_OK)
		goto oom;
	r->ncomp = s->layers - 1;
	for (int l = 0; l < r->ncomp; l++)
		if (circ_composition_make(r->cm, l, r->o.baseline_draws, &r->comp[l]) != MHA_OK)
			goto oom;

	// the held-out sequences (the task's, or given): ablation, and the lens on the first
	int na = r->o.tokens ? r->o.sequences : r->o.ablation_sequences, np = r->o.pairs;
	int *tok = malloc(sizeof(int) * 2 * (size_t)(na > 0 ? na : 1) * n);
	r->pair_clean = malloc(sizeof(int) * 3 * (size_t)np * n);
	if (!tok || !r->pair_clean) {
		free(tok);
		goto oom;
	}
	int *tgt = tok + (size_t)na * n;
	if (r->o.tokens) {
		memcpy(tok, r->o.tokens, sizeof(int) * (size_t)na * n);
		memcpy(tgt, r->o.targets, sizeof(int) * (size_t)na * n);
	} else {
		uint64_t rng = train_heldout_seed(t);
		for (int b = 0; b < na; b++)
			train_task_sample(t, n, s->vocab, &rng, tok + (size_t)b * n, tgt + (size_t)b * n);
	}
	r->o.ablation_sequences = na;
	// a model file written by hand may name a task whose answers its read-out cannot hold
	for (size_t k = 0; k < (size_t)na * n; k++)
		if (tgt[k] >= s->classes && t) {
			snprintf(msg, len, "task %s answers with class %d, but the model has %d classes: a model "
			         "--train %s saves has %d", t->name, tgt[k], s->classes, t->name, t->classes);
			free(tok);
			circ_report_free(r);
			return MHA_ERANGE;
		}
	st = circ_ablate(r->cm, tok, tgt, na, &r->ablation);
	int pos = r->o.position;
	for (int p = n - 1; pos < 0 && p >= 0; p--) /* default: the last position with a target */
		if (tgt[p] >= 0)
			pos = p;
	if (pos < 0)
		pos = n - 1;
	if (st == MHA_OK)
		st = circ_lens(r->cm, tok, pos, tgt[pos] < s->classes ? tgt[pos] : -1, &r->lens);
	free(tok);
	if (st == MHA_EINVAL) {
		snprintf(msg, len, "the held-out sequences hold a token or a target outside the model's "
		         "vocabulary of %d and %d classes", s->vocab, s->classes);
		circ_report_free(r);
		return MHA_EINVAL;
	}
	if (st != MHA_OK)
		goto oom;
	r->pair_corrupt = r->pair_clean + (size_t)np * n;
	r->pair_targets = r->pair_corrupt + (size_t)np * n;
	circ_pairs_make(t, n, s->vocab, np, CIRC_PAIRS_SEED, r->pair_clean, r->pair_corrupt, r->pair_targets);
	if (circ_patch(r->cm, r->pair_clean, r->pair_corrupt, r->pair_targets, np, &r->patching) != MHA_OK)
		goto oom;
	return MHA_OK;
oom:
	snprintf(msg, len, "out of memory for the circuits of a %d-layer model (d_model %d, vocabulary %d)",
	         s->layers, s->d, s->vocab);
	circ_report_free(r);
	return MHA_ENOMEM;
}

void circ_report_free(struct circ_report *r)
{
	int heads = r->s.layers * r->s.h;
	if (r->heads)
		circ_heads_free(r->heads, heads);
	free(r->heads);
	if (r->views)
		for (int k = 0; k < heads * CIRC_VIEWS; k++)
			free(r->views[k]);
	free(r->views);
	for (int l = 0; l < TRAIN_MAX_LAYERS - 1; l++)
		circ_composition_free(&r->comp[l]);
	circ_ablation_free(&r->ablation);
	circ_patching_free(&r->patching);
	circ_lens_free(&r->lens);
	free(r->pair_clean);
	circ_model_free(r->cm);
	memset(r, 0, sizeof *r);
}
