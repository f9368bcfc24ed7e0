#!/bin/sh
# At 80x24, Tab walks all seven stages, each with its formula; 1-7 jump;
# Shift-Tab goes back.
. "$(dirname "$0")/lib.sh"
start 80 24
wait_for "1 Projection  2 Reshape  3 Scores  4 Softmax  5 Weighted sum  6 Concat  7 W^O"
wait_for "Q 6x16 = X 6x16 . W^Q 16x16"
wait_for "Parameters"
for f in "Q 6x16 -> 4 heads of 6x4" "S₀ 6x6 = Q₀ 6x4 . K₀^T 4x6" "P₀ 6x6 = softmax(S₀)" \
         "O₀ 6x4 = P₀ 6x6 . V₀ 6x4" "Concat 6x16 = [O₀ ... O₃]" "Y 6x16 = Concat 6x16 . W^O 16x16"; do
	keys Tab
	wait_for "$f"
done
keys BTab
wait_for "Concat 6x16 = [O₀ ... O₃]"
keys 2
wait_for "max |diff|"
keys 1
wait_for "Q 6x16 = X 6x16 . W^Q 16x16"
pass
