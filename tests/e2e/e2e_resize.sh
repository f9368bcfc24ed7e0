#!/bin/sh
# Shrinking to 70x20 shows the size needed; growing back restores the screen.
. "$(dirname "$0")/lib.sh"
start 80 24
wait_for "1 Projection"
tmux -L "$SOCK" resize-window -x 70 -y 20
wait_for "needs a terminal of at least 80x24"
wait_for "this one is 70x20"
tmux -L "$SOCK" resize-window -x 80 -y 24
wait_for "1 Projection  2 Reshape"
wait_gone "needs a terminal"
tmux -L "$SOCK" resize-window -x 160 -y 50
wait_for "Lesson"
pass
