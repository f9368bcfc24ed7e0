#!/bin/sh
# test_check_py.sh - the numpy script's checking half is a real Python file
# (src/export/check.py, embedded at build time by embed.py): both compile,
# and pyflakes finds nothing in them (undefined names, unused imports);
# without pyflakes (Debian python3-pyflakes) only the compile runs. That
# the script works is test_export.sh's (it runs what --export py writes).
set -eu
src=${MHA_SOURCE_ROOT:?}/src/export
py=/usr/bin/python3
[ -x "$py" ] || py=python3
for f in "$src/check.py" "$src/embed.py"; do
	"$py" -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$f"
done
if command -v pyflakes3 >/dev/null 2>&1; then
	pyflakes3 "$src/check.py" "$src/embed.py"
else
	echo "test_check_py: pyflakes3 not installed: compiled only"
fi
echo "test_check_py: ok"
