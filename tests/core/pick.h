/*
 * pick.h - the seeded stream the core's property tests draw shapes and
 * masks from: xorshift64*, each test file with its own state (its own
 * seed), so a test's configurations do not move when another file draws
 * more. Not for inputs (mha_weights_init seeds those).
 */
#ifndef PICK_H
#define PICK_H

#include <stdint.h>

/* A whole number in [lo, hi] from the stream *state (advanced). */
int pick_int(uint64_t *state, int lo, int hi);

#endif
