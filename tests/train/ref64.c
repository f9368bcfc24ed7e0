/*
 * ref64.c - float64 reference for the gradient tests (see ref64.h). Plain
 * loops, one formula per loop; the top-k keep set is recomputed here from
 * the double scores (callers keep the k-th and (k+1)-th scores apart).
 */
#include "ref64.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ref64_alloc(struct ref64 *r, const struct mha_config *c)
{
	size_t n = (size_t)c->n, d = (size_t)c->d, hw = (size_t)c->h * c->dk, gw = (size_t)c->g * c->dk;
	size_t hnn = (size_t)c->h * n * n, hndk = (size_t)c->h * n * c->dk;
	size_t sizes[] = { n * d, d * hw, d * gw, d * gw, hw * d,
	                   n * hw, n * gw, n * gw, hnn, hnn, hndk, n * hw, n * d,
	                   n * d, d * hw, d * gw, d * gw, hw * d, n * hw, hnn, hnn, n * hw, n * gw, n * gw,
	                   hw, gw, gw, d, hw, gw, gw, d };
	double **fields[] = { &r->x, &r->wq, &r->wk, &r->wv, &r->wo,
	                      &r->q, &r->k, &r->v, &r->s, &r->p, &r->o, &r->cat, &r->y,
	                      &r->dx, &r->dwq, &r->dwk, &r->dwv, &r->dwo, &r->dcat, &r->dp, &r->ds,
	                      &r->dq, &r->dk, &r->dv,
	                      &r->bq, &r->bk, &r->bv, &r->bo, &r->dbq, &r->dbk, &r->dbv, &r->dbo };
	size_t total = 0;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		total += sizes[i];
	double *m = calloc(total, sizeof *m);
	r->mem = m;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		*fields[i] = m;
		m += sizes[i];
	}
}

void ref64_free(struct ref64 *r)
{
	free(r->mem);
	memset(r, 0, sizeof *r);
}

/* keep[j] for query row `row` of scores s (n): causal, then top-k */
static void keep_row(const struct mha_config *c, const double *s, int row, bool *keep)
{
	int n = c->n;
	for (int j = 0; j < n; j++)
		keep[j] = !c->causal || j <= row;
	if (c->top_k <= 0)
		return;
	for (int j = 0; j < n; j++) {
		if (!keep[j])
			continue;
		int above = 0; /* kept scores ranked before j (ties: lower index first) */
		for (int m = 0; m < n; m++)
			if ((!c->causal || m <= row) && (s[m] > s[j] || (s[m] == s[j] && m < j)))
				above++;
		keep[j] = above < c->top_k;
	}
}

double ref64_forward(const struct mha_config *c, struct ref64 *r, const double *cw)
{
	const int n = c->n, d = c->d, dk = c->dk, h = c->h, hw = c->h * c->dk, gw = c->g * c->dk;
	const double sc = c->scale ? 1.0 / sqrt((double)dk) : 1.0;
	bool keep[MHA_MAX_TOKENS];
	for (int t = 0; t < n; t++) {
		for (int e = 0; e < hw; e++) {
			double acc = 0;
			for (int m = 0; m < d; m++)
				acc += r->x[t * d + m] * r->wq[m * hw + e];
			r->q[t * hw + e] = acc + (c->bias ? r->bq[e] : 0.0);
		}
		for (int e = 0; e < gw; e++) {
			double ak = 0, av = 0;
			for (int m = 0; m < d; m++) {
				ak += r->x[t * d + m] * r->wk[m * gw + e];
				av += r->x[t * d + m] * r->wv[m * gw + e];
			}
			r->k[t * gw + e] = ak + (c->bias ? r->bk[e] : 0.0);
			r->v[t * gw + e] = av + (c->bias ? r->bv[e] : 0.0);
		}
	}
	for (int i = 0; i < h; i++) {
		int j = i / (c->h / c->g);
		double *s = r->s + (size_t)i * n * n, *p = r->p + (size_t)i * n * n, *o = r->o + (size_t)i * n * dk;
		for (int a = 0; a < n; a++) {
			for (int b = 0; b < n; b++) {
				double acc = 0;
				for (int e = 0; e < dk; e++)
					acc += r->q[a * hw + i * dk + e] * r->k[b * gw + j * dk + e];
				s[a * n + b] = acc * sc;
			}
			keep_row(c, s + a * n, a, keep);
			double mx = -INFINITY, sum = 0;
			for (int b = 0; b < n; b++)
				if (keep[b] && s[a * n + b] > mx)
					mx = s[a * n + b];
			for (int b = 0; b < n; b++) {
				p[a * n + b] = keep[b] ? exp(s[a * n + b] - mx) : 0.0;
				sum += p[a * n + b];
			}
			for (int b = 0; b < n; b++)
				p[a * n + b] = sum > 0 ? p[a * n + b] / sum : 0.0;
			for (int e = 0; e < dk; e++) {
				double acc = 0;
				for (int b = 0; b < n; b++)
					acc += p[a * n + b] * r->v[b * gw + j * dk + e];
				o[a * dk + e] = acc;
				r->cat[a * hw + i * dk + e] = c->head_off[i] ? 0.0 : acc;
			}
		}
	}
	double loss = 0;
	for (int t = 0; t < n; t++)
		for (int e = 0; e < d; e++) {
			double acc = 0;
			for (int m = 0; m < hw; m++)
				acc += r->cat[t * hw + m] * r->wo[m * d + e];
			acc += c->bias ? r->bo[e] : 0.0;
			r->y[t * d + e] = acc;
			loss += 0.5 * acc * acc + (cw ? cw[t * d + e] * acc : 0.0);
		}
	return loss;
}

void ref64_backward(const struct mha_config *c, struct ref64 *r, const double *cw)
{
	const int n = c->n, d = c->d, dk = c->dk, h = c->h, hw = c->h * c->dk, gw = c->g * c->dk;
	const double sc = c->scale ? 1.0 / sqrt((double)dk) : 1.0;
	double dy[MHA_MAX_TOKENS * 64];
	for (int t = 0; t < n * d; t++)
		dy[t] = r->y[t] + (cw ? cw[t] : 0.0);
	// dW^O = Concat^T dY; dConcat = dY W^O^T (zero in the blocks of heads off)
	for (int m = 0; m < hw; m++)
		for (int e = 0; e < d; e++) {
			double acc = 0;
			for (int t = 0; t < n; t++)
				acc += r->cat[t * hw + m] * dy[t * d + e];
			r->dwo[m * d + e] = acc;
		}
	for (int t = 0; t < n; t++)
		for (int m = 0; m < hw; m++) {
			double acc = 0;
			for (int e = 0; e < d; e++)
				acc += dy[t * d + e] * r->wo[m * d + e];
			r->dcat[t * hw + m] = c->head_off[m / dk] ? 0.0 : acc;
		}
	memset(r->dk, 0, sizeof(double) * n * gw);
	memset(r->dv, 0, sizeof(double) * n * gw);
	for (int i = 0; i < h; i++) {
		int j = i / (c->h / c->g);
		double *p = r->p + (size_t)i * n * n, *dp = r->dp + (size_t)i * n * n, *ds = r->ds + (size_t)i * n * n;
		for (int a = 0; a < n; a++) {
			for (int b = 0; b < n; b++) {
				double acc = 0; /* dP[a][b] = sum_e dO[a][e] V[b][e] */
				for (int e = 0; e < dk; e++)
					acc += r->dcat[a * hw + i * dk + e] * r->v[b * gw + j * dk + e];
				dp[a * n + b] = acc;
			}
			double dot = 0;
			for (int b = 0; b < n; b++)
				dot += p[a * n + b] * dp[a * n + b];
			for (int b = 0; b < n; b++)
				ds[a * n + b] = p[a * n + b] * (dp[a * n + b] - dot);
		}
		for (int a = 0; a < n; a++)
			for (int e = 0; e < dk; e++) {
				double gq = 0, gk = 0, gv = 0;
				for (int b = 0; b < n; b++) {
					gq += ds[a * n + b] * r->k[b * gw + j * dk + e] * sc;
					gk += ds[b * n + a] * r->q[b * hw + i * dk + e] * sc;
					gv += p[b * n + a] * r->dcat[b * hw + i * dk + e];
				}
				r->dq[a * hw + i * dk + e] = gq;
				r->dk[a * gw + j * dk + e] += gk;
				r->dv[a * gw + j * dk + e] += gv;
			}
	}
	for (int m = 0; m < d; m++) {
		for (int e = 0; e < hw; e++) {
			double acc = 0;
			for (int t = 0; t < n; t++)
				acc += r->x[t * d + m] * r->dq[t * hw + e];
			r->dwq[m * hw + e] = acc;
		}
		for (int e = 0; e < gw; e++) {
			double ak = 0, av = 0;
			for (int t = 0; t < n; t++) {
				ak += r->x[t * d + m] * r->dk[t * gw + e];
				av += r->x[t * d + m] * r->dv[t * gw + e];
			}
			r->dwk[m * gw + e] = ak;
			r->dwv[m * gw + e] = av;
		}
	}
	for (int t = 0; t < n; t++)
		for (int m = 0; m < d; m++) {
			double acc = 0;
			for (int e = 0; e < hw; e++)
				acc += r->dq[t * hw + e] * r->wq[m * hw + e];
			for (int e = 0; e < gw; e++)
				acc += r->dk[t * gw + e] * r->wk[m * gw + e] + r->dv[t * gw + e] * r->wv[m * gw + e];
			r->dx[t * d + m] = acc;
		}
	/* each bias is added to every row: its gradient sums the rows */
	const struct { const double *m; double *out; int w; } sums[4] = {
		{ r->dq, r->dbq, hw }, { r->dk, r->dbk, gw }, { r->dv, r->dbv, gw }, { dy, r->dbo, d },
	};
	for (int b = 0; b < 4; b++)
		for (int e = 0; e < sums[b].w; e++) {
			double acc = 0;
			for (int t = 0; c->bias && t < n; t++)
				acc += sums[b].m[t * sums[b].w + e];
			sums[b].out[e] = acc;
		}
}
