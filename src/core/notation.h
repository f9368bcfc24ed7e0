/*
 * notation.h - the one way a cell of the pipeline is written, wherever a
 * learner reads one (status line, goal line, heatmap readout, prompts,
 * lessons' messages): the matrix's name, the head as a subscript when the
 * tensor is per head, then [row,column], 0-based as on screen:
 *
 *   P₀[2,0]    head 0 of P, query row 2, key column 0   (ASCII: P_0[2,0])
 *   S₁[0,4]    W^Q[11,12]    X[1,0]    Y[3,0]
 *   P₀[2 sat, 0 the]   the same with the token labels where an index is a token
 *   W^Q[*,4..7]   P₀[2,*]   W^O   ranges: lo..hi inclusive, * for all
 *
 * A per-head tensor written without a head means every head ("P[2,*]").
 * notation.c writes it; the lessons' parser (src/lesson/ref.c) reads it.
 * Text only: no curses, no widths beyond bytes.
 */
#ifndef NOTATION_H
#define NOTATION_H

#include <stdbool.h>
#include <stddef.h>

#include "mha.h"
#include "pipeline.h"

/* Room for any reference, labels included. */
enum { NOTATION_MAX = 96 };

/* One index: lo..hi inclusive; hi = -1 means "to the last" (0, -1 is "*"). */
struct notation_range {
	int lo, hi;
};

/* S, P and O: one matrix a head, the head written as a subscript. */
bool notation_per_head(enum mha_tensor t);
/* Does the row (column) index of t count tokens (so a label can follow)?
 * Rows: every tensor but the weights; columns: S and P only. */
bool notation_row_is_token(enum mha_tensor t);
bool notation_col_is_token(enum mha_tensor t);

/* i as subscript digits: "₁₂" (UTF-8), "12" (ASCII). Returns buf. */
char *notation_subscript(char *buf, size_t len, int i, bool utf8);

/* The subscript digit (U+2080..U+2089, 3 bytes) at p: its value, else -1. */
int notation_sub_digit(const char *p);

/* name with i as its subscript: "Q₀" / "Q_0" (a head's block of Q, or
 * head i's matrix), whatever the name. Returns buf. */
char *notation_sub_name(char *buf, size_t len, const char *name, int i, bool utf8);

/* The matrix: "P₀" / "P_0" for head 0 of a per-head tensor, else the
 * tensor's name ("W^Q"); head < 0: the name alone. Returns buf. */
char *notation_matrix(char *buf, size_t len, enum mha_tensor t, int head, bool utf8);

/* Does token i's label occur at another index below n? */
bool notation_token_repeated(const char (*labels)[MHA_LABEL_MAX], int n, int i);

/* Token i's label as the heatmaps write it: the word, and when the word
 * occurs more than once among the n labels, its index as a subscript
 * ("the₄"; ASCII "the4"). "" without labels. Returns buf. */
char *notation_token(char *buf, size_t len, const char (*labels)[MHA_LABEL_MAX], int n, int i,
                     bool utf8);

/* Cells as text: r[0] the head (read only for per-head tensors; "*" is
 * every head), r[1] the row, r[2] the column. Trailing "all" indices are
 * left out together ("W^O", "P₀"), else both are written ("P₀[2,*]",
 * "W^Q[*,4..7]"). Returns buf. */
char *notation_ref(char *buf, size_t len, enum mha_tensor t, const struct notation_range r[3], bool utf8);

/* One cell: "P₀[2,0]"; with labels (n of them; NULL for none) each index
 * that is a token is followed by its word: "P₀[2 sat, 0 the]",
 * "X[1 cat, 0]" (the index tells a repeated word apart). Returns buf. */
char *notation_cell(char *buf, size_t len, const struct cell *c, const char (*labels)[MHA_LABEL_MAX], int n,
                    bool utf8);
/* The same with cross-attention's source: the tokens of the keys' axis
 * (rows of X_kv, K, V, K_rot; columns of S and P) are kv_labels' (m of
 * them) when m > 0: "P₀[2 cat, 0 le]". */
char *notation_cell_cross(char *buf, size_t len, const struct cell *c, const char (*labels)[MHA_LABEL_MAX], int n,
                          const char (*kv_labels)[MHA_LABEL_MAX], int m, bool utf8);

/* Rows [r0, r1) x columns [c0, c1) of matrix m (a dependency): "S₀[2,*]",
 * "Q[2,0..3]" (a full span is "*"). Returns buf. */
char *notation_rect(char *buf, size_t len, const struct mha_config *cfg, enum mha_tensor t,
                    const struct cell_rect *d, bool utf8);

/* Text in the notation made ASCII, in place: a run of subscript digits
 * after a capital letter (a matrix, "P₀") becomes "_0" ("P_0"), after
 * anything else (a repeated word, "the₄") the digits ("the4"), as the
 * heatmaps write it; other text is unchanged. The result is at most as
 * long as s, in bytes (3 bytes become 1 or 2). */
void notation_ascii(char *s);

#endif
