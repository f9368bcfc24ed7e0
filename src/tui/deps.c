/*
 * deps.c - the trace of the workbench: for the cell under the cursor, the
 * cells it was computed from, read off the formulas of each stage (see
 * deps.h). It knows shapes and the GQA head mapping, not values.
 */
#include "deps.h"

static struct cell_rect rect(int m, int r0, int r1, int c0, int c1)
{
	return (struct cell_rect){ m, r0, r1, c0, c1 };
}

bool deps_rect(const struct mha_config *cfg, const struct cell *t, enum mha_tensor src,
               struct cell_rect *out)
{
	const int n = cfg->n, d = cfg->d, dk = cfg->dk, hw = cfg->h * cfg->dk, gw = cfg->g * cfg->dk;
	int i = t->m, j;
	switch (t->t) {
	case MHA_T_Q:
	case MHA_T_K:
	case MHA_T_V: {
		// Q (n,h*dk) = X (n,d) @ W^Q (d,h*dk): cell (r,c) <- X row r, W^Q column c
		enum mha_tensor w = t->t == MHA_T_Q ? MHA_T_WQ : t->t == MHA_T_K ? MHA_T_WK : MHA_T_WV;
		if (src == MHA_T_X)
			*out = rect(0, t->r, t->r + 1, 0, d);
		else if (src == w)
			*out = rect(0, 0, d, t->c, t->c + 1);
		else
			return false;
		return true;
	}
	case MHA_T_SCORES:
		// S_i (n,n) = Q_i (n,dk) @ K_j^T (dk,n)
		j = mha_kv_head(cfg, i);
		if (src == MHA_T_Q)
			*out = rect(0, t->r, t->r + 1, i * dk, (i + 1) * dk);
		else if (src == MHA_T_K)
			*out = rect(0, t->c, t->c + 1, j * dk, (j + 1) * dk);
		else
			return false;
		return true;
	case MHA_T_WEIGHTS:
		// P_i row r = softmax(S_i row r)
		if (src != MHA_T_SCORES)
			return false;
		*out = rect(i, t->r, t->r + 1, 0, n);
		return true;
	case MHA_T_HEADS:
		// O_i (n,dk) = P_i (n,n) @ V_j (n,dk)
		j = mha_kv_head(cfg, i);
		if (src == MHA_T_WEIGHTS)
			*out = rect(i, t->r, t->r + 1, 0, n);
		else if (src == MHA_T_V)
			*out = rect(0, 0, n, j * dk + t->c, j * dk + t->c + 1);
		else
			return false;
		return true;
	case MHA_T_CONCAT:
		// Concat[:, i*dk:(i+1)*dk] = O_i
		if (src != MHA_T_HEADS)
			return false;
		*out = rect(t->c / dk, t->r, t->r + 1, t->c % dk, t->c % dk + 1);
		return true;
	case MHA_T_Y:
		// Y (n,d) = Concat (n,h*dk) @ W^O (h*dk,d)
		if (src == MHA_T_CONCAT)
			*out = rect(0, t->r, t->r + 1, 0, hw);
		else if (src == MHA_T_WO)
			*out = rect(0, 0, hw, t->c, t->c + 1);
		else
			return false;
		return true;
	default:
		(void)gw;
		return false;
	}
}

bool deps_is_source(const struct mha_config *cfg, const struct cell *target, enum mha_tensor src,
                    int m, int r, int c)
{
	struct cell_rect k;
	return deps_rect(cfg, target, src, &k) && m == k.m && r >= k.r0 && r < k.r1 && c >= k.c0 && c < k.c1;
}
