/*
 * position.c - where the order of the tokens enters (enum mha_pos in
 * mha.h). Attention itself ignores order: permute the tokens and S, P and
 * Y are permuted the same way. Three ways to give the tokens positions:
 *  - sinusoidal (the paper's section 3.5): a fixed PE (n, d) added to X;
 *  - learned: a matrix P (n, d), an input like X, added to X;
 *  - RoPE (RoFormer; Meta's LLaMA code): no addition, but each head's q and
 *    k rotated pair by pair by an angle proportional to the position, after
 *    the projection, so that q_p . k_r depends on p and r only through r - p.
 * This file computes PE and the rotation; the forward decides where they go.
 * Angles are computed in double and rounded once to float. No allocation.
 */
#include "mha.h"

#include <math.h>
#include <string.h>

static const char *const names[MHA_POS_COUNT] = {
	[MHA_POS_NONE] = "none",
	[MHA_POS_LEARNED] = "learned",
	[MHA_POS_SINUSOIDAL] = "sinusoidal",
	[MHA_POS_ROPE] = "rope",
};

const char *mha_pos_name(enum mha_pos p)
{
	return (unsigned)p < MHA_POS_COUNT ? names[p] : "?";
}

int mha_pos_by_name(const char *name)
{
	for (int p = 0; p < MHA_POS_COUNT; p++)
		if (!strcmp(name, names[p]))
			return p;
	return -1;
}

void mha_pos_encoding_row(const struct mha_config *c, const float *pos, int t, float *row)
{
	const int d = c->d;
	switch (c->pos) {
	case MHA_POS_LEARNED:
		memcpy(row, pos + (size_t)t * d, (size_t)d * sizeof *row);
		return;
	case MHA_POS_SINUSOIDAL: {
		// PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d))
		const double p = (double)c->pos_offset + t;
		for (int col = 0; col < d; col++) {
			double angle = p / pow(10000.0, (double)(col - col % 2) / d);
			row[col] = (float)(col % 2 ? cos(angle) : sin(angle));
		}
		return;
	}
	default:
		/* none: order never enters; RoPE: it enters at the rotation instead */
		memset(row, 0, (size_t)d * sizeof *row);
	}
}

void mha_pos_encoding(const struct mha_config *c, const float *pos, float *pe)
{
	for (int t = 0; t < c->n; t++)
		mha_pos_encoding_row(c, pos, t, pe + (size_t)t * c->d);
}

void mha_rope_rows(const struct mha_config *c, float *rows, int nrows, int first, int heads, int ld,
                   bool inverse)
{
	const int dk = c->dk, pairs = dk / 2;
	for (int r = 0; r < nrows; r++) {
		const double p = (double)c->pos_offset + first + r;
		float *row = rows + (size_t)r * ld;
		for (int i = 0; i < pairs; i++) {
			// theta_i = 10000^(-2i/dk); the pair turns by p theta_i (back by it: inverse)
			double angle = p * pow(10000.0, -2.0 * i / dk);
			float cs = (float)cos(angle), sn = (float)(inverse ? -sin(angle) : sin(angle));
			for (int hd = 0; hd < heads; hd++) {
				// (a, b) -> (a cos - b sin, a sin + b cos): (a + ib) e^{i angle}
				float *x = row + (size_t)hd * dk + 2 * i;
				float a = x[0], b = x[1];
				x[0] = a * cs - b * sn;
				x[1] = a * sn + b * cs;
			}
		}
	}
}
