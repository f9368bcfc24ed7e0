#!/usr/bin/python3
"""gen_lm_fixtures.py - the shipped language model's next-token predictions
on a few sentences, computed independently in float64 numpy from the model
file and its vocabulary (doc/LANGUAGE_MODEL.md gives the format and the
math), written to tests/fixtures/lm/next.txt. tests/train/test_lm_reference.c
replays them against mha-tui's own tokenizer and forward (1e-4 on every
probability).

Nothing here calls mha-tui: the tokenizer is written again from its rules,
the forward from its formulas:

    x_0 = E[t] + P[0..n-1]
    per layer l, per head i (columns i*dk .. (i+1)*dk - 1 of Q, K, V):
        S_i = Q_i K_i^T / sqrt(dk),  keys after the query masked (causal)
        P_i = softmax(S_i) by rows,  O_i = P_i V_i
    Y = [O_0 .. O_h-1] W^O (a head switched off gives a zero block)
    x_{l+1} = x_l + Y
    p = softmax(x_L U) by rows

Usage: /usr/bin/python3 tools/gen_lm_fixtures.py [MODEL] [OUT]
(default assets/lm.model, tests/fixtures/lm/next.txt). Same output again
for the same model.
"""
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SENTENCES = [
    "the dog saw the cat and the dog ran",
    "The zyzzyva's tail, (curled) - \"up\"!",
    "a small red flower with a long stem ; a small red flower with a long stem",
    "in a careful manner ; \"she spoke carefully to the child\"",
    # 64 tokens, the whole context
    " ".join(("the man walked to the house and the woman ran to the store ; " * 6).split()[:64]),
]
TOP = 5


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def is_word(b):
    return (0x61 <= b <= 0x7A) or (0x41 <= b <= 0x5A) or (0x30 <= b <= 0x39) or b >= 0x80


def is_letter(b):
    return (0x61 <= b <= 0x7A) or (0x41 <= b <= 0x5A)


def split(text):
    """The tokens of text as bytes, by the rules of doc/LANGUAGE_MODEL.md."""
    s = text.encode()
    out, i, prev_word, prev_end = [], 0, False, -1
    while i < len(s):
        if s[i] in b" \t\n\r\f\v":
            i += 1
            continue
        start, word = i, False
        if is_word(s[i]):
            while i < len(s) and is_word(s[i]):
                i += 1
            word = True
        elif s[i] == 0x27 and prev_word and prev_end == i and i + 1 < len(s) and is_letter(s[i + 1]):
            i += 1
            while i < len(s) and is_letter(s[i]):
                i += 1
        elif s[i:i + 5] in (b"<unk>", b"<doc>"):
            word = s[i:i + 5] == b"<unk>"
            i += 5
        else:
            i += 1
        out.append(s[start:i])
        prev_word, prev_end = word, i
    return out


def read_vocab(path):
    lines = open(path, "rb").read().split(b"\n")
    assert lines[0] == b"mha-tui vocab 1", path
    size = int(lines[1].split()[1])
    words = lines[2:2 + size]
    return {w: i for i, w in enumerate(words)}, words


def read_model(path):
    data = open(path, "rb").read()
    head, _, rest = data.partition(b"\ndata float32le ")
    count_line, _, body = rest.partition(b"\n")
    count = int(count_line)
    assert body[4 * count:] == b"end\n", "the data is not followed by end"
    flat = np.frombuffer(body[:4 * count], dtype="<f4").astype(np.float64)
    meta = {}
    for line in head.decode().split("\n"):
        key, _, value = line.partition(" ")
        meta[key] = value
    f = meta["shape"].split()
    shape = dict(zip(f[0::2], map(int, f[1::2])))
    L, d, h, dk, V, n = (shape[k] for k in ("layers", "d_model", "heads", "d_k", "vocab", "tokens"))
    off = [int(x) for x in meta["heads_off"].split()[1:]]
    heads_off = set(zip(off[0::2], off[1::2]))
    at = 0

    def take(rows, cols):
        nonlocal at
        t = flat[at:at + rows * cols].reshape(rows, cols)
        at += rows * cols
        return t

    model = {"E": take(V, d), "P": take(n, d), "layers": []}
    for _ in range(L):
        model["layers"].append({k: take(*s) for k, s in
                                (("wq", (d, h * dk)), ("wk", (d, h * dk)), ("wv", (d, h * dk)),
                                 ("wo", (h * dk, d)))})
    model["U"] = take(d, V)
    assert at == count
    model.update(h=h, dk=dk, n=n, heads_off=heads_off, vocab_file=meta["vocab"].split()[0])
    return model, fnv1a64(data)


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def forward(model, ids):
    n, h, dk = len(ids), model["h"], model["dk"]
    x = model["E"][ids] + model["P"][:n]
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    for l, w in enumerate(model["layers"]):
        q, k, v = x @ w["wq"], x @ w["wk"], x @ w["wv"]
        concat = np.zeros((n, h * dk))
        for i in range(h):
            c = slice(i * dk, (i + 1) * dk)
            s = q[:, c] @ k[:, c].T / np.sqrt(dk)
            s[future] = -np.inf
            if (l, i) not in model["heads_off"]:
                concat[:, c] = softmax(s) @ v[:, c]
        x = x + concat @ w["wo"]
    return softmax(x @ model["U"])


def main():
    model_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "assets", "lm.model")
    out_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "tests", "fixtures", "lm", "next.txt")
    model, fp = read_model(model_path)
    index, words = read_vocab(os.path.join(os.path.dirname(model_path), model["vocab_file"]))
    lines = ["# tools/gen_lm_fixtures.py: float64 numpy forward of %s (FNV-1a 64 of the file %016x);"
             % (os.path.basename(model_path), fp),
             "# per sentence its ids, then per position the %d most probable next tokens (id p)." % TOP,
             "model %016x" % fp]
    for text in SENTENCES:
        toks = split(text)
        ids = [index.get(t.lower(), 0) if len(t) <= 15 else 0 for t in toks]
        assert 1 <= len(ids) <= model["n"], text
        p = forward(model, ids)
        lines.append("sentence " + text)
        lines.append("ids " + " ".join(map(str, ids)))
        for i in range(len(ids)):
            order = sorted(range(p.shape[1]), key=lambda t: (-p[i, t], t))[:TOP]
            lines.append("next %d " % i + " ".join("%d %.12g" % (t, p[i, t]) for t in order))
    lines.append("end")
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s: %d sentences" % (out_path, len(SENTENCES)))


if __name__ == "__main__":
    main()
