/*
 * check_config.h - configurations (and their seeded inputs) shared by the
 * tests of the fast paths and of the stack.
 */
#ifndef CHECK_CONFIG_H
#define CHECK_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "mha.h"

/* Variant v (0..7) of c that every path must agree on: bit 0 causal,
 * bit 1 top-k of (n + 2) / 3, bit 2 unscaled scores and the last head
 * switched off. */
void check_vary(struct mha_config *c, int v);

/* Inputs for c (checked valid) from seed: allocated, seeded, default
 * labels, biases seeded too (used when c->bias). The test fails on an
 * invalid c. */
void check_inputs_seeded(struct mha_weights *w, struct mha_config *c, uint64_t seed);
/* Floats of tensor t under c: count x rows x cols. */
size_t check_tensor_len(const struct mha_config *c, enum mha_tensor t);

#endif
