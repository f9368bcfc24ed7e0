/*
 * kvdec.h - what the decode speed measurement (decode_speed.c) sees of a
 * decode cache beyond engine.h (internal to the engine).
 */
#ifndef KVDEC_H
#define KVDEC_H

#include "engine.h"

/* The floats kv head j's step reads, as at most 3 contiguous regions
 * (start[i], floats[i]): its full pages, then the last page's K (whole
 * panels up to len) and V rows. Returns how many. */
int kvdec_regions(const struct mha_kvdec *kv, int j, const float **start, size_t *floats);

#endif
