#!/usr/bin/python3
"""import_torch.py - turn one torch.nn.MultiheadAttention and an input into an
mha-tui session, so the workbench shows that layer's own numbers.

    /usr/bin/python3 tools/import_torch.py --state mha.pt --heads 8 \\
        --input x.pt [--kv-input src.pt] [--batch-first] [--batch-index 0] [--causal] \\
        [--pad 4,5] [--labels "the cat sat"] --out layer.session [--expect expect.json]

--state   a state_dict saved with torch.save(module.state_dict(), path) (or a
          whole module): in_proj_weight (3E, E) [+ in_proj_bias], or
          q_proj_weight / k_proj_weight / v_proj_weight, and out_proj.weight
          [+ out_proj.bias]. The head count is not in a state_dict: --heads.
--input   the query = key = value tensor (self-attention), .pt or .npy:
          (L, N, E), or (N, L, E) with --batch-first, or (L, E); one sequence
          of the batch is taken (--batch-index).
--kv-input  the key = value tensor of cross-attention (the source, m
          tokens; same layout as --input): query from --input, keys and
          values from it. --pad then lists the source's padded positions.
--causal  the layer is run with a causal attn_mask; --pad lists the
          key_padding_mask's True positions.
--expect  also run the module here and write PyTorch's output and per-head
          weights, for checking: as JSON ({"output": [[..]], "weights":
          [[[..]]]}) when the name ends in .json, else as fixture matrices.
          A row whose every key is masked is NaN in PyTorch, all 0 in mha-tui.
--demo SEED  make a random layer instead of --state/--input (--d-model,
          --heads, --tokens, --no-bias, --batch-first choose its shape;
          --kv-tokens M a source of M tokens for cross-attention; --layers L
          a stack of L such layers on the residual stream, x + MHA(x), whose
          last layer --expect then gives): for the tests and for trying it out.

How the numbers map (PyTorch computes x A^T + b; mha-tui computes x W + b):
    W^Q = in_proj_weight[0:E].T   W^K = in_proj_weight[E:2E].T
    W^V = in_proj_weight[2E:3E].T W^O = out_proj.weight.T
    b^Q, b^K, b^V = in_proj_bias thirds, b^O = out_proj.bias
Head i is columns [i*E/h, (i+1)*E/h) of Q, K, V in both, and both scale the
scores by 1/sqrt(E/h). A padding query row is computed over the other keys
in both; mha-tui flags it.

session_text() takes the matrices in mha-tui's x W convention with any kv
head count (GQA), for layers that are not nn.MultiheadAttention, and the
rest mha-tui holds: a source (x_kv), positions (pos, P, pos_offset), more
layers. hf_rope_pairs() reorders a Hugging Face LLaMA q_proj / k_proj
(RoPE on the halves of each head) into the pairs mha-tui turns.
doc/IMPORT.md shows both.

Everything is checked before a file is written: --out (and --expect) must
name a file in a directory that takes one, and what is at --out must be an
mha-tui session or nothing (another file is kept, and refused); the labels
(1..15 bytes of UTF-8, no blanks or control characters: fit_label() makes
one from a tokenizer's token), the values (finite, within +-1e6), --pad and
the shape must be ones mha-tui loads. Files are written atomically (a new
file beside, renamed over; through a symlink its target). Any failure is
one line on stderr, "import_torch.py: ...", and exit 1 (2 for usage).

Needs torch (Debian's python3-torch) except session_text(), which needs numpy.
"""

import argparse
import json
import os
import stat
import sys
import tempfile

import numpy as np

# mha-tui's limits (src/core/mha.h, doc/SESSION.md)
MAX_TOKENS, MAX_D_MODEL, MAX_HEADS, MAX_DK, MAX_WIDTH = 64, 1024, 64, 1024, 4096
MAX_KV_TOKENS, MAX_LAYERS, MAX_POS_OFFSET = 64, 4, 65536
LABEL_MAX_BYTES, VALUE_MAX = 15, 1e6


class ImportFailure(Exception):
    """What stops an import: said as one line, exit 1."""


def label_problem(label):
    """Why label is not one mha-tui takes (None when it is): 1..15 bytes of
    UTF-8 with no blank, control character (C0, DEL, C1) or broken byte."""
    try:
        b = label.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid UTF-8"
    if not 1 <= len(b) <= LABEL_MAX_BYTES:
        return "%d bytes: a label is 1..%d bytes of UTF-8 (fit_label() shortens one)" % (
            len(b), LABEL_MAX_BYTES)
    for ch in label:
        if ord(ch) <= 0x20 or 0x7f <= ord(ch) <= 0x9f or ch.isspace():
            return "holds a blank or a control character (U+%04X)" % ord(ch)
    return None


def fit_label(text):
    """A label mha-tui takes, made from any text (a tokenizer's token):
    blanks and control characters become '_', cut to 15 bytes at a
    character's end; an empty text is '_'."""
    out = "".join("_" if ord(c) <= 0x20 or 0x7f <= ord(c) <= 0x9f or c.isspace() else c
                  for c in text.encode("utf-8", "replace").decode("utf-8"))
    while len(out.encode("utf-8")) > LABEL_MAX_BYTES:
        out = out[:-1]
    return out or "_"


def check_values(name, a):
    """Every value finite and within +-1e6, as mha-tui loads them."""
    a = np.asarray(a, dtype=np.float64)
    bad = ~np.isfinite(a) | (np.abs(np.nan_to_num(a)) > VALUE_MAX)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ImportFailure("%s%s is %r: mha-tui takes finite values within +-1e6" % (name, list(at),
                                                                                    float(a[at])))


def parse_pad(text):
    """--pad LIST: comma-separated token positions from 0."""
    pad = []
    for item in text.split(","):
        if not item.strip():
            continue
        try:
            pad.append(int(item))
        except ValueError:
            raise ImportFailure("--pad '%s' is not a list of token positions: write them from 0, "
                                "comma-separated, as --pad 4,5" % text)
    return pad


# ---- the one way this tool writes a file (as mha-tui's src/store/writefile.c) ----

def _target(path):
    """Where the bytes for path land: through every symlink (a dangling
    one's target is created)."""
    seen = 0
    while os.path.islink(path):
        seen += 1
        if seen > 40:
            raise ImportFailure("%s: too many levels of symbolic links" % path)
        link = os.readlink(path)
        path = link if os.path.isabs(link) else os.path.join(os.path.dirname(path), link)
    return path


def check_out(path, session):
    """Everything that can be known before the work: a name, a directory
    that takes a new file, and nothing in the way that would be lost (for a
    session: anything but an mha-tui session or an empty file). Returns the
    file to write."""
    if not path:
        raise ImportFailure("no file name given for the output")
    target = _target(path)
    if os.path.exists(target):
        st = os.stat(target)
        if stat.S_ISDIR(st.st_mode):
            raise ImportFailure("%s: is a directory: give a file name" % path)
        if not stat.S_ISREG(st.st_mode):
            raise ImportFailure("%s: is not a regular file (a pipe, device or socket): not replaced" % path)
        if not st.st_mode & 0o222 or (os.geteuid() != 0 and not os.access(target, os.W_OK)):
            raise ImportFailure("%s: is read-only (mode %04o): not replaced" % (path, st.st_mode & 0o7777))
        if session:
            with open(target, "rb") as f:
                head = f.read(64)
            if head.startswith(b"\xef\xbb\xbf"):
                head = head[3:]
            if head and not head.startswith(b"mha-tui-session"):
                raise ImportFailure("%s: is not an mha-tui session (it does not start 'mha-tui-session'): "
                                    "not replaced; move it away or choose another name" % path)
    where = os.path.dirname(target) or "."
    if not os.path.isdir(where):
        raise ImportFailure("%s: its directory %s does not exist" % (path, where))
    try:
        fd, probe = tempfile.mkstemp(prefix=os.path.basename(target) + ".tmp.", dir=where)
    except OSError as e:
        raise ImportFailure("%s: cannot create a file beside it: %s" % (path, e.strerror))
    os.close(fd)
    os.unlink(probe)
    return target


def write_atomically(path, target, text):
    """text into target (check_out's answer for path): a new file beside it,
    flushed to disk, renamed over it; the old file's mode kept."""
    where = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(target) + ".tmp.", dir=where)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as e:
        os.unlink(tmp)
        raise ImportFailure("%s: write failed, %s: %s" % (
            path, "previous file kept" if mode is not None else "no file written", e.strerror))
    dfd = os.open(where, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def fmt(v):
    """A float32 written so that it reads back bit for bit (%.9g)."""
    return "%.9g" % float(np.float32(v))


def matrix_lines(name, a):
    a = np.asarray(a, dtype=np.float32)
    if a.ndim == 1:
        a = a[None, :]
    lines = ["%s %d %d" % (name, a.shape[0], a.shape[1])]
    lines += [" ".join(fmt(v) for v in row) for row in a]
    return lines


def layer_lines(wq, wk, wv, wo, biases, d, h, g, dk, layer=0):
    """One layer's matrices (W_Q .. W_O, then b_Q .. b_O when biases), checked."""
    at = " of layer %d" % layer if layer else ""
    want = {"W^Q": (d, h * dk), "W^K": (d, g * dk), "W^V": (d, g * dk), "W^O": (h * dk, d)}
    out = []
    for (name, shape), key, a in zip(want.items(), ("W_Q", "W_K", "W_V", "W_O"), (wq, wk, wv, wo)):
        check_values(name + at, a)
        a = np.asarray(a, dtype=np.float32)
        if a.shape != shape:
            raise ValueError("%s%s is %s, want %s" % (name, at, a.shape, shape))
        out += matrix_lines(key, a)
    if biases is not None:
        for name, m in (("b_Q", h * dk), ("b_K", g * dk), ("b_V", g * dk), ("b_O", d)):
            check_values(name + at, biases[name])
            b = np.asarray(biases[name], dtype=np.float32).reshape(-1)
            if b.shape != (m,):
                raise ValueError("%s%s has %d values, want %d" % (name, at, b.size, m))
            out += matrix_lines(name, b)
    return out


def check_labels(labels, what):
    """Every label one mha-tui takes (label_problem)."""
    for i, label in enumerate(labels):
        why = label_problem(label)
        if why:
            raise ValueError("%slabel %d (%r): %s" % (what, i + 1, label, why))


def session_text(x, wq, wk, wv, wo, heads, kv_heads=None, biases=None, causal=False,
                 pad=(), labels=None, scale=True, x_kv=None, kv_labels=None, pos="none",
                 pos_offset=0, p=None, layers=()):
    """An mha-tui session (doc/SESSION.md) for X (n, d), W^Q (d, h*dk),
    W^K, W^V (d, g*dk), W^O (h*dk, d), biases a dict of b_Q, b_K, b_V, b_O
    (or None): the x W convention, so pass a torch Linear's weight.T.
    x_kv (m, d): the source of cross-attention (pad then names its tokens);
    pos: "none", "learned" (p: the P matrix, (n, d)), "sinusoidal" or
    "rope" (pairs (2i, 2i+1): see hf_rope_pairs), pos_offset the first
    position; layers: further layers as (wq, wk, wv, wo, biases) tuples on
    the residual stream, shaped as the first."""
    check_values("X", x)
    x, wq = np.asarray(x, dtype=np.float32), np.asarray(wq, dtype=np.float32)
    n, d = x.shape
    h = heads
    g = kv_heads or heads
    if not 1 <= h <= MAX_HEADS or h % g:
        raise ValueError("%d heads, %d kv heads: mha-tui takes 1..%d heads, kv heads dividing them" % (
            h, g, MAX_HEADS))
    if wq.shape[1] % h:
        raise ValueError("W^Q has %d columns: not a multiple of %d heads" % (wq.shape[1], h))
    dk = wq.shape[1] // h
    if not (1 <= n <= MAX_TOKENS and 1 <= d <= MAX_D_MODEL and 1 <= dk <= MAX_DK and h * dk <= MAX_WIDTH):
        raise ValueError("tokens %d, d_model %d, d_k %d: mha-tui takes 1..%d tokens, d_model 1..%d, "
                         "d_k 1..%d, heads x d_k <= %d" % (n, d, dk, MAX_TOKENS, MAX_D_MODEL, MAX_DK,
                                                          MAX_WIDTH))
    if not 0 <= len(layers) < MAX_LAYERS:
        raise ValueError("%d layers: mha-tui takes 1..%d" % (len(layers) + 1, MAX_LAYERS))
    if pos not in ("none", "learned", "sinusoidal", "rope"):
        raise ValueError("pos %r: mha-tui takes none, learned, sinusoidal or rope" % (pos,))
    if not 0 <= pos_offset <= MAX_POS_OFFSET:
        raise ValueError("pos_offset %d: mha-tui takes 0..%d" % (pos_offset, MAX_POS_OFFSET))
    nk = n
    if x_kv is not None:
        check_values("X_kv", x_kv)
        x_kv = np.asarray(x_kv, dtype=np.float32)
        if x_kv.ndim != 2 or x_kv.shape[1] != d:
            raise ValueError("the source is %s, want (m, %d)" % (x_kv.shape, d))
        nk = x_kv.shape[0]
        if not 1 <= nk <= MAX_KV_TOKENS:
            raise ValueError("a source of %d tokens: mha-tui takes 1..%d" % (nk, MAX_KV_TOKENS))
    labels = labels or ["t%d" % (i + 1) for i in range(n)]
    if len(labels) != n:
        raise ValueError("%d labels for %d tokens" % (len(labels), n))
    check_labels(labels, "")
    for t in pad:
        if not 0 <= t < nk:
            raise ValueError("--pad %d is not a%s token: positions go from 0 to %d" % (
                t, " source" if x_kv is not None else "", nk - 1))
    out = ["mha-tui-session 1", "# written by tools/import_torch.py",
           "tokens %d" % n, "d_model %d" % d, "heads %d" % h, "kv_heads %d" % g, "d_k %d" % dk,
           "causal %d" % bool(causal), "top_k 0", "scale %d" % bool(scale), "seed 0", "heads_off"]
    if pad:
        out.append("pad " + " ".join("%d" % t for t in sorted(pad)))
    if biases is not None:
        out.append("bias 1")
    if pos != "none":
        out.append("pos " + pos)
    if pos_offset:
        out.append("pos_offset %d" % pos_offset)
    if x_kv is not None:
        out.append("kv_tokens %d" % nk)
    if layers:
        out.append("layers %d" % (len(layers) + 1))
    out.append("labels " + " ".join(labels))
    if x_kv is not None:
        kv_labels = kv_labels or ["s%d" % (j + 1) for j in range(nk)]
        if len(kv_labels) != nk:
            raise ValueError("%d labels for %d source tokens" % (len(kv_labels), nk))
        check_labels(kv_labels, "source ")
        out.append("kv_labels " + " ".join(kv_labels))
    out += matrix_lines("X", x)
    out += layer_lines(wq, wk, wv, wo, biases, d, h, g, dk)
    if x_kv is not None:
        out += matrix_lines("X_kv", x_kv)
    if pos == "learned":
        check_values("P", p)
        p = np.asarray(p, dtype=np.float32)
        if p.shape != (n, d):
            raise ValueError("P is %s, want %s" % (p.shape, (n, d)))
        out += matrix_lines("P_pos", p)
    for l, (lq, lk, lv, lo, lb) in enumerate(layers, start=1):
        if (lb is None) != (biases is None):
            raise ValueError("layer %d: every layer has biases or none does" % l)
        out.append("layer %d" % l)
        out += layer_lines(lq, lk, lv, lo, lb, d, h, g, dk, layer=l)
    out.append("end")
    return "\n".join(out) + "\n"


def hf_rope_pairs(w, heads):
    """A Hugging Face LLaMA q_proj or k_proj, as x W (d, heads*dk), whose
    RoPE turns column i of a head with column i + dk/2 ("rotate_half"),
    reordered so that those two become mha-tui's pair (2i, 2i+1): within each
    head, new column 2i = old i, new 2i+1 = old i + dk/2. Apply it to W^Q and
    W^K alike (the scores do not change: q.k is the same sum reordered);
    W^V and W^O stay as they are."""
    w = np.asarray(w)
    d, width = w.shape
    dk = width // heads
    order = []
    for hd in range(heads):
        for i in range(dk // 2):
            order += [hd * dk + i, hd * dk + i + dk // 2]
    return w[:, order]


def layer_matrices(state):
    """W^Q, W^K, W^V, W^O and the biases (or None) of a MultiheadAttention
    state_dict, in the x W convention."""
    t = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in state.items()}
    if "bias_k" in t or "bias_v" in t:
        raise ValueError("add_bias_kv=True appends a key and a value: not an mha-tui layer")
    if "in_proj_weight" in t:
        e = t["in_proj_weight"].shape[1]
        wq, wk, wv = (t["in_proj_weight"][i * e:(i + 1) * e].T for i in range(3))
    else:
        wq, wk, wv = t["q_proj_weight"].T, t["k_proj_weight"].T, t["v_proj_weight"].T
    wo = t["out_proj.weight"].T
    biases = None
    if "in_proj_bias" in t:
        e = wq.shape[1]
        b = t["in_proj_bias"]
        biases = {"b_Q": b[:e], "b_K": b[e:2 * e], "b_V": b[2 * e:],
                  "b_O": t.get("out_proj.bias", np.zeros(wo.shape[1], np.float32))}
    return wq, wk, wv, wo, biases


def run_torch(torch, module, x, batch_first, causal, pad, x_kv=None):
    """PyTorch's own output (n, d) and per-head weights (h, n, nk) for x (n, d),
    keys and values from x, or from x_kv (m, d) for cross-attention."""
    n = x.shape[0]

    def batch(a):
        a = torch.from_numpy(np.asarray(a, dtype=np.float32))
        return a[None] if batch_first else a[:, None]

    xt = batch(x)
    kt = xt if x_kv is None else batch(x_kv)
    nk = n if x_kv is None else x_kv.shape[0]
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1) if causal else None
    kpm = None
    if pad:
        kpm = torch.zeros(1, nk, dtype=torch.bool)
        kpm[0, list(pad)] = True
    module.eval()
    with torch.no_grad():
        y, p = module(xt, kt, kt, key_padding_mask=kpm, attn_mask=mask, need_weights=True,
                      average_attn_weights=False)
    y = y[0] if batch_first else y[:, 0]
    return y.numpy().astype(np.float64), p[0].numpy().astype(np.float64)


def run_stack(torch, modules, x, batch_first, causal, pad, x_kv=None):
    """Layers on the residual stream, x_l+1 = x_l + MHA_l(x_l): the last
    layer's output and weights."""
    x = np.asarray(x, dtype=np.float64)
    for mod in modules:
        y, p = run_torch(torch, mod, x.astype(np.float32), batch_first, causal, pad, x_kv)
        x = x + y
    return y, p


def expect_text(y, p):
    """PyTorch's output and weights as tests/fixtures/README.md's matrices
    (the C tests read them without Python)."""
    out = ["# PyTorch's own output and per-head weights: tools/import_torch.py"]
    for name, a in (("output", y[None]), ("weights", p)):
        out.append("matrix %s %d %d %d" % ((name,) + a.shape))
        out += [" ".join("%.17g" % v for v in row) for block in a for row in block]
    out.append("end")
    return "\n".join(out) + "\n"


def load_input(torch, path, batch_first, index):
    a = np.load(path) if path.endswith(".npy") else torch.load(path).detach().cpu().numpy()
    if a.ndim == 3:
        a = a[index] if batch_first else a[:, index]
    if a.ndim != 2:
        raise ValueError("%s: input of shape %s: want (L, N, E), (N, L, E) or (L, E)" % (path, a.shape))
    return a.astype(np.float32)


def read_input(torch, path, args):
    """load_input, every failure one ImportFailure."""
    try:
        return load_input(torch, path, args.batch_first, args.batch_index)
    except (OSError, IndexError, RuntimeError) as e:
        raise ImportFailure("%s: cannot be read as the input: %s" % (path, str(e).splitlines()[0]))


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line (argparse prints the usage too), exit 2."""

    def error(self, message):
        say("%s (see --help)" % message)
        self.exit(2)


def run(args, ap):
    """The import itself; every failure an ImportFailure (or a usage error)."""
    # nothing is loaded or computed before the files it will write are known good
    out_target = check_out(args.out, session=True)
    expect_target = check_out(args.expect, session=False) if args.expect else None
    pad = parse_pad(args.pad)
    if (args.kv_input or args.kv_tokens) and args.causal:
        ap.error("--causal with a source: encoder-decoder attention has no causal mask")
    if not 1 <= args.layers <= MAX_LAYERS or (args.layers > 1 and args.demo is None):
        ap.error("--layers %d: a --demo stack of 1..%d layers" % (args.layers, MAX_LAYERS))
    if not 0 <= args.kv_tokens <= MAX_KV_TOKENS or (args.kv_tokens and args.demo is None):
        ap.error("--kv-tokens %d: a --demo source of 1..%d tokens (--kv-input for a real one)" % (
            args.kv_tokens, MAX_KV_TOKENS))
    import torch

    x_kv, modules = None, []
    if args.demo is not None:
        torch.manual_seed(args.demo)
        for _ in range(args.layers):
            module = torch.nn.MultiheadAttention(args.d_model, args.heads, bias=not args.no_bias,
                                                 batch_first=args.batch_first)
            if not args.no_bias:  # PyTorch starts its biases at 0: make them show
                with torch.no_grad():
                    module.in_proj_bias.uniform_(-0.5, 0.5)
                    module.out_proj.bias.uniform_(-0.5, 0.5)
            modules.append(module)
        module = modules[0]
        x = torch.randn(args.tokens, args.d_model).numpy()
        if args.kv_tokens:
            x_kv = torch.randn(args.kv_tokens, args.d_model).numpy()
    else:
        try:
            state = torch.load(args.state)
        except Exception as e:  # a pickle, zip or I/O error: whatever torch says, in one line
            raise ImportFailure("%s: cannot be read as a torch file: %s" % (args.state, str(e).splitlines()[0]))
        if isinstance(state, torch.nn.Module):
            state = state.state_dict()
        try:
            wq, _, _, _, biases = layer_matrices(state)
        except (ValueError, KeyError) as e:
            ap.error("%s: %s" % (args.state, e))
        e = wq.shape[0]
        module = torch.nn.MultiheadAttention(e, args.heads, bias=biases is not None,
                                             batch_first=args.batch_first)
        module.load_state_dict(state)
        modules = [module]
        x = read_input(torch, args.input, args)
        if args.kv_input:
            x_kv = read_input(torch, args.kv_input, args)
    wq, wk, wv, wo, biases = layer_matrices(module.state_dict())
    more = [layer_matrices(m.state_dict()) for m in modules[1:]]
    labels = args.labels.split() if args.labels else None
    text = session_text(x, wq, wk, wv, wo, args.heads, biases=biases, causal=args.causal,
                        pad=pad, labels=labels, x_kv=x_kv, layers=more)
    expect = None
    if args.expect:
        y, p = run_stack(torch, modules, x, args.batch_first, args.causal, pad, x_kv)
        expect = (json.dumps({"output": y.tolist(), "weights": p.tolist(), "layer": len(modules) - 1})
                  if args.expect.endswith(".json") else expect_text(y, p))
    write_atomically(args.out, out_target, text)
    if expect is not None:
        write_atomically(args.expect, expect_target, expect)
    return 0


def main(argv=None):
    """The command line; argv: its arguments (None: sys.argv), so that a
    test can import this file once and run many layers. 0; a failure is
    one line on stderr and 1 (usage: 2)."""
    ap = OneLineParser(description=__doc__.split("\n")[0], prog="import_torch.py")
    ap.add_argument("--state")
    ap.add_argument("--input")
    ap.add_argument("--kv-input")
    ap.add_argument("--kv-tokens", type=int, default=0)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--heads", type=int, required=True)
    ap.add_argument("--batch-first", action="store_true")
    ap.add_argument("--batch-index", type=int, default=0)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--pad", default="")
    ap.add_argument("--labels")
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect")
    ap.add_argument("--demo", type=int)
    ap.add_argument("--d-model", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=5)
    ap.add_argument("--no-bias", action="store_true")
    args = ap.parse_args(argv)
    if args.demo is None and (not args.state or not args.input):
        ap.error("--state and --input are needed (or --demo SEED)")
    try:
        return run(args, ap)
    except (ImportFailure, ValueError) as e:
        say(str(e))
    except OSError as e:
        say("%s: %s" % (e.filename or "", e.strerror))
    return 1


def say(message):
    """One line on stderr, every control character '?' (what it quotes from
    a file name cannot drive the terminal)."""
    line = "".join("?" if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f else c for c in " ".join(message.split()))
    print("import_torch.py: %s" % line, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
