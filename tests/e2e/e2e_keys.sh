#!/bin/sh
# Keys a terminal sends in one burst are one key: Alt-x (ESC x) is not Esc
# and then x (which would switch head 0 off). Ctrl-L redraws the screen.
. "$(dirname "$0")/lib.sh"
start 80 24
wait_for "1 Projection"
keys 4
wait_for "P₀ 6x6 = softmax"
keys M-x
keys 3
wait_for "S₀ 6x6 = Q₀"
quiet
screen | grep -q "switched off" && fail "Alt-x switched a head off"
keys x
wait_for "switched off"
keys C-l
quiet
screen | grep -q "S₀ 6x6 = Q₀" || fail "Ctrl-L lost the screen"
keys q
wait_for "EXIT=0"
pass
