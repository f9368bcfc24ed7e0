/*
 * mask.h - what mask.c shares inside the core: the top-k rank test that
 * both mha_mask_row and the reference softmax row use, so the two can
 * never disagree about which keys top-k keeps.
 */
#ifndef MASK_H
#define MASK_H

#include <stdbool.h>

/* Is key j among the top_k largest of the kept scores s[t], t < limit and
 * (keep == NULL or keep[t] != 0)? Ranked by value, ties to the lower
 * index, so exactly min(top_k, kept) keys pass. O(limit) per key. */
bool mask_in_top_k(const float *s, int limit, const unsigned char *keep, int top_k, int j);

#endif
