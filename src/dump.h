/*
 * dump.h - the whole computation as one JSON object (mha-tui --dump json).
 * Every key is described in doc/DUMP.md (tests/cli/check_dump.py fails
 * on one it does not name).
 */
#ifndef DUMP_H
#define DUMP_H

#include <stdio.h>

#include "grad.h"
#include "mha.h"

/* Write the JSON object and a newline, from a finished mha_stack_forward
 * (layer 0 at the top level, every layer under "layers"). Returns 0, or -1
 * on a write error. */
int dump_json(FILE *f, const struct mha_config *c, const struct mha_weights *w,
              const struct mha_stack *s);

/* The same with a "grad" object appended when g is not NULL: the gradients
 * of L = 1/2 sum(Y^2), Y the last layer's (mha_stack_backward_half_square),
 * with respect to X, W^Q, W^K, W^V, W^O (and b^Q .. b^O with cfg.bias, X_kv
 * with cross-attention, P_pos with learned positions, every layer's W's),
 * keyed and shaped as the forward's "X", "W_Q", ..., "b_Q", ... */
int dump_json_grad(FILE *f, const struct mha_config *c, const struct mha_weights *w,
                   const struct mha_stack *s, const struct mha_stack_grads *g);

/* The pieces the dumps share: a float matrix (rows, cols; row stride ld)
 * as an array of rows (%.9g), a string with quotes, backslashes and
 * control bytes escaped. */
void dump_put_matrix(FILE *f, const float *p, int rows, int cols, int ld);
void dump_put_string(FILE *f, const char *s);

#endif
