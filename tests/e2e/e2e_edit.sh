#!/bin/sh
# Typing a value into X changes Q (seen on the Reshape stage), a bad value
# is refused with a message and changes nothing, and u undoes.
. "$(dirname "$0")/lib.sh"
start 80 24 -- --seed 1
wait_for "X[0 the, 0] = 0.13312304"
keys 2
wait_for "Q₀ 6x4"
quiet
before=$(screen | grep '^the' | head -1)
keys 1
wait_for "X[0 the, 0]"
keys Enter
type_text "2.5"
wait_for "= 2.5_"
keys Enter
wait_for "set to 2.5"
keys 2
wait_for "Q₀ 6x4"
quiet
after=$(screen | grep '^the' | head -1)
[ "$before" != "$after" ] || fail "Q's first row did not change: $after"
keys 1
keys Enter
type_text "nan"
keys Enter
wait_for "not changed"
keys Escape
quiet
keys u
wait_for "undone"
wait_for "X[0 the, 0] = 0.13312304"
pass
