#!/usr/bin/env python3
"""embed.py FILE NAME OUT - FILE's text as a C array NAME in OUT, for the
build: `const char *const NAME[] = { "line\\n", ..., NULL };`, a string a
line of FILE (no literal too long for a C compiler), so that a script the
program writes is kept as a real file (linted as one) and not as C
literals. The bytes are FILE's, escaped for C."""
import sys

path, name, out = sys.argv[1:4]
with open(path, encoding="utf-8") as f:
    text = f.read()
lines = ["/* Generated from %s by src/export/embed.py at build time: edit that file. */" % path.split("/")[-1],
         "extern const char *const %s[];" % name, "const char *const %s[] = {" % name]
for line in text.splitlines(keepends=True):
    esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    lines.append('\t"%s",' % esc)
lines.append("\t0,\n};")
with open(out, "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
