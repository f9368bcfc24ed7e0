/*
 * bench_ui.h - how long one edit takes to reach the screen: a nudge of an
 * input cell, mha_forward over every stage, and a full redraw of the
 * Softmax stage (matrices, row sums and entropies, heatmaps, counts) into a
 * virtual 160x50 screen (newterm on /dev/null). Links against the tui
 * library.
 */
#ifndef BENCH_UI_H
#define BENCH_UI_H

/* Runs reps edits at n tokens, d_model d, h heads (g = h, d_k = d / h) and
 * stores the median and 90th percentile in milliseconds. Returns 0, or -1
 * when the configuration is invalid, reps < 1, or the screen or memory
 * cannot be had. */
int bench_ui_measure(int n, int d, int h, int reps, double *median_ms, double *p90_ms);

#endif
