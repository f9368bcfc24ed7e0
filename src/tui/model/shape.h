/*
 * shape.h - the shape tweaks (shape.c), as rows of the workbench's key
 * table call them: fn(app, dir, key), dir +1 or -1 (shape_toggle: 0 causal mask, 1
 * scale, 2 the current head). Each returns APP_* flags.
 */
#ifndef SHAPE_H
#define SHAPE_H

#include "app.h"

unsigned shape_heads(struct app *app, int dir, int key);  /* keeps h x d_k = d_model when it holds */
unsigned shape_dk(struct app *app, int dir, int key);
unsigned shape_kv(struct app *app, int dir, int key);     /* the next divisor of h */
unsigned shape_tokens(struct app *app, int dir, int key);
unsigned shape_dmodel(struct app *app, int dir, int key);
unsigned shape_layers(struct app *app, int dir, int key); /* 1..MHA_MAX_LAYERS on the residual stream */
unsigned shape_topk(struct app *app, int dir, int key);
unsigned shape_toggle(struct app *app, int which, int key);

/* The rule for what survives a change of shape, as the help overlay and
 * the man page state it. */
extern const char shape_keep_rule[];

#endif
