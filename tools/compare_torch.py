#!/usr/bin/python3
"""compare_torch.py - mha-tui's compute core against PyTorch and numpy on the CPU.

Times, on the same shapes and thread counts as mha-bench:
  - PyTorch's nn.MultiheadAttention(d, h, bias=False), batch_first, no_grad,
    need_weights=False. PyTorch 1.13's eval fast path refuses bias=False
    (_native_multi_head_attention wants a qkv_bias tensor), so the module runs
    in train mode with dropout 0: the same arithmetic.
  - a numpy version of the same forward (BLAS products, np.exp softmax).
  - mha-tui's core, through `mha-bench --json`.
and prints the median milliseconds and the ratios (their time / mha-tui's).

Not a test dependency. Needs Debian's python3-torch and python3-numpy: run
it with /usr/bin/python3 (a pyenv or venv python will not see them).

    /usr/bin/python3 tools/compare_torch.py --bench build/bench/mha-bench

Each thread count runs in a child process with OPENBLAS_NUM_THREADS (numpy)
and torch.set_num_threads set, because BLAS reads its thread count once.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SHAPES = [(16, 64, 4), (128, 512, 8), (512, 512, 8), (1024, 512, 8), (2048, 512, 8)]


def median_ms(fn, min_time):
    """Median of per-call times over at least min_time seconds (3+ samples)."""
    fn()
    fn()
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    k = max(1, int(50e-6 / max(one, 1e-9)) + 1) if one < 50e-6 else 1
    samples = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_time or len(samples) < 3:
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        samples.append((time.perf_counter() - t0) / k)
    return statistics.median(samples) * 1e3


def numpy_forward(np, x, wq, wk, wv, wo, h):
    """Y = Concat_i softmax(Q_i K_i^T / sqrt(dk)) V_i  W^O, the naive way."""
    n, d = x.shape
    dk = d // h
    q, k, v = x @ wq, x @ wk, x @ wv
    heads = []
    for i in range(h):
        sl = slice(i * dk, (i + 1) * dk)
        s = (q[:, sl] @ k[:, sl].T) * (1.0 / np.sqrt(dk))
        s -= s.max(axis=1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=1, keepdims=True)
        heads.append(p @ v[:, sl])
    return np.concatenate(heads, axis=1) @ wo


def worker(threads, shapes, min_time):
    """Runs in a child whose environment fixed the BLAS thread count."""
    import numpy as np
    import torch

    torch.set_num_threads(threads)
    out = []
    for n, d, h in shapes:
        torch.manual_seed(0)
        mha = torch.nn.MultiheadAttention(d, h, dropout=0.0, bias=False, batch_first=True)
        mha.train()  # see the module docstring: eval + bias=False fails in 1.13
        x = torch.randn(1, n, d)

        def run_torch():
            with torch.no_grad():
                mha(x, x, x, need_weights=False)

        rng = np.random.default_rng(0)
        xn = rng.standard_normal((n, d), dtype=np.float32)
        ws = [rng.standard_normal((d, d), dtype=np.float32) * (1.0 / np.sqrt(d)) for _ in range(4)]
        out.append({
            "n": n, "d": d, "h": h, "threads": threads,
            "torch_ms": median_ms(run_torch, min_time),
            "numpy_ms": median_ms(lambda: numpy_forward(np, xn, *ws, h), min_time),
        })
    print(json.dumps(out))


def run_children(threads_list, shapes, min_time):
    rows = []
    for t in threads_list:
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t))
        cmd = [sys.executable, __file__, "--worker", str(t), "--min-time", str(min_time)]
        for s in shapes:
            cmd += ["--shape", "%d,%d,%d" % s]
        res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        rows += json.loads(res.stdout.strip().splitlines()[-1])
    return rows


def run_bench(bench, threads_list, shapes, rounds):
    cmd = [bench, "--json", "--no-ui", "--rounds", str(rounds), "--threads", ",".join(map(str, threads_list))]
    for s in shapes:
        cmd += ["--shape", "%d,%d,%d" % s]
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    data = json.loads(res.stdout)
    return {(r["n"], r["d"], r["h"], r["threads"]): r for r in data["results"]}, data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="build/bench/mha-bench", help="the mha-bench binary")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    ap.add_argument("--shape", action="append", help="N,D,H (repeatable; default: mha-bench's)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds of samples per timing")
    ap.add_argument("--rounds", type=int, default=5, help="mha-bench rounds")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    shapes = [tuple(int(v) for v in s.split(",")) for s in a.shape] if a.shape else SHAPES
    if a.worker:
        worker(a.worker, shapes, a.min_time)
        return 0
    threads_list = [int(t) for t in a.threads.split(",")]
    import torch  # only to report the version, and to fail early if missing
    mine, info = run_bench(a.bench, threads_list, shapes, a.rounds)
    rows = run_children(threads_list, shapes, a.min_time)
    for r in rows:
        m = mine[(r["n"], r["d"], r["h"], r["threads"])]
        r["mha_tui_ms"] = m["median_ms"]
        r["torch_over_mha_tui"] = r["torch_ms"] / m["median_ms"]
        r["numpy_over_mha_tui"] = r["numpy_ms"] / m["median_ms"]
    if a.json:
        print(json.dumps({"torch": torch.__version__, "blas": info["blas"], "rows": rows}, indent=1))
        return 0
    print("PyTorch %s; mha-tui: %s, exp %s" % (torch.__version__, info["blas"], info["exp"]))
    print("%5s %4s %3s %3s %11s %10s %10s %12s %12s" % (
        "n", "d", "h", "thr", "mha-tui_ms", "torch_ms", "numpy_ms", "torch/mine", "numpy/mine"))
    for r in rows:
        print("%5d %4d %3d %3d %11.4f %10.4f %10.4f %11.2fx %11.2fx" % (
            r["n"], r["d"], r["h"], r["threads"], r["mha_tui_ms"], r["torch_ms"], r["numpy_ms"],
            r["torch_over_mha_tui"], r["numpy_over_mha_tui"]))
    big = [r for r in rows if r["threads"] == 1 and r["n"] >= 1024]
    if big:
        worst = min(r["torch_over_mha_tui"] for r in big)
        print("target: 1 thread, n >= 1024, at least 1.7x faster than PyTorch: worst %.2fx %s"
              % (worst, "met" if worst >= 1.7 else "MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
