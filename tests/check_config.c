/*
 * check_config.c - see check_config.h.
 */
#include "check_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include <cmocka.h>

void check_vary(struct mha_config *c, int v)
{
	c->causal = v & 1;
	c->top_k = v & 2 ? (c->n + 2) / 3 : 0;
	c->scale = !(v & 4);
	memset(c->head_off, 0, sizeof c->head_off);
	if (v & 4)
		c->head_off[c->h - 1] = true;
}

void check_inputs_seeded(struct mha_weights *w, struct mha_config *c, uint64_t seed)
{
	char msg[MHA_MSG_MAX];
	if (mha_config_check(c, msg, sizeof msg) != MHA_OK)
		fail_msg("test built an invalid config: %s", msg);
	assert_int_equal(mha_weights_alloc(w, c), MHA_OK);
	mha_weights_init(w, c, seed);
	mha_weights_default_labels(w, c);
	mha_biases_init(w, c, seed);
}

size_t check_tensor_len(const struct mha_config *c, enum mha_tensor t)
{
	struct mha_shape s = mha_tensor_shape(c, t);
	return (size_t)s.count * s.rows * s.cols;
}
