/*
 * tensor.c - the table of every tensor in the pipeline: its names, formula,
 * shape and storage, whether a configuration uses it, and where it lives
 * in any layer of a stack. The dump, the TUI's views and the tests walk
 * this table, so adding a stage is adding a row.
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
	[MHA_T_XKV]     = { "X_kv",   "X_kv",    "X_kv: the source tokens K and V come from", true },
	[MHA_T_POS]     = { "P_pos",  "P_pos",   "P_pos: learned positions, added to X", true },
	[MHA_T_PE]      = { "PE",     "PE",      "PE: what is added to X (sinusoidal, or P_pos)", false },
	[MHA_T_XIN]     = { "x_l",    "x_in",    "x_l: the layer's input, X + PE in layer 0", false },
	[MHA_T_QROT]    = { "Q_rot",  "Q_rot",   "Q_rot = RoPE(Q): pairs turned by p theta_i", false },
	[MHA_T_KROT]    = { "K_rot",  "K_rot",   "K_rot = RoPE(K): pairs turned by p theta_i", false },
	[MHA_T_STREAM]  = { "x_l+1",  "x_out",   "x_l+1 = x_l + Y: the residual stream", false },
};

const struct mha_tensor_info *mha_tensor_info(enum mha_tensor t)
{
	return &table[t];
}

struct mha_shape mha_tensor_shape(const struct mha_config *c, enum mha_tensor t)
{
	int hw = c->h * c->dk, gw = c->g * c->dk, nk = mha_keys(c);
	switch (t) {
	case MHA_T_X:       return (struct mha_shape){ 1, c->n, c->d };
	case MHA_T_WQ:      return (struct mha_shape){ 1, c->d, hw };
	case MHA_T_WK:
	case MHA_T_WV:      return (struct mha_shape){ 1, c->d, gw };
	case MHA_T_WO:      return (struct mha_shape){ 1, hw, c->d };
	case MHA_T_Q:       return (struct mha_shape){ 1, c->n, hw };
	case MHA_T_K:
	case MHA_T_V:       return (struct mha_shape){ 1, nk, gw };
	case MHA_T_SCORES:
	case MHA_T_WEIGHTS: return (struct mha_shape){ c->h, c->n, nk };
	case MHA_T_HEADS:   return (struct mha_shape){ c->h, c->n, c->dk };
	case MHA_T_CONCAT:  return (struct mha_shape){ 1, c->n, hw };
	case MHA_T_Y:       return (struct mha_shape){ 1, c->n, c->d };
	case MHA_T_XKV:     return (struct mha_shape){ 1, c->m, c->d };
	case MHA_T_POS:
	case MHA_T_PE:
	case MHA_T_XIN:
	case MHA_T_STREAM:  return (struct mha_shape){ 1, c->n, c->d };
	case MHA_T_QROT:    return (struct mha_shape){ 1, c->n, hw };
	case MHA_T_KROT:    return (struct mha_shape){ 1, nk, gw };
	case MHA_T_COUNT:   break;
	}
	return (struct mha_shape){ 0, 0, 0 };
}

bool mha_tensor_used(const struct mha_config *c, enum mha_tensor t)
{
	switch (t) {
	case MHA_T_XKV:   return c->m > 0;
	case MHA_T_POS:   return c->pos == MHA_POS_LEARNED;
	case MHA_T_QROT:
	case MHA_T_KROT:  return c->pos == MHA_POS_ROPE;
	case MHA_T_COUNT: return false;
	default:          return true;
	}
}

float *mha_tensor_data(const struct mha_weights *w, const struct mha_acts *a,
                       enum mha_tensor t)
{
	return mha_tensor_data_layer(w, a, 0, t);
}

float *mha_tensor_data_layer(const struct mha_weights *w, const struct mha_acts *a, int layer,
                             enum mha_tensor t)
{
	struct mha_layer_weights lw = { 0 };
	if (w)
		lw = mha_weights_layer(w, layer);
	switch (t) {
	case MHA_T_X:       return w ? w->x : NULL;
	case MHA_T_WQ:      return lw.wq;
	case MHA_T_WK:      return lw.wk;
	case MHA_T_WV:      return lw.wv;
	case MHA_T_WO:      return lw.wo;
	case MHA_T_XKV:     return w ? w->x_kv : NULL;
	case MHA_T_POS:     return w ? w->pos : NULL;
	case MHA_T_PE:      return a ? a->pe : NULL;
	case MHA_T_XIN:     return a ? a->xin : NULL;
	case MHA_T_QROT:    return a ? a->q_rot : NULL;
	case MHA_T_KROT:    return a ? a->k_rot : NULL;
	case MHA_T_STREAM:  return a ? a->stream : NULL;
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
