/*
 * decode_view.h - the decode view (o): prefill and token-by-token decode
 * with the K/V cache filling, each row checked against the causal full
 * pass, and a step's cost against a recompute (decode_view.c).
 */
#ifndef DECODE_VIEW_H
#define DECODE_VIEW_H

#include "app.h"

/* o: open the view (prefill of one token), or close it. */
unsigned decode_view_toggle(struct app *app, int arg, int key);
/* Free what the view holds (leaving it does; app_free calls it too). */
void decode_view_free(struct app *app);

extern const struct mode_ops decode_view_mode;

#endif
