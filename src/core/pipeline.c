/*
 * pipeline.c - the pipeline's shared vocabulary (pipeline.h): the stage
 * table, which cells each cell is computed from (read off the formulas of
 * each stage: shapes and the GQA head mapping, not values), the mask
 * predicate and a row's entropy. No computing of attention here: the
 * forward pass is forward.c.
 */
#include "pipeline.h"

#include <ctype.h>
#include <math.h>

/* Adding a stage: a row here and in enum pipeline_stage. Its label is
 * written here only: every other file asks (tests/layering/labels_once.py). */
static const struct pipeline_stage_info stages[PIPELINE_STAGE_COUNT] = {
#define END MHA_T_COUNT
	/* Q, K, V = X W^Q, X W^K, X W^V */
	[PIPELINE_PROJECTION] = { "Projection", MHA_T_Q, { MHA_T_X, MHA_T_WQ, MHA_T_WK, MHA_T_WV, END }, false, "QKV" },
	/* Q_i = Q[:, i dk:(i+1) dk]: a view, nothing computed */
	[PIPELINE_RESHAPE] = { "Reshape", MHA_T_Q, { MHA_T_Q, END }, false, "split" },
	/* S_i = Q_i K_j^T / sqrt(dk) */
	[PIPELINE_SCORES] = { "Scores", MHA_T_SCORES, { MHA_T_Q, MHA_T_K, END }, true, "QK^T" },
	/* P_i = softmax(mask(S_i)) */
	[PIPELINE_SOFTMAX] = { "Softmax", MHA_T_WEIGHTS, { MHA_T_SCORES, END }, true, "soft" },
	/* O_i = P_i V_j */
	[PIPELINE_WEIGHTED_SUM] = { "Weighted sum", MHA_T_HEADS, { MHA_T_WEIGHTS, MHA_T_V, END }, true, "PV" },
	/* Concat = [O_0 ... O_h-1] */
	[PIPELINE_CONCAT] = { "Concat", MHA_T_CONCAT, { MHA_T_HEADS, END }, true, "concat" },
	/* Y = Concat W^O */
	[PIPELINE_OUTPUT] = { "W^O", MHA_T_Y, { MHA_T_CONCAT, MHA_T_WO, END }, true, "W^O" },
#undef END
};

const struct pipeline_stage_info *pipeline_stage_info(enum pipeline_stage s)
{
	return (unsigned)s < PIPELINE_STAGE_COUNT ? &stages[s] : NULL;
}

const char *pipeline_stage_label(enum pipeline_stage s)
{
	return (unsigned)s < PIPELINE_STAGE_COUNT ? stages[s].label : "?";
}

int pipeline_stage_by_label(const char *text)
{
	for (int i = 0; i < PIPELINE_STAGE_COUNT; i++) {
		const char *a = stages[i].label, *b = text;
		/* "Weighted sum", "weighted-sum" and "weighted_sum" all name stage 5 */
		while (*a && *b && (tolower((unsigned char)*a) == tolower((unsigned char)*b) ||
		                    (*a == ' ' && (*b == '-' || *b == '_'))))
			a++, b++;
		if (!*a && !*b)
			return i;
	}
	return -1;
}

enum pipeline_stage pipeline_stage_of(enum mha_tensor t)
{
	switch (t) {
	/* PE and x_l = X + PE are made for the projection to read */
	case MHA_T_PE: case MHA_T_XIN:
	case MHA_T_Q: case MHA_T_K: case MHA_T_V: return PIPELINE_PROJECTION;
	/* RoPE turns each head's block: the per-head view of Q and K */
	case MHA_T_QROT: case MHA_T_KROT: return PIPELINE_RESHAPE;
	case MHA_T_SCORES: return PIPELINE_SCORES;
	case MHA_T_WEIGHTS: return PIPELINE_SOFTMAX;
	case MHA_T_HEADS: return PIPELINE_WEIGHTED_SUM;
	case MHA_T_CONCAT: return PIPELINE_CONCAT;
	case MHA_T_Y: case MHA_T_STREAM: return PIPELINE_OUTPUT;
	default: return PIPELINE_STAGE_COUNT;
	}
}

static struct cell_rect rect(int m, int r0, int r1, int c0, int c1)
{
	return (struct cell_rect){ m, r0, r1, c0, c1 };
}

/* PE is added to X (sinusoidal, learned): x_l row r reads PE row r too. */
static bool pe_added(const struct mha_config *cfg)
{
	return cfg->pos == MHA_POS_SINUSOIDAL || cfg->pos == MHA_POS_LEARNED;
}

bool pipeline_deps_rect(const struct mha_config *cfg, const struct cell *t, enum mha_tensor src,
                        struct cell_rect *out)
{
	const int nk = mha_keys(cfg), d = cfg->d, dk = cfg->dk, hw = cfg->h * cfg->dk;
	const bool rope = cfg->pos == MHA_POS_ROPE;
	int i = t->m, j;
	switch (t->t) {
	case MHA_T_Q:
	case MHA_T_K:
	case MHA_T_V: {
		// Q (n,h*dk) = (X + PE) (n,d) @ W^Q (d,h*dk): cell (r,c) <- X and PE row r, W^Q column c;
		// K, V of cross-attention: X_kv row r instead
		enum mha_tensor w = t->t == MHA_T_Q ? MHA_T_WQ : t->t == MHA_T_K ? MHA_T_WK : MHA_T_WV;
		bool from_kv = t->t != MHA_T_Q && cfg->m > 0;
		if (src == (from_kv ? MHA_T_XKV : MHA_T_X) || (src == MHA_T_PE && !from_kv && pe_added(cfg)))
			*out = rect(0, t->r, t->r + 1, 0, d);
		else if (src == w)
			*out = rect(0, 0, d, t->c, t->c + 1);
		else
			return false;
		return true;
	}
	case MHA_T_PE:
		// PE = P_pos (learned); sinusoidal PE is the position's alone
		if (src != MHA_T_POS || cfg->pos != MHA_POS_LEARNED)
			return false;
		*out = rect(0, t->r, t->r + 1, t->c, t->c + 1);
		return true;
	case MHA_T_XIN:
		// x_0 = X + PE, cell by cell
		if (src != MHA_T_X && !(src == MHA_T_PE && pe_added(cfg)))
			return false;
		*out = rect(0, t->r, t->r + 1, t->c, t->c + 1);
		return true;
	case MHA_T_QROT:
	case MHA_T_KROT:
		// RoPE turns the pair (2i, 2i+1) that holds column c: the same two cells of Q (K)
		if (src != (t->t == MHA_T_QROT ? MHA_T_Q : MHA_T_K) || !rope)
			return false;
		*out = rect(0, t->r, t->r + 1, t->c - t->c % 2, t->c - t->c % 2 + 2);
		return true;
	case MHA_T_SCORES:
		// S_i (n,nk) = Q_i (n,dk) @ K_j^T (dk,nk), rotated first with RoPE
		j = mha_kv_head(cfg, i);
		if (src == (rope ? MHA_T_QROT : MHA_T_Q))
			*out = rect(0, t->r, t->r + 1, i * dk, (i + 1) * dk);
		else if (src == (rope ? MHA_T_KROT : MHA_T_K))
			*out = rect(0, t->c, t->c + 1, j * dk, (j + 1) * dk);
		else
			return false;
		return true;
	case MHA_T_WEIGHTS:
		// P_i row r = softmax(S_i row r)
		if (src != MHA_T_SCORES)
			return false;
		*out = rect(i, t->r, t->r + 1, 0, nk);
		return true;
	case MHA_T_HEADS:
		// O_i (n,dk) = P_i (n,nk) @ V_j (nk,dk)
		j = mha_kv_head(cfg, i);
		if (src == MHA_T_WEIGHTS)
			*out = rect(i, t->r, t->r + 1, 0, nk);
		else if (src == MHA_T_V)
			*out = rect(0, 0, nk, j * dk + t->c, j * dk + t->c + 1);
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
	case MHA_T_STREAM:
		// x_l+1 = x_l + Y, cell by cell
		if (src != MHA_T_XIN && src != MHA_T_Y)
			return false;
		*out = rect(0, t->r, t->r + 1, t->c, t->c + 1);
		return true;
	default:
		return false;
	}
}

bool pipeline_is_source(const struct mha_config *cfg, const struct cell *target, enum mha_tensor src,
                        int m, int r, int c)
{
	struct cell_rect k;
	return pipeline_deps_rect(cfg, target, src, &k) && m == k.m && r >= k.r0 && r < k.r1 && c >= k.c0 && c < k.c1;
}

bool pipeline_masked(const struct mha_config *cfg, const struct mha_acts *a, int head, int q, int k)
{
	const int n = cfg->n, nk = mha_keys(cfg);
	if (head < 0 || head >= cfg->h || q < 0 || q >= n || k < 0 || k >= nk)
		return false;
	// the forward's record of what the mask and top-k kept: O(1), and a
	// weight that only underflowed to 0 stays a kept key
	const uint64_t *row = a->kept + ((size_t)head * n + q) * MHA_KEPT_WORDS(nk);
	return !((row[k / 64] >> (k % 64)) & 1u);
}

double pipeline_projection_again(const struct mha_config *cfg, const struct mha_weights *w,
                                 enum mha_tensor t, int r, int col)
{
	// Q[r][col] = (X + PE)[r,:] (d) . W^Q[:, col] (d); K, V of cross-attention: X_kv[r,:]
	enum mha_tensor wt = t == MHA_T_Q ? MHA_T_WQ : t == MHA_T_K ? MHA_T_WK : MHA_T_WV;
	const float *wm = mha_tensor_data(w, NULL, wt);
	int wc = mha_tensor_shape(cfg, wt).cols;
	bool from_kv = t != MHA_T_Q && cfg->m > 0;
	const float *x = (from_kv ? w->x_kv : w->x) + (size_t)r * cfg->d;
	float pe[MHA_MAX_D_MODEL];
	if (!from_kv && pe_added(cfg))
		mha_pos_encoding_row(cfg, w->pos, r, pe);
	double sum = 0.0;
	for (int k = 0; k < cfg->d; k++) {
		/* the row the forward projects, rounded to float as x_0 is */
		float xk = !from_kv && pe_added(cfg) ? x[k] + pe[k] : x[k];
		sum += (double)xk * wm[(size_t)k * wc + col];
	}
	return sum;
}

double pipeline_projection_again_layer(const struct mha_config *cfg, const struct mha_weights *w,
                                       const struct mha_acts *a, int layer, enum mha_tensor t, int r,
                                       int col)
{
	if (layer <= 0 || !a)
		return pipeline_projection_again(cfg, w, t, r, col);
	// Q[r][col] = x_l[r,:] (d) . W^Q_l[:, col] (d): layer l reads the stream;
	// K, V of cross-attention read X_kv in every layer
	enum mha_tensor wt = t == MHA_T_Q ? MHA_T_WQ : t == MHA_T_K ? MHA_T_WK : MHA_T_WV;
	const float *wm = mha_tensor_data_layer(w, NULL, layer, wt);
	int wc = mha_tensor_shape(cfg, wt).cols;
	bool from_kv = t != MHA_T_Q && cfg->m > 0;
	const float *x = (from_kv ? w->x_kv : a->xin) + (size_t)r * cfg->d;
	double sum = 0.0;
	for (int k = 0; k < cfg->d; k++)
		sum += (double)x[k] * wm[(size_t)k * wc + col];
	return sum;
}

double pipeline_head_write(const struct mha_config *cfg, const struct mha_weights *w, const struct mha_acts *a,
                           int layer, int head, int r, int col)
{
	// C_i[r][col] = sum_k Concat[r][i dk + k] (the head's O_i, 0 when off) . W^O[i dk + k][col]
	const float *cc = mha_tensor_data_layer(w, a, layer, MHA_T_CONCAT);
	const float *wo = mha_tensor_data_layer(w, a, layer, MHA_T_WO);
	int hd = cfg->h * cfg->dk, k0 = head * cfg->dk;
	double sum = 0.0;
	for (int k = k0; k < k0 + cfg->dk; k++)
		sum += (double)cc[(size_t)r * hd + k] * wo[(size_t)k * cfg->d + col];
	return sum;
}

double pipeline_writes_sum(const struct mha_config *cfg, const struct mha_weights *w, const struct mha_acts *a,
                           int layer, int r, int col)
{
	// Y[r][col] = sum_i C_i[r][col] (+ b^O[col], the last of the biases)
	double sum = cfg->bias ? (double)mha_bias_layer(w, cfg, layer, MHA_BIASES - 1).p[col] : 0.0;
	for (int i = 0; i < cfg->h; i++)
		sum += pipeline_head_write(cfg, w, a, layer, i, r, col);
	return sum;
}

void pipeline_row_entropy(const float *p, int n, double *sum, double *entropy)
{
	// H = -sum_j p_j ln p_j
	*sum = 0.0;
	*entropy = 0.0;
	for (int j = 0; j < n; j++) {
		double v = p[j];
		*sum += v;
		if (v > 0.0)
			*entropy -= v * log(v);
	}
}
