"""The checking half of the numpy script mha-tui exports (--export py, the E
key). src/export/embed.py embeds this file in the program when it is built;
export_py writes it after the script's docstring, then the data (CFG, the
configuration; STAGE, each stage's label by the pipeline's name for it;
TOKENS, and KV_TOKENS with cross-attention; the inputs X, X_kv, P_pos and
LAYERS, each layer's W_Q, W_K, W_V, W_O and, with biases, b_Q ... b_O; PE_tui
and TUI, each layer's intermediates as mha-tui computed them), then a call
of main.

main recomputes every stage of every layer in float64 from the inputs alone,
each formula written out as doc/FACTS.md states it, and compares mha-tui's
numbers with them: one line a stage, the largest difference relative to the
largest magnitude; it returns 1 when any stage is off by more than TOL, else
0. Edit any number of the data and it says where."""
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


def positions(CFG, T, n, d):
    """PE, added to X: sinusoidal PE[p, 2i] = sin(p / 10000^(2i/d)),
    PE[p, 2i+1] = cos(same), p counted from pos_offset; learned: P_pos.
    None and RoPE add nothing (RoPE turns Q and K instead)."""
    if CFG["pos"] == "sinusoidal":
        col = np.arange(d)[None, :]
        angle = (CFG["pos_offset"] + np.arange(n))[:, None] / 10000.0 ** ((col - col % 2) / d)
        return np.where(col % 2 == 0, np.sin(angle), np.cos(angle))
    if CFG["pos"] == "learned":
        return T["P_pos"]
    return np.zeros((n, d))


def rope(CFG, x, heads, dk):
    """RoPE: row r's head blocks have their columns (2i, 2i+1) turned by the
    angle (pos_offset + r) * 10000^(-2i/dk), as (a + ib) e^(i angle)."""
    rows = x.shape[0]
    angle = (CFG["pos_offset"] + np.arange(rows))[:, None] * 10000.0 ** (-2.0 * np.arange(dk // 2) / dk)
    z = x.reshape(rows, heads, dk // 2, 2)
    z = (z[..., 0] + 1j * z[..., 1]) * np.exp(1j * angle)[:, None, :]
    return np.stack([z.real, z.imag], axis=-1).reshape(rows, heads * dk)


def key_mask(CFG, n, nk):
    """The keys each query sees: causal j <= i; the window w: |i-j| < w (and
    j <= i when causal); padding keys hidden from every query; hidden cells.
    With cross-attention the nk keys are the source's tokens."""
    qi, kj = np.indices((n, nk))
    mask = np.ones((n, nk), dtype=bool)
    if CFG["causal"]:
        mask &= kj <= qi
    if CFG["window"] > 0:
        mask &= np.abs(qi - kj) < CFG["window"]
    for t in CFG["pad"]:
        mask[:, t] = False
    for q, k in zip(CFG["hidden"][0::2], CFG["hidden"][1::2]):
        mask[q, k] = False
    return mask


def softmax_keys(CFG, mask, S, S_tui):
    """P: each query's softmax over the keys the mask keeps, then top-k per
    head. Top-k ranks mha-tui's own float scores, checked before: a float64
    rank could swap two scores closer than float rounding. A row with no key
    left stays 0."""
    h, n, nk = S.shape
    P = np.zeros((h, n, nk))
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


def layer(CFG, STAGE, x, X_kv, W, T, tag, failed):
    """One attention layer on the stream x, checked stage by stage against
    T, mha-tui's numbers for the layer. Returns Y."""
    n, h, g, dk = x.shape[0], CFG["h"], CFG["g"], CFG["dk"]
    kv = [i // (h // g) for i in range(h)]  # query head i reads kv head i // (h/g)

    # Q = x W^Q (+ b^Q); K, V from x, or from X_kv with cross-attention
    src = X_kv if CFG["m"] else x
    nk = src.shape[0]
    Q, K, V = x @ W["W_Q"], src @ W["W_K"], src @ W["W_V"]
    if CFG["bias"]:
        Q, K, V = Q + W["b_Q"], K + W["b_K"], V + W["b_V"]
    check(tag + STAGE["PROJECTION"], [("Q", T["Q"], Q), ("K", T["K"], K), ("V", T["V"], V)], failed)
    if CFG["pos"] == "rope":
        Q, K = rope(CFG, Q, h, dk), rope(CFG, K, g, dk)  # V is not turned
        check(tag + "RoPE", [("Q_rot", T["Q_rot"], Q), ("K_rot", T["K_rot"], K)], failed)

    # (rows, heads*dk) -> (heads, rows, dk): a view, no numbers of its own
    Qh = Q.reshape(n, h, dk).transpose(1, 0, 2)
    Kh = K.reshape(nk, g, dk).transpose(1, 0, 2)
    Vh = V.reshape(nk, g, dk).transpose(1, 0, 2)
    print("%-13s %-10s a view, (n, h*dk) -> (h, n, dk): query head i reads kv head %s"
          % (tag + STAGE["RESHAPE"], "Q,K,V", kv))

    # S_i = Q_i K_j^T / sqrt(dk)
    s = 1.0 / np.sqrt(dk) if CFG["scale"] else 1.0
    S = np.stack([Qh[i] @ Kh[kv[i]].T * s for i in range(h)])
    check(tag + STAGE["SCORES"], [("S", T["S"], S)], failed)

    # P_i = softmax(mask(S_i)), the mask and top-k as mha-tui applies them
    P = softmax_keys(CFG, key_mask(CFG, n, nk), S, T["S"])
    check(tag + STAGE["SOFTMAX"], [("P", T["P"], P)], failed)

    # O_i = P_i V_j
    O = np.stack([P[i] @ Vh[kv[i]] for i in range(h)])
    check(tag + STAGE["WEIGHTED_SUM"], [("O", T["O"], O)], failed)

    # Concat = [O_1 ... O_h], a zero block for a head switched off
    Concat = np.concatenate([np.zeros((n, dk)) if i in CFG["heads_off"] else O[i]
                             for i in range(h)], axis=1)
    check(tag + STAGE["CONCAT"], [("Concat", T["Concat"], Concat)], failed)

    # Y = Concat W^O (+ b^O)
    Y = Concat @ W["W_O"] + (W["b_O"] if CFG["bias"] else 0.0)
    check(tag + STAGE["OUTPUT"], [("Y", T["Y"], Y)], failed)
    return Y


def main(CFG, STAGE, T):
    """Every stage of every layer recomputed from T's inputs and checked
    against T's *_tui arrays. 0 when all match to TOL, else 1."""
    failed = []
    X, LAYERS, TUI = T["X"], T["LAYERS"], T["TUI"]
    PE = positions(CFG, T, X.shape[0], X.shape[1])
    if CFG["pos"] != "none":
        check("Positions", [("PE", T["PE_tui"], PE)], failed)

    x = X + PE  # x_0: the stream layer 0 reads
    for l, (W, tui) in enumerate(zip(LAYERS, TUI)):
        tag = "L%d " % l if len(LAYERS) > 1 else ""
        # the residual stream: x_l+1 = x_l + Y_l, what the next layer reads
        x = x + layer(CFG, STAGE, x, T["X_kv"], W, tui, tag, failed)
        if len(LAYERS) > 1:
            check(tag + "Residual", [("x_out", tui["x_out"], x)], failed)

    if failed:
        print("FAIL: %s differ from numpy by more than %g relative" % (", ".join(failed), TOL))
        return 1
    print("ok: every stage matches numpy to %g relative" % TOL)
    return 0
