#!/bin/sh
# test_import_torch.sh - tools/import_torch.py end to end, where Debian's
# python3-torch is installed (else it is skipped, exit 77): a
# torch.nn.MultiheadAttention (with and without bias, batch_first or not,
# causal, padding, from --demo and from a saved state_dict and input; as
# cross-attention with a source of another length; a stack of them on the
# residual stream; and a LLaMA-style RoPE layer written here in torch)
# becomes a session; mha-tui --dump json --load gives PyTorch's own output
# and per-head weights within 1e-5 (a row PyTorch leaves NaN because every
# key is masked must be all 0 and flagged dead in mha-tui). What cannot be
# imported (labels, values, --pad, shapes, --out) is one line, exit 1,
# before any file is written.
set -u
bin=${MHA_TUI:?run under meson test, which sets MHA_TUI}
root=${MHA_SOURCE_ROOT:?run under meson test}
py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c 'import torch, numpy' 2>/dev/null; then
	echo "SKIP: $py has no torch (Debian's python3-torch)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
failed=0

# same NAME: the dump of $tmp/NAME.session agrees with $tmp/NAME.json
same() {
	if ! timeout 20 "$bin" --dump json --load "$tmp/$1.session" >"$tmp/$1.dump" 2>"$tmp/err"; then
		echo "FAIL: $1: mha-tui --load: $(cat "$tmp/err")"
		failed=$((failed + 1))
		return
	fi
	if ! "$py" - "$tmp/$1.dump" "$tmp/$1.json" <<'PY'
import json, math, sys
dump, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
# the last layer of a stack (a one-layer session's is the top level, layers[0])
dump = dump["layers"][want.get("layer", 0)]
y, wy = dump["output"], want["output"]
scale = max([1.0] + [abs(v) for r in wy for v in r if not math.isnan(v)])
for r, (a, b) in enumerate(zip(y, wy)):
    if any(math.isnan(v) for v in b):
        continue
    worst = max(abs(u - v) for u, v in zip(a, b))
    if worst > 1e-5 * scale:
        bad.append("Y row %d differs by %.3g" % (r, worst))
for i, hd in enumerate(dump["heads"]):
    for r, (a, b) in enumerate(zip(hd["weights"], want["weights"][i])):
        if any(math.isnan(v) for v in b):
            if any(a) or r not in hd["dead_rows"]:
                bad.append("head %d row %d: PyTorch NaN (all masked), mha-tui %r" % (i, r, a))
        elif max(abs(u - v) for u, v in zip(a, b)) > 1e-5:
            bad.append("head %d row %d of P differs" % (i, r))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	then
		echo "FAIL: $1"
		failed=$((failed + 1))
	fi
}

# Every layer in one Python process (torch takes seconds to import): each
# case writes $tmp/NAME.session and PyTorch's $tmp/NAME.json.
if ! "$py" - "$root/tools" "$tmp" <<'PY'
import sys, torch
sys.path.insert(0, sys.argv[1])
import import_torch
tmp = sys.argv[2]
torch.manual_seed(9)
torch.save(torch.nn.MultiheadAttention(12, 3).state_dict(), tmp + "/state.pt")
torch.save(torch.randn(5, 2, 12), tmp + "/x.pt")   # (L, N, E): a batch of 2
cases = {
    "plain": "--demo 1 --heads 2",
    "nobias": "--demo 2 --heads 4 --d-model 16 --tokens 7 --no-bias",
    "batch_first_causal": "--demo 3 --heads 4 --d-model 16 --tokens 7 --batch-first --causal",
    "padding": "--demo 4 --heads 2 --tokens 6 --pad 4,5",
    "dead_row": "--demo 5 --heads 8 --d-model 32 --tokens 9 --causal --pad 0,8 --batch-first",
    # from files, as a user would: the second sequence of the batch
    "from_files": "--state %s/state.pt --input %s/x.pt --batch-index 1 --heads 3" % (tmp, tmp),
    # cross-attention: query length 5, key length 7, the source padded; and from files
    "cross": "--demo 6 --heads 2 --tokens 5 --kv-tokens 7 --pad 0,6",
    "cross_files": "--state %s/state.pt --input %s/x.pt --kv-input %s/src.pt --heads 3" % (tmp, tmp, tmp),
    # three layers on the residual stream, x + MHA(x); and with a source
    "stack": "--demo 7 --heads 4 --d-model 16 --tokens 6 --layers 3 --causal",
    "stack_cross": "--demo 8 --heads 2 --tokens 4 --kv-tokens 3 --layers 2 --batch-first",
}
torch.save(torch.randn(7, 2, 12), tmp + "/src.pt")
for name, args in cases.items():
    import_torch.main(args.split() + ["--out", "%s/%s.session" % (tmp, name),
                                      "--expect", "%s/%s.json" % (tmp, name)])
# RoPE as Hugging Face's LLaMA code writes it (q * cos + rotate_half(q) * sin,
# column i of a head with i + dk/2), on one layer without biases, made here
# in torch: hf_rope_pairs reorders W^Q and W^K, and mha-tui's pairs give the
# same output and weights.
import numpy as np
torch.manual_seed(11)
n, d, h, dk = 6, 16, 4, 4
x, wq, wk, wv, wo = (torch.randn(*s) for s in ((n, d), (d, h * dk), (d, h * dk), (d, h * dk), (h * dk, d)))
def rotate_half(t):
    return torch.cat([-t[..., dk // 2:], t[..., :dk // 2]], dim=-1)
inv = 10000.0 ** (-torch.arange(0, dk, 2, dtype=torch.float64) / dk)
ang = torch.arange(n, dtype=torch.float64)[:, None] * inv[None, :]
cos, sin = torch.cat([ang.cos(), ang.cos()], -1)[:, None, :], torch.cat([ang.sin(), ang.sin()], -1)[:, None, :]
q = (x @ wq).double().reshape(n, h, dk)
k = (x @ wk).double().reshape(n, h, dk)
q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
p = torch.softmax(torch.einsum("ihe,jhe->hij", q, k) / dk ** 0.5, dim=-1)
y = torch.einsum("hij,jhe->ihe", p, (x @ wv).double().reshape(n, h, dk)).reshape(n, h * dk) @ wo.double()
with open(tmp + "/rope_hf.session", "w") as f:
    f.write(import_torch.session_text(x.numpy(), import_torch.hf_rope_pairs(wq.numpy(), h),
                                      import_torch.hf_rope_pairs(wk.numpy(), h), wv.numpy(), wo.numpy(),
                                      h, pos="rope"))
import json
json.dump({"output": y.tolist(), "weights": p.tolist()}, open(tmp + "/rope_hf.json", "w"))
# a layer mha-tui cannot hold is refused with a message, not written wrong
torch.save(torch.nn.MultiheadAttention(8, 2, add_bias_kv=True).state_dict(), tmp + "/kv.pt")
try:
    import_torch.main(["--state", tmp + "/kv.pt", "--input", tmp + "/x.pt", "--heads", "2",
                       "--out", tmp + "/kv.session"])
    sys.exit("add_bias_kv=True was not refused")
except SystemExit as e:
    if e.code != 2:
        raise
PY
then
	echo "FAIL: import_torch.py"
	exit 1
fi
for name in plain nobias batch_first_causal padding dead_row from_files cross cross_files stack stack_cross rope_hf; do
	same "$name"
done
if "$py" "$root/tools/import_torch.py" --heads 2 --labels "a b" --out "$tmp/x.session" 2>"$tmp/err" ||
	! grep -q -- "--state and --input" "$tmp/err"; then
	echo "FAIL: import_torch.py without a layer did not say what it needs"
	failed=$((failed + 1))
fi

# ---- what cannot be imported is said in one line before a file is
# written (it truncated --out first, printed tracebacks, and wrote labels,
# values and --pad mha-tui refuses: the adversary's 13) ----
imp() { # imp STATUS TEXT ARGS...: exit STATUS, one line 'import_torch.py: ...TEXT'
	want=$1 text=$2
	shift 2
	"$py" "$root/tools/import_torch.py" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q '^import_torch.py: ' "$tmp/err" ||
		! grep -qF -- "$text" "$tmp/err" || grep -q "$(printf '\033')" "$tmp/err"; then
		echo "FAIL: import_torch.py $*: exit $rc, want $want and one line with '$text': $(head -c 600 "$tmp/err")"
		failed=$((failed + 1))
	fi
}
kept() { # kept FILE TEXT: FILE still holds exactly TEXT
	if [ "$(cat "$1")" != "$2" ]; then
		echo "FAIL: $1 was replaced: $(head -c 100 "$1")"
		failed=$((failed + 1))
	fi
}
printf 'my notes\n' >"$tmp/notes.txt"
imp 1 "is not an mha-tui session" --demo 1 --heads 2 --out "$tmp/notes.txt"
kept "$tmp/notes.txt" "my notes"
cp "$tmp/plain.session" "$tmp/keep.session"
imp 1 "label 5 ('Ġresponsibilities'): 18 bytes" --demo 1 --heads 2 --labels "a b c d Ġresponsibilities" \
	--out "$tmp/keep.session"
cmp -s "$tmp/plain.session" "$tmp/keep.session" || { echo "FAIL: keep.session cut before the check"; failed=$((failed + 1)); }
imp 1 "label 2" --demo 1 --heads 2 --labels "a $(printf 'b\033[31m') c d e" --out "$tmp/keep.session"
imp 1 "--pad 7 is not a token" --demo 1 --heads 2 --pad 7 --out "$tmp/keep.session"
imp 1 "--pad 'x' is not a list" --demo 1 --heads 2 --pad x --out "$tmp/keep.session"
imp 1 "its directory $tmp/no/such does not exist" --demo 1 --heads 2 --out "$tmp/no/such/x.session"
imp 1 "is a directory" --demo 1 --heads 2 --out "$tmp"
imp 1 "tokens 70" --demo 1 --heads 2 --tokens 70 --out "$tmp/keep.session"
printf 'not a torch file' >"$tmp/junk.pt"
imp 1 "junk.pt: cannot be read as a torch file" --state "$tmp/junk.pt" --input "$tmp/x.pt" --heads 3 \
	--out "$tmp/keep.session"
"$py" -c 'import numpy as np, sys; a = np.ones((4, 12), np.float32); a[2, 5] = np.nan; np.save(sys.argv[1], a)' \
	"$tmp/nan.npy"
imp 1 "X[2, 5] is nan" --state "$tmp/state.pt" --input "$tmp/nan.npy" --heads 3 --out "$tmp/keep.session"
imp 2 "--heads" --demo 1 --out "$tmp/keep.session"
cmp -s "$tmp/plain.session" "$tmp/keep.session" || { echo "FAIL: keep.session changed by a refused import"; failed=$((failed + 1)); }
# a symlink is followed: the target written, the link kept; fit_label makes labels mha-tui takes
ln -s plain-target.session "$tmp/link.session"
if ! "$py" "$root/tools/import_torch.py" --demo 1 --heads 2 --out "$tmp/link.session" 2>"$tmp/err" ||
	[ ! -L "$tmp/link.session" ] || ! timeout 20 "$bin" --dump json --load "$tmp/plain-target.session" >/dev/null; then
	echo "FAIL: --out through a symlink: $(cat "$tmp/err")"
	failed=$((failed + 1))
fi
if ! "$py" - "$root/tools" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import import_torch as it
for tok in ["\u0120responsibilities", "a b", "\x1b[31m", "", "日本語のトークン"]:
    label = it.fit_label(tok)
    assert it.label_problem(label) is None, (tok, label)
assert it.fit_label("\u0120responsibilities") == "\u0120responsibilit", it.fit_label("\u0120responsibilities")
assert it.fit_label("日本語のトークン") == "日本語のト"
PY
then
	echo "FAIL: fit_label"
	failed=$((failed + 1))
fi
ls "$tmp" | grep -q '\.tmp\.' && { echo "FAIL: temporary files left: $(ls "$tmp")"; failed=$((failed + 1)); }

[ "$failed" -eq 0 ] && echo "ok: every imported layer matches PyTorch"
exit $((failed > 0))
