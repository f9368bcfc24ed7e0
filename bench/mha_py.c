/*
 * mha_py.c - a small C door into the engine for tools/compare_torch.py
 * (ctypes), so that PyTorch and mha-tui are timed in one process, round
 * by round. It owns one configuration, its weights (copied in from the
 * caller's arrays) and one plan; forwards write Y. Nothing else: timing,
 * statistics and the comparison of outputs are the script's.
 */
#include "engine.h"
#include "gemm.h"

#include <stdlib.h>
#include <string.h>

struct mha_py {
	struct mha_config c;
	struct mha_weights w;
	struct mha_plan *plan;
};

/* The library's entry points, for ctypes (declared here: no header). */
struct mha_py *mha_py_create(int n, int d, int h, int threads, int causal, const float *x,
                             const float *wq, const float *wk, const float *wv, const float *wo);
void mha_py_forward(struct mha_py *m, int calls);
const float *mha_py_y(const struct mha_py *m);
void mha_py_destroy(struct mha_py *m);
int mha_py_blas_threads(int threads);

/* x (n,d), W^Q, W^K, W^V (d,d) with Q = X W^Q, W^O (d,d); h divides d.
 * NULL when the shape is refused or memory is short. */
struct mha_py *mha_py_create(int n, int d, int h, int threads, int causal, const float *x,
                             const float *wq, const float *wk, const float *wv, const float *wo)
{
	char msg[MHA_MSG_MAX];
	struct mha_py *m = calloc(1, sizeof *m);
	if (!m || h < 1 || d % h != 0)
		goto fail;
	m->c = mha_config_default();
	m->c.n = n; m->c.d = d; m->c.h = h; m->c.g = h; m->c.dk = d / h;
	m->c.causal = causal != 0;
	if (mha_weights_alloc(&m->w, &m->c) != MHA_OK)
		goto fail;
	size_t nd = (size_t)n * d * sizeof(float), dd = (size_t)d * d * sizeof(float);
	memcpy(m->w.x, x, nd);
	memcpy(m->w.wq, wq, dd);
	memcpy(m->w.wk, wk, dd);
	memcpy(m->w.wv, wv, dd);
	memcpy(m->w.wo, wo, dd);
	struct mha_plan_options o = { .threads = threads };
	if (mha_plan_create(&m->plan, &m->c, &o, msg, sizeof msg) != MHA_OK)
		goto fail;
	return m;
fail:
	mha_py_destroy(m);
	return NULL;
}

void mha_py_forward(struct mha_py *m, int calls)
{
	for (int i = 0; i < calls; i++)
		mha_plan_forward(m->plan, &m->w);
}

const float *mha_py_y(const struct mha_py *m)
{
	return mha_plan_acts(m->plan)->y;
}

void mha_py_destroy(struct mha_py *m)
{
	if (!m)
		return;
	mha_plan_destroy(m->plan);
	if (m->w.mem)
		mha_weights_free(&m->w);
	free(m);
}

/* OpenBLAS's own thread count (for the other side's products); returns
 * the count it had. */
int mha_py_blas_threads(int threads)
{
	return gemm_threads_set(threads);
}
