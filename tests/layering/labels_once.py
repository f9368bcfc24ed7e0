#!/usr/bin/env python3
"""labels_once.py SRC - every stage label is written once: in the pipeline's
table (src/core/pipeline.c). No other source file of SRC (C, headers, the
embedded Python) holds one inside a string literal; they ask
pipeline_stage_label, or are handed the labels. Comments may name a stage.
A label that is also a tensor's name ("Concat", "W^O": formulas write the
tensor) is not looked for. Each literal that holds a label is printed, and
the exit status is 1 then."""
import io
import os
import re
import sys
import tokenize

src = sys.argv[1]
pipeline = open(os.path.join(src, "core", "pipeline.c")).read()
labels = re.findall(r'\[PIPELINE_\w+\] = \{ "([^"]+)"', pipeline)
tensors = set(re.findall(r'\[MHA_T_\w+\]\s*= \{ "([^"]+)"', open(os.path.join(src, "core", "tensor.c")).read()))
if len(labels) < 7 or not tensors:
    sys.exit("labels_once.py: no stage table or tensor table found in %s" % src)
words = [l for l in labels if l not in tensors]
pattern = re.compile(r"(?<![\w^])(%s)(?![\w^])" % "|".join(re.escape(w) for w in words))


def c_literals(text):
    """The string literals of C source text, comments and characters left out."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            i = text.find("*/", i + 2) + 2 or n
        elif text.startswith("//", i):
            i = text.find("\n", i) + 1 or n
        elif text[i] == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append((text.count("\n", 0, i) + 1, text[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return out


def py_literals(text):
    return [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.STRING]


bad = 0
for root, _, files in os.walk(src):
    for name in sorted(files):
        path = os.path.join(root, name)
        if path == os.path.join(src, "core", "pipeline.c") or not name.endswith((".c", ".h", ".py")):
            continue
        text = open(path, encoding="utf-8").read()
        for line, lit in (py_literals(text) if name.endswith(".py") else c_literals(text)):
            m = pattern.search(lit)
            if m:
                print("%s:%d: the stage label '%s' written again (ask pipeline_stage_label): \"%s\""
                      % (os.path.relpath(path, src), line, m.group(1), lit[:80]))
                bad = 1
sys.exit(bad)
