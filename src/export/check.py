"""The checking half of the numpy script mha-tui exports (--export py, the E
key). src/export/embed.py embeds this file in the program when it is built;
export_py writes it after the script's docstring, then the data (CFG, the
configuration; STAGE, each stage's label by the pipeline's name for it;
TOKENS; the inputs X, W_Q, W_K, W_V, W_O and, with biases, b_Q ... b_O; and
mha-tui's intermediates, the *_tui arrays), then a call of main.

main recomputes every stage in float64 from the inputs alone, each formula
written out as doc/FACTS.md states it, and compares mha-tui's numbers with
them: one line a stage, the largest difference relative to the largest
magnitude; it returns 1 when any stage is off by more than TOL, else 0.
Edit any number of the data and it says where."""
import numpy as np

TOL = 1e-5


def check(stage, pairs, failed):
    """One line: the largest |mha-tui - numpy| of the stage's tensors,
    relative to the largest magnitude of numpy's."""
    worst = 0.0
    for _, got, want in pairs:
        if want.size:
            scale = max(float(np.max(np.abs(want))), 1e-12)
            worst = max(worst, float(np.max(np.abs(got - want))) / scale)
    ok = worst <= TOL
    print("%-13s %-10s max relative difference %.1e  %s"
          % (stage, ",".join(p[0] for p in pairs), worst, "ok" if ok else "FAIL"))
    if not ok:
        failed.append(stage)


def softmax_keys(CFG, S, S_tui):
    """P: each query's softmax over the keys it sees. Causal j <= i; the
    window w: |i-j| < w (and j <= i when causal); padding keys hidden from
    every query; hidden cells; then top-k per head. Top-k ranks mha-tui's own
    float scores, checked before: a float64 rank could swap two scores closer
    than float rounding. A row with no key left stays 0."""
    h, n = S.shape[0], S.shape[1]
    qi, kj = np.indices((n, n))
    mask = np.ones((n, n), dtype=bool)
    if CFG["causal"]:
        mask &= kj <= qi
    if CFG["window"] > 0:
        mask &= np.abs(qi - kj) < CFG["window"]
    for t in CFG["pad"]:
        mask[:, t] = False
    for q, k in zip(CFG["hidden"][0::2], CFG["hidden"][1::2]):
        mask[q, k] = False
    P = np.zeros((h, n, n))
    for i in range(h):
        for r in range(n):
            keep = mask[r].copy()
            if 0 < CFG["top_k"] < keep.sum():
                idx = np.flatnonzero(keep)
                order = idx[np.argsort(-S_tui[i, r, idx], kind="stable")]
                keep[:] = False
                keep[order[:CFG["top_k"]]] = True
            if keep.any():
                e = np.exp(S[i, r, keep] - S[i, r, keep].max())
                P[i, r, keep] = e / e.sum()
    return P


def main(CFG, STAGE, T):
    """Every stage recomputed from T's inputs and checked against T's *_tui
    arrays. 0 when all match to TOL, else 1."""
    failed = []
    n, h, g, dk = (CFG[k] for k in ("n", "h", "g", "dk"))
    X, W_Q, W_K, W_V, W_O = (T[k] for k in ("X", "W_Q", "W_K", "W_V", "W_O"))
    kv = [i // (h // g) for i in range(h)]  # query head i reads kv head i // (h/g)

    # Q = X W^Q (+ b^Q), K = X W^K (+ b^K), V = X W^V (+ b^V)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    if CFG["bias"]:
        Q, K, V = Q + T["b_Q"], K + T["b_K"], V + T["b_V"]
    check(STAGE["PROJECTION"], [("Q", T["Q_tui"], Q), ("K", T["K_tui"], K), ("V", T["V_tui"], V)], failed)

    # (n, h*dk) -> (h, n, dk): a view, no numbers of its own
    Qh = Q.reshape(n, h, dk).transpose(1, 0, 2)
    Kh = K.reshape(n, g, dk).transpose(1, 0, 2)
    Vh = V.reshape(n, g, dk).transpose(1, 0, 2)
    print("%-13s %-10s a view, (n, h*dk) -> (h, n, dk): query head i reads kv head %s"
          % (STAGE["RESHAPE"], "Q,K,V", kv))

    # S_i = Q_i K_j^T / sqrt(dk)
    s = 1.0 / np.sqrt(dk) if CFG["scale"] else 1.0
    S = np.stack([Qh[i] @ Kh[kv[i]].T * s for i in range(h)])
    check(STAGE["SCORES"], [("S", T["S_tui"], S)], failed)

    # P_i = softmax(mask(S_i)), the mask and top-k as mha-tui applies them
    P = softmax_keys(CFG, S, T["S_tui"])
    check(STAGE["SOFTMAX"], [("P", T["P_tui"], P)], failed)

    # O_i = P_i V_j
    O = np.stack([P[i] @ Vh[kv[i]] for i in range(h)])
    check(STAGE["WEIGHTED_SUM"], [("O", T["O_tui"], O)], failed)

    # Concat = [O_1 ... O_h], a zero block for a head switched off
    Concat = np.concatenate([np.zeros((n, dk)) if i in CFG["heads_off"] else O[i]
                             for i in range(h)], axis=1)
    check(STAGE["CONCAT"], [("Concat", T["Concat_tui"], Concat)], failed)

    # Y = Concat W^O (+ b^O)
    Y = Concat @ W_O + (T["b_O"] if CFG["bias"] else 0.0)
    check(STAGE["OUTPUT"], [("Y", T["Y_tui"], Y)], failed)

    if failed:
        print("FAIL: %s differ from numpy by more than %g relative" % (", ".join(failed), TOL))
        return 1
    print("ok: every stage matches numpy to %g relative" % TOL)
    return 0
