/*
 * heads.c - the heads apart and layer by layer, for the paper's arguments
 * for several heads (doc/TRAINING.md, "Each head its own gradient" and
 * "Layer by layer"):
 *   - a head's slice of a gradient (or of the weights): its d_k columns of
 *     W^Q, W^K, W^V and its d_k rows of W^O, each matrix's Frobenius norm;
 *   - a shared start: every head of a layer a copy of head 0, so that the
 *     learner can see that nothing then tells the copies apart;
 *   - how far apart a layer's heads are (their slices' distance);
 *   - how far back each head looks on the probe (mean attention distance);
 *   - each head of a layer alone against the layer's heads together (the
 *     ensemble argument).
 * It neither trains nor draws.
 */
#include "model.h"

#include <math.h>
#include <string.h>

/* Head i's slice of layer l, as d rows of dk values for W^Q, W^K, W^V
 * (columns i*dk .. (i+1)*dk - 1 of row r) and W^O's dk rows transposed:
 * element (r, e) of matrix k. */
static float slice_at(const struct train_model *g, int l, int i, int k, int r, int e)
{
	const struct train_shape *s = &g->s;
	size_t hw = (size_t)s->h * s->dk, col = (size_t)i * s->dk + (size_t)e;
	switch (k) {
	case 0: return g->wq[l][(size_t)r * hw + col];
	case 1: return g->wk[l][(size_t)r * hw + col];
	case 2: return g->wv[l][(size_t)r * hw + col];
	default: return g->wo[l][col * (size_t)s->d + (size_t)r];
	}
}

struct train_head_norm train_head_slice_norm(const struct train_model *g, int l, int i)
{
	const struct train_shape *s = &g->s;
	double sq[4] = { 0 };
	for (int k = 0; k < 4; k++)
		for (int r = 0; r < s->d; r++)
			for (int e = 0; e < s->dk; e++) {
				double x = slice_at(g, l, i, k, r, e);
				sq[k] += x * x;
			}
	struct train_head_norm n = { sqrt(sq[0]), sqrt(sq[1]), sqrt(sq[2]), sqrt(sq[3]),
	                             sqrt(sq[0] + sq[1] + sq[2] + sq[3]) };
	return n;
}

void train_model_share_heads(struct train_model *m)
{
	const struct train_shape *s = &m->s;
	size_t hw = (size_t)s->h * s->dk, dk = (size_t)s->dk;
	for (int l = 0; l < s->layers; l++)
		for (int i = 1; i < s->h; i++)
			for (int r = 0; r < s->d; r++) {
				size_t row = (size_t)r * hw, to = (size_t)i * dk;
				memcpy(m->wq[l] + row + to, m->wq[l] + row, dk * sizeof(float));
				memcpy(m->wk[l] + row + to, m->wk[l] + row, dk * sizeof(float));
				memcpy(m->wv[l] + row + to, m->wv[l] + row, dk * sizeof(float));
				for (size_t e = 0; e < dk; e++)
					m->wo[l][(to + e) * (size_t)s->d + (size_t)r] = m->wo[l][e * (size_t)s->d + (size_t)r];
			}
}

void train_head_spread(const struct train_model *m, double *spread)
{
	const struct train_shape *s = &m->s;
	for (int l = 0; l < TRAIN_MAX_LAYERS; l++)
		spread[l] = 0;
	for (int l = 0; l < s->layers; l++) {
		double dist = 0, size = 0;
		int pairs = 0;
		for (int i = 0; i < s->h; i++) {
			size += train_head_slice_norm(m, l, i).all;
			for (int j = i + 1; j < s->h; j++, pairs++) {
				double sq = 0;
				for (int k = 0; k < 4; k++)
					for (int r = 0; r < s->d; r++)
						for (int e = 0; e < s->dk; e++) {
							double x = (double)slice_at(m, l, i, k, r, e) - slice_at(m, l, j, k, r, e);
							sq += x * x;
						}
				dist += sqrt(sq);
			}
		}
		size /= s->h;
		spread[l] = pairs && size > 0 ? dist / pairs / size : 0;
	}
}

int train_distance_bucket(int d)
{
	int b = 0;
	while (d > 0 && b < TRAIN_DIST_BUCKETS - 1) {
		d >>= 1;
		b++;
	}
	return b;
}

void train_distance_accumulate(const float *p, int n, struct train_head_distance *sum, double *cnt)
{
	for (int q = 1; q < n; q++) {
		for (int j = 0; j < n; j++) {
			double w = p[q * n + j];
			sum->mean += w * (q - j);
			if (j <= q)
				sum->share[train_distance_bucket(q - j)] += w;
		}
		*cnt += 1;
	}
}

void train_attention_distance(const struct train_model *m, struct train_head_distance *dist)
{
	train_probe_measures(m, NULL, dist);
}

void train_heads_alone(struct train_model *m, const struct train_task *t, int l, int sequences,
                       struct train_stats *alone, struct train_stats *all)
{
	bool saved[MHA_MAX_HEADS];
	memcpy(saved, m->head_off[l], sizeof saved);
	train_evaluate(m, t, sequences, all);
	for (int i = 0; i < m->s.h; i++) {
		for (int j = 0; j < m->s.h; j++)
			m->head_off[l][j] = j != i;
		train_evaluate(m, t, sequences, &alone[i]);
	}
	memcpy(m->head_off[l], saved, sizeof saved);
}
