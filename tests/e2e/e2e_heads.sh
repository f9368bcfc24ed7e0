#!/bin/sh
# ] and [ change the number of heatmaps; m zeroes the upper triangle.
. "$(dirname "$0")/lib.sh"
start 80 24
wait_for "1 Projection"
keys '#' # the whole width for the workbench: the lesson pane makes way
wait_gone "Lessons"
keys 4
wait_for "P₀ 6x6 = softmax"
quiet
[ "$(screen | grep -o 'h\(ead \)\{0,1\}[0-9]' | wc -l)" -eq 4 ] || fail "expected 4 heatmaps"
keys ]
wait_for "h 8  h_kv 8  d_k 2"
quiet
[ "$(screen | grep -o 'h\(ead \)\{0,1\}[0-9]' | wc -l)" -eq 8 ] || fail "expected 8 heatmaps after ]"
keys [ [
wait_for "h 2  h_kv 2  d_k 8"
quiet
[ "$(screen | grep -o 'h\(ead \)\{0,1\}[0-9]' | wc -l)" -eq 2 ] || fail "expected 2 heatmaps after [ ["
keys m
wait_for "mask causal"
keys 3 # Scores: S_0's first row masked after the diagonal
wait_for " -inf  -inf"
keys 4
wait_for "1.00  0.00"
pass
