"""A float64 numpy evaluator of the model JSON (docs/NNJson.md and the node
kinds add, concat, maxpool1d, avgpool1d), written from the documents alone:
the independent oracle the importer tests compare PyTorch and ONNX with."""
import numpy as np


def _padding(node):
    """(before, after): an integer on both sides; "same" K - 1 in all."""
    p = node.get("padding", "valid")
    total = {"valid": 0, "same": node["kernel_size"] - 1}.get(p) if isinstance(
        p, str) else 2 * p
    return total // 2, total - total // 2


def _conv1d(node, x):
    lo, hi = _padding(node)
    length, cin = x.shape
    pv = node.get("padding_value", 0.0)
    xp = np.full((length + lo + hi, cin), pv, dtype=np.float64)
    xp[lo:lo + length] = x
    w = np.asarray(node["weight"], dtype=np.float64)  # [out][in/g][K]
    cout, cpg, k = w.shape
    s, g = node.get("stride", 1), node.get("groups", 1)
    opg = cout // g
    lout = (xp.shape[0] - k) // s + 1
    y = np.zeros((lout, cout))
    for o in range(cout):
        base = (o // opg) * cpg
        for t in range(k):
            y[:, o] += xp[t:t + s * (lout - 1) + 1:s, base:base + cpg] @ w[o, :, t]
    bias = node.get("bias") or []
    return y + (np.asarray(bias) if len(bias) else 0.0)


def _pool(node, x):
    k, p = node["kernel_size"], node.get("padding", 0)
    s = node.get("stride", k)
    length, c = x.shape
    maxpool = node["type"] == "maxpool1d"
    xp = np.full((length + 2 * p, c), -np.inf if maxpool else 0.0)
    xp[p:p + length] = x
    lout = (length + 2 * p - k) // s + 1
    windows = np.stack([xp[l * s:l * s + k] for l in range(lout)])  # [lout, k, c]
    if maxpool:
        return windows.max(axis=1)
    if node.get("count_include_pad", True):
        return windows.sum(axis=1) / k
    counts = [min(l * s + k, length + p) - max(l * s, p) for l in range(lout)]
    return windows.sum(axis=1) / np.asarray(counts, dtype=np.float64)[:, None]


def evaluate(model, x):
    """The output of `model` on the [L, C] input `x` (one input node)."""
    nodes = {n["name"]: n for n in model["nodes"]}
    preds = {n: [] for n in nodes}
    for e in model["edges"]:
        preds[e["dst"]].append(e["src"])
    values = {}

    def value(name):
        if name in values:
            return values[name]
        n = nodes[name]
        t = n["type"]
        ins = [value(p) for p in preds[name]]
        if t == "input":
            v = np.asarray(x, dtype=np.float64).reshape(n["shape"])
        elif t == "output":
            v = ins[0]
        elif t == "conv1d":
            v = _conv1d(n, ins[0])
        elif t == "linear":
            w = np.asarray(n["weight"], dtype=np.float64)
            v = ins[0] @ w.T + np.asarray(n.get("bias") or np.zeros(len(w)))
        elif t == "relu":
            v = np.maximum(ins[0], 0.0)
        elif t == "hardtanh":
            v = np.clip(ins[0], n.get("min", -1.0), n.get("max", 1.0))
        elif t == "hardsigmoid":
            v = np.clip(ins[0] / 6 + 0.5, 0.0, 1.0)
        elif t == "batchnorm1d":
            v = ((ins[0] - np.asarray(n["running_mean"])) /
                 np.sqrt(np.asarray(n["running_var"]) + n.get("eps", 1e-5)) *
                 np.asarray(n["weight"]) + np.asarray(n["bias"]))
        elif t == "flatten":
            v = ins[0].reshape(1, -1)
        elif t == "add":
            assert len(ins) == 2
            v = ins[0] + ins[1]
        elif t == "concat":
            v = np.concatenate(ins, axis=1 if n.get("axis", "channels") == "channels"
                               else 0)
        elif t in ("maxpool1d", "avgpool1d"):
            v = _pool(n, ins[0])
        else:
            raise ValueError("unknown node type %r" % t)
        values[name] = v
        return v

    (out,) = [n for n in nodes if nodes[n]["type"] == "output"]
    return value(out)
