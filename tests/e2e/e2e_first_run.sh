#!/bin/sh
# The first run (no session, no progress) opens on the lesson menu with
# lesson 1 selected: Enter starts it. Esc instead leads to the free
# workbench, whose hint line names M, the menu. The next run is not a first
# run: it opens where the learner left off.
E2E_FIRST_RUN=1
. "$(dirname "$0")/lib.sh"
start 80 24
wait_for "Enter: start lesson 1, Attention with one head"
wait_for "Enter opens, Esc back"
keys Enter
wait_for "lesson 1, step 1 of"
keys q
wait_for "EXIT=0"
stop
rm -rf "$XDG_STATE_HOME"
start 80 24
wait_for "Enter: start lesson 1"
keys Escape
wait_gone "Enter opens, Esc back" # the free workbench takes the pane's room
quiet
screen | grep -q "M men" || fail "the hint line does not name M, the lesson menu"
keys 4
wait_for "P₀ 6x6 = softmax"
keys q
wait_for "EXIT=0"
stop
start 80 24
wait_for "1 Projection"
quiet
screen | grep -q "Enter: start lesson" && fail "the second run greeted like the first"
keys q
wait_for "EXIT=0"
pass
