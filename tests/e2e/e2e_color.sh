#!/bin/sh
# NO_COLOR=1 and TERM=xterm still render every stage; LC_ALL=C gives the
# ASCII ramp, C.UTF-8 the block characters.
. "$(dirname "$0")/lib.sh"
start 80 24 NO_COLOR=1 TERM=xterm
wait_for "1 Projection"
# each stage by its formula (at 80x24 Scores, Softmax and Weighted sum
# give the counts' column to their three matrices)
for k in 2 3 4 5 6 7; do
	keys "$k"
	case $k in
	2) wait_for "-> 4 heads of 6x4" ;;
	3) wait_for "^T 4x6 / sqrt(d_k)" ;;
	4) wait_for "= softmax(" ;;
	5) wait_for "weighted by P's row" ;;
	6) wait_for "x switches a head off" ;;
	7) wait_for "= Concat 6x16 . W^O 16x16" ;;
	esac
	[ "$k" = 3 ] || [ "$k" = 4 ] || [ "$k" = 5 ] || wait_for "Parameters"
done
keys 4 # W^O's heatmaps give way to its matrices: Softmax has them
wait_for "3 next"  # head 3 of the default workbench, titled with what it finds
keys q
wait_for "EXIT=0"
stop
start 80 24 LC_ALL=C -- --no-color
wait_for "1 Projection"
keys 4
wait_for "3 next"  # head 3 of the default workbench, titled with what it finds
quiet
if screen | grep -q '[░▒▓█]'; then fail "UTF-8 blocks under LC_ALL=C"; fi
screen | grep -q -e '#@@ ' -e '#@ ' -e '%@ ' || fail "no ASCII legend under LC_ALL=C"
keys q
wait_for "EXIT=0"
stop
start 160 50 LC_ALL=C.UTF-8
wait_for "1 Projection"
keys 4
wait_for "3 next"  # head 3 of the default workbench, titled with what it finds
screen | grep -q '█' || fail "no block characters under C.UTF-8"
keys q
wait_for "EXIT=0"
pass
