#!/bin/sh
# exported_names.sh LIB PREFIX...: every symbol the static library LIB
# defines for other code starts with one of the prefixes (a library's
# internals are static or carry its name, so they never collide with
# another library's parse_int).
lib=$1
shift
pattern=$(echo "$*" | tr ' ' '|')
bad=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TDBRCGS]$/ { print $3 }' | grep -v -E "^($pattern)" | sort -u)
if [ -n "$bad" ]; then
	echo "$lib exports names without the prefix ($*):"
	echo "$bad"
	exit 1
fi
