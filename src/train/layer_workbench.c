/*
 * layer_workbench.c - a trained layer as the workbench's inputs: the residual
 * stream that enters layer l on the probe sequence becomes X, the layer's
 * weights become W^Q, W^K, W^V, W^O. Saved as a session (src/store), it
 * opens in the workbench with every stage editable and every head
 * switchable. This file does not write files itself.
 */
#include "model.h"

#include <stdio.h>
#include <string.h>

enum mha_status train_layer_workbench(const struct train_model *m, int l, struct mha_config *c,
                                      struct mha_weights *w, char *msg, size_t len)
{
	*c = train_layer_config(m, l);
	c->seed = 0;
	if (mha_weights_alloc(w, c) != MHA_OK) {
		snprintf(msg, len, "out of memory for the workbench's inputs");
		return MHA_ENOMEM;
	}
	struct seq_work sw;
	if (seq_work_alloc(&sw, m) != MHA_OK) {
		mha_weights_free(w);
		snprintf(msg, len, "out of memory for the workbench's inputs");
		return MHA_ENOMEM;
	}
	int tokens[MHA_MAX_TOKENS], targets[MHA_MAX_TOKENS];
	uint64_t rng = TRAIN_PROBE_SEED;
	struct seq_result r;
	train_probe_sample(m->s.n, m->s.vocab, &rng, tokens, targets);
	seq_forward(m, &sw, tokens, targets, &r);
	size_t nd = (size_t)m->s.n * m->s.d, dh = (size_t)m->s.d * m->s.h * m->s.dk;
	memcpy(w->x, sw.x + (size_t)l * nd, nd * sizeof(float));
	memcpy(w->wq, m->wq[l], dh * sizeof(float));
	memcpy(w->wk, m->wk[l], dh * sizeof(float));
	memcpy(w->wv, m->wv[l], dh * sizeof(float));
	memcpy(w->wo, m->wo[l], dh * sizeof(float));
	/* one character a token while the vocabulary allows (a..z, A..Z): the
	 * heatmaps' axes then show every token and the repeat reads at a glance */
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	for (int i = 0; i < m->s.n; i++) {
		if (m->s.vocab <= (int)sizeof letters - 1)
			snprintf(w->labels[i], MHA_LABEL_MAX, "%c", letters[tokens[i]]);
		else
			snprintf(w->labels[i], MHA_LABEL_MAX, "t%d", tokens[i]);
	}
	seq_work_free(&sw);
	enum mha_status st = mha_weights_check(w, c, msg, len);
	if (st != MHA_OK)
		mha_weights_free(w);
	return st;
}
