/*
 * pipeline.h - the vocabulary of the pipeline that every library shares:
 * the seven stages a learner walks through (names and labels written
 * once, what each stage reads and writes), the one cell type, which cells
 * each cell is computed from, whether a score is masked, and a softmax
 * row's entropy. Lessons, the workbench and the tests all use these.
 *
 *   n = tokens, d = d_model, h = heads, g = kv heads, dk = head size
 *
 * It knows shapes and the activations' layout (mha.h), never curses,
 * files or lessons. The profiling phases of the planned forward
 * (enum mha_phase in mha.h) are not these stages.
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stdbool.h>

#include "mha.h"

/* The stages in the learner's order, as the workbench's bar and the
 * lessons' @focus / @hide name them. */
enum pipeline_stage {
	PIPELINE_PROJECTION,   /* Q, K, V = X W^Q, X W^K, X W^V */
	PIPELINE_RESHAPE,      /* Q_i = Q[:, i dk:(i+1) dk] */
	PIPELINE_SCORES,       /* S_i = Q_i K_j^T / sqrt(dk) */
	PIPELINE_SOFTMAX,      /* P_i = softmax(mask(S_i)) */
	PIPELINE_WEIGHTED_SUM, /* O_i = P_i V_j */
	PIPELINE_CONCAT,       /* Concat = [O_0 ... O_h-1] */
	PIPELINE_OUTPUT,       /* Y = Concat W^O */
	PIPELINE_STAGE_COUNT
};

enum { PIPELINE_READS_MAX = 4 };

struct pipeline_stage_info {
	const char *label;      /* as on screen and in lessons: "Weighted sum" */
	enum mha_tensor writes; /* the tensor the stage computes (Reshape: Q, seen per head) */
	/* the tensors it computes from, MHA_T_COUNT after the last */
	enum mha_tensor reads[PIPELINE_READS_MAX + 1];
	bool heatmaps;          /* its screen shows the per-head n x n maps */
	const char *brief;      /* the label where room is short (the counts' narrow form): "QK^T" */
};

const struct pipeline_stage_info *pipeline_stage_info(enum pipeline_stage s);
/* The label, or "?" out of range. */
const char *pipeline_stage_label(enum pipeline_stage s);
/* A stage by its label, any case, '-' or '_' for a space ("weighted-sum");
 * -1 when none. */
int pipeline_stage_by_label(const char *text);
/* The stage whose screen a computed tensor belongs to (the stage that
 * writes it); PIPELINE_STAGE_COUNT for the inputs. */
enum pipeline_stage pipeline_stage_of(enum mha_tensor t);

/* One cell of a tensor: matrix m (the head for per-head tensors), row r,
 * column c. */
struct cell {
	enum mha_tensor t;
	int m, r, c;
};

/* Rows [r0, r1) x columns [c0, c1) of matrix m of a tensor. */
struct cell_rect {
	int m, r0, r1, c0, c1;
};

/* true, with *out, when `target` is computed from cells of tensor src:
 *   Q/K/V[r][c]   <- X row r (and PE row r, sinusoidal or learned), W^Q/W^K/W^V
 *                    column c; K, V of cross-attention: X_kv row r
 *   PE[r][c]      <- P_pos[r][c] (learned; sinusoidal PE depends on no input)
 *   x_l[r][c]     <- X[r][c], PE[r][c] (layer 0's x_0 = X + PE)
 *   Q_rot[r][c]   <- Q row r, the pair of columns holding c (RoPE); K_rot likewise
 *   S_i[r][c]     <- Q row r within head block i, K row c within kv block j
 *                    (Q_rot, K_rot with RoPE)
 *   P_i[r][c]     <- S_i row r
 *   O_i[r][c]     <- P_i row r, V column j*dk + c
 *   Concat[r][c]  <- O_(c/dk) cell (r, c % dk)
 *   Y[r][c]       <- Concat row r, W^O column c
 *   x_l+1[r][c]   <- x_l[r][c], Y[r][c]
 * (j = the kv head of query head i). Every dependency of one cell on one
 * source tensor is a single rectangle. Inputs depend on nothing. In a
 * later layer of a stack the W's are that layer's and x_l is the stream. */
bool pipeline_deps_rect(const struct mha_config *cfg, const struct cell *target, enum mha_tensor src,
                        struct cell_rect *out);
/* Is cell (m, r, c) of src one that target was computed from? */
bool pipeline_is_source(const struct mha_config *cfg, const struct cell *target, enum mha_tensor src,
                        int m, int r, int c);

/* Is score (q, k) of head `head` masked, i.e. -inf before the softmax?
 * The structural mask (mha_mask_row: causal, window, padding, custom) or
 * top-k dropped the key, as the last forward into a recorded it
 * (mha_acts.kept); every key of a dead row is masked. A weight that is 0
 * only because exp underflowed is not masked. O(1). */
bool pipeline_masked(const struct mha_config *cfg, const struct mha_acts *a, int head, int q, int k);

/* Cell (r, col) of Q, K or V (t) computed again from the inputs, in
 * double: X row r (d) (+ PE row r; X_kv row r for K, V of cross-
 * attention) . column col of W^Q, W^K or W^V. The Reshape screen
 * shows a head block of these beside the block read from Q, as the proof
 * that the block is X times a column block of W. */
double pipeline_projection_again(const struct mha_config *cfg, const struct mha_weights *w,
                                 enum mha_tensor t, int r, int col);
/* The same in layer `layer` of a stack, whose activations are a: row r
 * of x_l (a->xin; X_kv for K, V of cross-attention) . column col of that
 * layer's W. Layer 0 is pipeline_projection_again. */
double pipeline_projection_again_layer(const struct mha_config *cfg, const struct mha_weights *w,
                                       const struct mha_acts *a, int layer, enum mha_tensor t, int r,
                                       int col);

/* Head i's write into Y, cell (r, col), in double: C_i = Concat[:, i dk ..
 * (i+1) dk - 1] (n, dk) . W^O[i dk .. (i+1) dk - 1, :] (dk, d), the head's
 * output times the rows of W^O that belong to it (0 for a head switched
 * off: its block of Concat is 0). Concat then W^O is a sum of heads:
 * Y = sum_i C_i (+ b^O), which the Output screen shows as its proof.
 * a is layer's activations; W^O and b^O are layer's. */
double pipeline_head_write(const struct mha_config *cfg, const struct mha_weights *w, const struct mha_acts *a,
                           int layer, int head, int r, int col);

/* Cell (r, col) of Y made again from the heads' writes, in double:
 * sum_i C_i[r][col] (+ b^O[col] with biases): the proof beside Y. */
double pipeline_writes_sum(const struct mha_config *cfg, const struct mha_weights *w, const struct mha_acts *a,
                           int layer, int r, int col);

/* A row of weights p[0..n): its sum and entropy in nats,
 * H = -sum_j p_j ln p_j (0: all weight on one key; ln n: uniform).
 * Zeros add nothing (0 ln 0 = 0). */
void pipeline_row_entropy(const float *p, int n, double *sum, double *entropy);

#endif
