/*
 * forward.h - what plan.c shares with forward.c (internal to the core):
 * the fast teaching-size forward with per-stage clocks, and the clock.
 */
#ifndef FORWARD_H
#define FORWARD_H

#include "mha.h"

double stage_clock(void);
/* seconds[st] += now - *t0, then *t0 = now; nothing when seconds is NULL. */
void stage_lap(double *seconds, enum mha_stage st, double *t0);
/* mha_forward, adding each stage's time to seconds[MHA_STAGE_COUNT]
 * (NULL: no clock read). */
void forward_fast(const struct mha_config *c, const struct mha_weights *w,
                  struct mha_acts *a, double *seconds);

#endif
