/*
 * kvdec.h - what the decode speed measurement (decode_speed.c) sees of a
 * decode cache beyond engine.h (internal to the engine).
 */
#ifndef KVDEC_H
#define KVDEC_H

#include "engine.h"

/* The floats kv head j's step reads: K (its panels up to len, rounded to
 * a whole panel) and V (len rows), each contiguous. */
void kvdec_regions(const struct mha_kvdec *kv, int j, const float **k, size_t *kfloats,
                   const float **v, size_t *vfloats);

#endif
