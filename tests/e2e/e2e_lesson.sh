#!/bin/sh
# A learner's first run (issue 4): the menu beside the workbench (M); open
# lesson 1, step with n, complete an exercise (a choice, then a typed value) and see
# the tick; quit; start again and land on the same step.
. "$(dirname "$0")/lib.sh"
PROGRESS="$XDG_STATE_HOME/mha-tui/progress.txt"
start 80 24
wait_for "1 Projection"
keys M
wait_for "Lessons  Enter opens, Esc back"
wait_for "9   Head count (Table 3)"
wait_for "Symbols: n tokens, d model width,"
keys 1 Enter
wait_for "Step 1 of 6: What attention does"
keys n
wait_for "Step 2 of 6: Scores"
keys n
wait_for "Step 3 of 6: Predict a weight"
wait_for "Softmax and every later stage"
keys n
wait_for "n again leaves it"
keys n
wait_for "Step 4 of 6: Steer a query"
wait_for "Not yet: answer the question"
keys a d
wait_for "Your answer: d (right)"
wait_for "P₀[2,*] = 2 (sat), want 1 (cat)"
keys 1
wait_for "Q 4x4 = X 4x4 . W^Q 4x4"
quiet
keys l Enter
type_text "3"
wait_for "W^Q[2,1] = 3_"
keys Enter
wait_for "✓ Goal met: all 2 conditions hold"
wait_for "goal met! step 4 of 6 done"
keys q
wait_for "EXIT=0"
grep -q '^place one-head steer$' "$PROGRESS" || fail "progress lacks the place: $(cat "$PROGRESS")"
grep -q '^done one-head/steer$' "$PROGRESS" || fail "progress lacks the exercise: $(cat "$PROGRESS")"
stop
start 80 24
wait_for "Step 4 of 6: Steer a query"
wait_for "Lesson 1: Attention with one head"
keys q
wait_for "EXIT=0"
pass
