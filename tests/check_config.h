/*
 * check_config.h - configurations shared by the tests of the fast paths.
 */
#ifndef CHECK_CONFIG_H
#define CHECK_CONFIG_H

#include "mha.h"

/* Variant v (0..7) of c that every path must agree on: bit 0 causal,
 * bit 1 top-k of (n + 2) / 3, bit 2 unscaled scores and the last head
 * switched off. */
void check_vary(struct mha_config *c, int v);

#endif
