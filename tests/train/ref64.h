/*
 * ref64.h - a float64 multi-head attention, forward and backward, in plain
 * loops written from the formulas (doc/FACTS.md, "The computation"), for
 * the gradient tests. It
 * shares no code with the core: only the configuration struct.
 */
#ifndef REF64_H
#define REF64_H

#include "mha.h"

/* Inputs and every intermediate, in the core's layouts. */
struct ref64 {
	double *x, *wq, *wk, *wv, *wo;          /* inputs, as struct mha_weights */
	double *bq, *bk, *bv, *bo;              /* biases, used when cfg.bias */
	double *q, *k, *v, *s, *p, *o, *cat, *y; /* as struct mha_acts */
	/* gradients, as struct mha_grads */
	double *dx, *dwq, *dwk, *dwv, *dwo, *dcat, *dp, *ds, *dq, *dk, *dv;
	double *dbq, *dbk, *dbv, *dbo;
	void *mem;
};

void ref64_alloc(struct ref64 *r, const struct mha_config *c);
void ref64_free(struct ref64 *r);
/* Forward; returns L = 1/2 sum(Y^2) + sum(C * Y) (C (n,d), or NULL for 0). */
double ref64_forward(const struct mha_config *c, struct ref64 *r, const double *cw);
/* Backward of that L after ref64_forward: dL/dY = Y + C. */
void ref64_backward(const struct mha_config *c, struct ref64 *r, const double *cw);

#endif
