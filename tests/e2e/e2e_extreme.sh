#!/bin/sh
# Extreme values: 1000000 typed into cells of X, W^Q and W^K; at Scores the
# numbers fit their columns in exponent form, nothing reads nan or inf, and
# the status line gives the full value of the cursor's cell.
. "$(dirname "$0")/lib.sh"
set_cell() {
	keys Enter
	type_text "$1"
	keys Enter
	wait_for "set to $1"
}
start 80 24 -- --seed 1
wait_for "X[0 the, 0]"
for i in 1 2 3 4; do set_cell 1000000; keys l; done
keys c
for i in 1 2 3 4; do set_cell 1000000; keys j; done
keys v
wait_for "K 6x16 = X 6x16 . W^K 16x16"
for i in 1 2 3 4; do keys k; set_cell -1000000; done
keys 3
wait_for "S₀ 6x6 = Q₀"
keys c c
wait_for "cursor in S₀"
wait_gone "cursor in S₀"
quiet
screen | grep -q -i -e nan -e inf && fail "nan or inf on screen"
screen | grep -q '^the[^ ]*  *[-0-9.]*e[0-9][0-9]* ' || fail "no exponent form in the first row of Q₀"
# the status line: the whole value of S₀[0 the, 0 the], 9 significant digits
screen | grep -q '^S₀\[0 the, 0 the\] = [-0-9.]*e+[0-9]*   from' || fail "the status line lacks the full value"
keys q
wait_for "EXIT=0"
pass
