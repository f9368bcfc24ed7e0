/*
 * deps.h - what each cell was computed from. Every dependency of one cell
 * on one source tensor is a single rectangle (a row, a column, or a row
 * within a head block), so it is returned as one. Pure: no curses.
 */
#ifndef DEPS_H
#define DEPS_H

#include <stdbool.h>

#include "mha.h"

/* One cell of a tensor: matrix m (the head for per-head tensors), row r, column c. */
struct cell {
	enum mha_tensor t;
	int m, r, c;
};

/* Rows [r0, r1) x columns [c0, c1) of matrix m of a tensor. */
struct cell_rect {
	int m, r0, r1, c0, c1;
};

/* true, with *out, when `target` is computed from cells of tensor src:
 *   Q/K/V[r][c]   <- X row r, W^Q/W^K/W^V column c
 *   S_i[r][c]     <- Q row r within head block i, K row c within kv block j
 *   P_i[r][c]     <- S_i row r
 *   O_i[r][c]     <- P_i row r, V column j*dk + c
 *   Concat[r][c]  <- O_(c/dk) cell (r, c % dk)
 *   Y[r][c]       <- Concat row r, W^O column c
 * (j = the kv head of query head i). Inputs depend on nothing. */
bool deps_rect(const struct mha_config *cfg, const struct cell *target, enum mha_tensor src,
               struct cell_rect *out);

/* Is cell (m, r, c) of src one that target was computed from? */
bool deps_is_source(const struct mha_config *cfg, const struct cell *target, enum mha_tensor src,
                    int m, int r, int c);

#endif
