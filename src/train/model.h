/*
 * model.h - what the training library's files share (internal): the
 * workspace of one sequence's forward and backward, and those passes.
 */
#ifndef TRAIN_MODEL_H
#define TRAIN_MODEL_H

#include "grad.h"
#include "train.h"

struct seq_work {
	struct mha_acts acts[TRAIN_MAX_LAYERS];   /* every intermediate of each layer */
	struct mha_grads grads[TRAIN_MAX_LAYERS]; /* each layer's backward */
	float *x;     /* (L+1, n, d) residual stream x_0 .. x_L */
	float *dx;    /* (n, d)      dL/dx_l on the way down     */
	float *probs; /* (n, C)      softmax of the logits, then dL/dlogits */
	double *e;    /* (C)         one row's exp(logit - max), computed once */
	float *mem;
	/* The layers through the engine's vector softmax row and small
	 * products (mha_forward_vector, mha_backward_vector: the trainer's
	 * steps) instead of the core's mha_forward and mha_backward (false,
	 * the default: what the workbench, the probe and the analyses see,
	 * bit for bit). */
	bool vector;
};

struct seq_result {
	double loss;   /* summed cross-entropy over counted positions */
	long correct, counted;
};

enum mha_status seq_work_alloc(struct seq_work *w, const struct train_model *m);
void seq_work_free(struct seq_work *w);
/* Forward of one sequence (tokens, targets: n each); keeps what the
 * backward needs in w. */
void seq_forward(const struct train_model *m, struct seq_work *w, const int *tokens,
                 const int *targets, struct seq_result *r);
/* After seq_forward: the gradient of scale * (summed loss) written into g
 * (a model view of a gradient array: every tensor overwritten). */
void seq_backward(const struct train_model *m, struct seq_work *w, const int *tokens,
                  const int *targets, float scale, struct train_model *g);
uint64_t train_heldout_seed(const struct train_task *t);
/* The probe: m = n/2 random tokens (distinct while V allows), then the
 * same m again; targets all -1. The pattern scores and the exported
 * sessions start their streams at TRAIN_PROBE_SEED. */
#define TRAIN_PROBE_SEED 0x70726f6265ULL
enum { TRAIN_PROBE_SEQUENCES = 16 }; /* sequences of the probe batch */
/* Run the probe batch through the model and call fn with every head's
 * attention weights p (n, n) on each sequence's tokens. false: out of
 * memory (fn never called). */
typedef void (*train_probe_fn)(void *ctx, int layer, int head, const float *p, int n, const int *tokens);
bool train_probe_each(const struct train_model *m, train_probe_fn fn, void *ctx);
void train_probe_sample(int n, int vocab, uint64_t *rng, int *tokens, int *targets);

/* One AdamW step (o's betas, eps and weight decay; learning rate lr) on
 * params with the moments am, av, after clipping grad's global norm at 1
 * (train_clip_factor: the factor that does it). step counts from 1. The
 * toy tasks' trainer and the language model's share it. */
float train_clip_factor(const float *grad, size_t np);
void train_adamw_update(float *params, const float *grad, float *am, float *av, size_t np, long step,
                        const struct train_options *o, float lr);

/* "heads_off COUNT l i l i ...\n", the model files' line (both versions) */
void train_heads_off_write(FILE *f, const struct train_model *m);

#endif
