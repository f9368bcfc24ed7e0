/*
 * tensor.c - the table of every tensor in the pipeline: its names, formula,
 * shape and storage. The dump, the TUI's views and the tests walk this
 * table, so adding a stage is adding a row.
 */
#include "mha.h"

#include <stddef.h>

static const struct mha_tensor_info table[MHA_T_COUNT] = {
	[MHA_T_X]       = { "X",      "X",       "X: token embeddings",        true  },
	[MHA_T_WQ]      = { "W^Q",    "W_Q",     "W^Q: query projection",      true  },
	[MHA_T_WK]      = { "W^K",    "W_K",     "W^K: key projection",        true  },
	[MHA_T_WV]      = { "W^V",    "W_V",     "W^V: value projection",      true  },
	[MHA_T_WO]      = { "W^O",    "W_O",     "W^O: output projection",     true  },
	[MHA_T_Q]       = { "Q",      "Q",       "Q = X W^Q",                  false },
	[MHA_T_K]       = { "K",      "K",       "K = X W^K",                  false },
	[MHA_T_V]       = { "V",      "V",       "V = X W^V",                  false },
	[MHA_T_SCORES]  = { "S",      "scores",  "S_i = Q_i K_j^T / sqrt(d_k)", false },
	[MHA_T_WEIGHTS] = { "P",      "weights", "P_i = softmax(mask(S_i))",   false },
	[MHA_T_HEADS]   = { "O",      "heads",   "O_i = P_i V_j",              false },
	[MHA_T_CONCAT]  = { "Concat", "concat",  "Concat = [O_1 ... O_h]",     false },
	[MHA_T_Y]       = { "Y",      "output",  "Y = Concat W^O",             false },
};

const struct mha_tensor_info *mha_tensor_info(enum mha_tensor t)
{
	return &table[t];
}

struct mha_shape mha_tensor_shape(const struct mha_config *c, enum mha_tensor t)
{
	int hw = c->h * c->dk, gw = c->g * c->dk;
	switch (t) {
	case MHA_T_X:       return (struct mha_shape){ 1, c->n, c->d };
	case MHA_T_WQ:      return (struct mha_shape){ 1, c->d, hw };
	case MHA_T_WK:
	case MHA_T_WV:      return (struct mha_shape){ 1, c->d, gw };
	case MHA_T_WO:      return (struct mha_shape){ 1, hw, c->d };
	case MHA_T_Q:       return (struct mha_shape){ 1, c->n, hw };
	case MHA_T_K:
	case MHA_T_V:       return (struct mha_shape){ 1, c->n, gw };
	case MHA_T_SCORES:
	case MHA_T_WEIGHTS: return (struct mha_shape){ c->h, c->n, c->n };
	case MHA_T_HEADS:   return (struct mha_shape){ c->h, c->n, c->dk };
	case MHA_T_CONCAT:  return (struct mha_shape){ 1, c->n, hw };
	case MHA_T_Y:       return (struct mha_shape){ 1, c->n, c->d };
	case MHA_T_COUNT:   break;
	}
	return (struct mha_shape){ 0, 0, 0 };
}

float *mha_tensor_data(const struct mha_weights *w, const struct mha_acts *a,
                       enum mha_tensor t)
{
	switch (t) {
	case MHA_T_X:       return w ? w->x : NULL;
	case MHA_T_WQ:      return w ? w->wq : NULL;
	case MHA_T_WK:      return w ? w->wk : NULL;
	case MHA_T_WV:      return w ? w->wv : NULL;
	case MHA_T_WO:      return w ? w->wo : NULL;
	case MHA_T_Q:       return a ? a->q : NULL;
	case MHA_T_K:       return a ? a->k : NULL;
	case MHA_T_V:       return a ? a->v : NULL;
	case MHA_T_SCORES:  return a ? a->scores : NULL;
	case MHA_T_WEIGHTS: return a ? a->weights : NULL;
	case MHA_T_HEADS:   return a ? a->heads : NULL;
	case MHA_T_CONCAT:  return a ? a->concat : NULL;
	case MHA_T_Y:       return a ? a->y : NULL;
	case MHA_T_COUNT:   break;
	}
	return NULL;
}
