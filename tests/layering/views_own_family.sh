#!/bin/sh
# views_own_family.sh DIR - every .c of DIR (src/tui/views) includes, of
# the headers in DIR, only those of its own family: the part of the
# file's name before the first '_' ("train" for train_ablate.c and
# train_view_int.h, "kv" for kv_view.c). Each include that breaks it is
# printed; exit 1 then.
set -eu
dir=$1
status=0
for c in "$dir"/*.c; do
	file=$(basename "$c" .c)
	family=${file%%_*}
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$c"); do
		[ -f "$dir/$h" ] || continue # a header of a layer below
		case "$h" in
		"$family".h | "$family"_*) ;;
		*)
			echo "$file.c includes $h: a view includes no other view's file (doc/DESIGN.md)"
			status=1
			;;
		esac
	done
done
exit $status
