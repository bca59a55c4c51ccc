"""Shared by the GHDL tests and the benchmark: random nn models (seeded,
stdlib only), a float reference with its quantisation error bound, and the
compile -> simulate flow (unum-translate, unum-opt, unum-nn-sim, GHDL).

The float reference evaluates the JSON model in float64 and clamps every
value a layer writes to the fixed-point range, as the hardware saturates
there; the bound below follows the arithmetic of docs/NNQuantization.md
layer by layer (clamps and activations are 1-Lipschitz)."""

import json
import math
import re
import os
import random
import subprocess
import time


# ---------------------------------------------------------------- models
def _uniform(rng, lo, hi):
    return round(rng.uniform(lo, hi), 6)


def conv1d_node(rng, name, in_ch, length, out_ch=None, groups=None,
                kernel=None, stride=None, padding=None, bias=None):
    divisors = [g for g in range(1, in_ch + 1) if in_ch % g == 0]
    groups = groups or rng.choice(divisors)
    out_ch = out_ch or groups * rng.randint(1, max(1, 6 // groups))
    kernel = kernel or rng.randint(1, 4)
    stride = stride or rng.choice([1, 1, 2, 3])
    if padding is None:
        options = ["valid", rng.randint(0, 2)] + (["same"] * 2 if stride == 1 else [])
        padding = rng.choice(options)
    pad = {"valid": 0, "same": kernel - 1}.get(padding, None)
    if pad is None:
        pad = 2 * padding
    if length + pad < kernel:
        padding, kernel = "valid", min(kernel, length)
    # distinct random weights for every output channel
    weight = [[[_uniform(rng, -1, 1) for _ in range(kernel)]
               for _ in range(in_ch // groups)] for _ in range(out_ch)]
    has_bias = rng.random() < 0.7 if bias is None else bias
    return {"name": name, "type": "conv1d", "in_channels": in_ch,
            "out_channels": out_ch, "kernel_size": kernel, "stride": stride,
            "padding": padding, "padding_value": _uniform(rng, -1, 1),
            "groups": groups, "weight": weight,
            "bias": [_uniform(rng, -0.5, 0.5) for _ in range(out_ch)]
            if has_bias else []}


def random_model(seed):
    """A 2-4 layer model; each of the model kinds the tests must cover comes
    up for some seed (see KINDS)."""
    rng = random.Random(seed)
    length, ch = rng.randint(4, 10), rng.randint(1, 4)
    nodes = [{"name": "x", "type": "input", "shape": [length, ch]}]
    layers = rng.randint(2, 4)
    shape = [length, ch]
    flat = False
    while len(nodes) - 1 < layers:
        kind = rng.choice(["conv1d", "conv1d", "linear", "relu", "hardtanh",
                           "hardsigmoid", "batchnorm1d", "flatten"])
        name = "n%d_%s" % (len(nodes), kind)
        prev = nodes[-1]["type"]
        if kind == "batchnorm1d" and prev not in ("conv1d", "linear"):
            kind = "relu"
            name = "n%d_relu" % len(nodes)
        if kind == "flatten" and flat:
            kind = "hardtanh"
            name = "n%d_hardtanh" % len(nodes)
        if kind == "conv1d" and not flat:
            node = conv1d_node(rng, name, shape[1], shape[0])
            pads = {"valid": (0, 0), "same": ((node["kernel_size"] - 1) // 2,
                                              node["kernel_size"] - 1 - (node["kernel_size"] - 1) // 2)}
            lo, hi = pads.get(node["padding"], (node["padding"], node["padding"])) \
                if isinstance(node["padding"], str) else (node["padding"], node["padding"])
            shape = [(shape[0] + lo + hi - node["kernel_size"]) // node["stride"] + 1,
                     node["out_channels"]]
        elif kind in ("conv1d", "linear"):
            out = rng.randint(1, 6)
            node = {"name": name.replace("conv1d", "linear"), "type": "linear",
                    "in_features": shape[1], "out_features": out,
                    "weight": [[_uniform(rng, -1, 1) for _ in range(shape[1])]
                               for _ in range(out)],
                    "bias": [_uniform(rng, -0.5, 0.5) for _ in range(out)]}
            shape = [shape[0], out]
        elif kind == "batchnorm1d":
            c = shape[1]
            node = {"name": name, "type": "batchnorm1d", "num_features": c,
                    "weight": [_uniform(rng, 0.5, 1.5) for _ in range(c)],
                    "bias": [_uniform(rng, -0.5, 0.5) for _ in range(c)],
                    "running_mean": [_uniform(rng, -0.5, 0.5) for _ in range(c)],
                    "running_var": [_uniform(rng, 0.5, 2) for _ in range(c)]}
        elif kind == "flatten":
            node = {"name": name, "type": "flatten"}
            shape = [1, shape[0] * shape[1]]
            flat = True
        elif kind == "hardtanh":
            node = {"name": name, "type": "hardtanh",
                    "min": _uniform(rng, -2, -0.25), "max": _uniform(rng, 0.25, 2)}
        else:
            node = {"name": name, "type": kind}
        nodes.append(node)
    nodes.append({"name": "y", "type": "output"})
    edges = [{"src": a["name"], "dst": b["name"]} for a, b in zip(nodes, nodes[1:])]
    return {"name": "rand%d" % seed, "nodes": nodes, "edges": edges}


def _out_shape(node, shape):
    if node["type"] == "conv1d":
        lo, hi = _padding(node)
        return [(shape[0] + lo + hi - node["kernel_size"]) // node["stride"] + 1,
                node["out_channels"]]
    if node["type"] == "linear":
        return [shape[0], node["out_features"]]
    return shape


def linear_node(rng, name, in_features, out_features):
    return {"name": name, "type": "linear", "in_features": in_features,
            "out_features": out_features,
            "weight": [[_uniform(rng, -1, 1) for _ in range(in_features)]
                       for _ in range(out_features)],
            "bias": [_uniform(rng, -0.5, 0.5) for _ in range(out_features)]}


def _activation(rng, name):
    kind = rng.choice(["relu", "hardtanh", "hardsigmoid"])
    node = {"name": name, "type": kind}
    if kind == "hardtanh":
        node.update({"min": _uniform(rng, -2, -0.25), "max": _uniform(rng, 0.25, 2)})
    return node


GRAPH_BLOCKS = ["residual", "concat_channels", "concat_length", "fan_out", "pool"]


def pool_node(rng, name, length):
    kind = rng.choice(["maxpool1d", "avgpool1d"])
    kernel = rng.randint(1, min(4, length))
    node = {"name": name, "type": kind, "kernel_size": kernel,
            "padding": rng.randint(0, kernel // 2)}
    if rng.random() < 0.5:
        node["stride"] = rng.randint(1, 3)
    if kind == "avgpool1d" and rng.random() < 0.5:
        node["count_include_pad"] = rng.random() < 0.5
    return node


def _pool_length(node, length):
    k = node["kernel_size"]
    return (length + 2 * node.get("padding", 0) - k) // node.get("stride", k) + 1


def random_graph(seed):
    """A layer graph of 1-3 blocks: residual (a conv1d branch, perhaps with
    batchnorm and an activation, added to its input), concat along channels
    (2-3 branches, one may be the input itself), concat along length, or a
    fork with a dead branch; sometimes a dead second input. Nodes in
    shuffled order."""
    rng = random.Random(50000 + seed)
    length, ch = rng.randint(4, 8), rng.randint(1, 3)
    nodes = [{"name": "x", "type": "input", "shape": [length, ch]}]
    edges = []

    def add(node, *srcs):
        nodes.append(node)
        edges.extend({"src": src, "dst": node["name"]} for src in srcs)
        return node["name"]

    cur, shape = "x", [length, ch]
    blocks = [GRAPH_BLOCKS[(seed + b) % len(GRAPH_BLOCKS)]
              for b in range(rng.randint(1, 3))]
    for b, kind in enumerate(blocks):
        p = "b%d_" % b
        if kind == "residual":
            conv = conv1d_node(rng, p + "conv", shape[1], shape[0], out_ch=shape[1],
                               groups=1, stride=1, padding="same")
            t = add(conv, cur)
            if rng.random() < 0.3:
                c = shape[1]
                t = add({"name": p + "bn", "type": "batchnorm1d", "num_features": c,
                         "weight": [_uniform(rng, 0.5, 1.5) for _ in range(c)],
                         "bias": [_uniform(rng, -0.5, 0.5) for _ in range(c)],
                         "running_mean": [_uniform(rng, -0.5, 0.5) for _ in range(c)],
                         "running_var": [_uniform(rng, 0.5, 2) for _ in range(c)]}, t)
            if rng.random() < 0.5:
                t = add(_activation(rng, p + "act"), t)
            operands = [t, cur]
            rng.shuffle(operands)
            cur = add({"name": p + "add", "type": "add"}, *operands)
        elif kind == "concat_channels":
            conv = conv1d_node(rng, p + "conv", shape[1], shape[0], stride=1,
                               padding="same")
            branches = [(add(conv, cur), conv["out_channels"])]
            branches.append((add(linear_node(rng, p + "lin", shape[1],
                                             rng.randint(1, 3)), cur),
                             nodes[-1]["out_features"]))
            if rng.random() < 0.5:
                branches.append((cur, shape[1]))
            rng.shuffle(branches)
            cur = add({"name": p + "cat", "type": "concat", "axis": "channels"},
                      *[name for name, _ in branches])
            shape = [shape[0], sum(c for _, c in branches)]
        elif kind == "concat_length":
            conv = conv1d_node(rng, p + "conv", shape[1], shape[0], out_ch=shape[1])
            a = add(conv, cur)
            other = add(_activation(rng, p + "act"), cur)
            operands = [(a, _out_shape(conv, shape)[0]), (other, shape[0])]
            rng.shuffle(operands)
            cur = add({"name": p + "cat", "type": "concat", "axis": "length"},
                      *[name for name, _ in operands])
            shape = [sum(l for _, l in operands), shape[1]]
        elif kind == "pool":
            node = pool_node(rng, p + "pool", shape[0])
            cur = add(node, cur)
            shape = [_pool_length(node, shape[0]), shape[1]]
        else:  # fan_out: a dead branch beside the live one
            add(linear_node(rng, p + "dead", shape[1], 2), cur)
            cur = add(_activation(rng, p + "act"), cur)
    if rng.random() < 0.5:
        cur = add(linear_node(rng, "head", shape[1], rng.randint(1, 4)), cur)
    add({"name": "y", "type": "output"}, cur)
    if seed % 3 == 0:  # an input that reaches nothing
        nodes.append({"name": "z", "type": "input", "shape": [2, 2]})
        add({"name": "z_act", "type": "relu"}, "z")
    rng.shuffle(nodes)
    return {"name": "graph%d" % seed, "nodes": nodes, "edges": edges,
            "blocks": blocks}


# ------------------------------------------------- per-layer precision
ROUNDINGS = ["truncate", "nearest", "half_even"]
OVERFLOWS = ["saturate", "wrap"]


def _fmt(bits, frac):
    return "ap_fixed<%d, %d>" % (bits, bits - frac)


def random_precision(model, rng, n, f):
    """Gives about half the live nodes of `model` a random `precision`
    (docs/NNJson.md): result formats of 3 to 12 bits, weight formats and
    accumulators for conv1d/linear, every rounding and overflow mode (modes
    sometimes inside the type string, as hls4ml writes them). Keeps a
    conv1d/linear's result fraction within its products' (Fo <= Fi + Fw)
    and hardsigmoid saturating. Returns the modes used."""
    order, producers = _graph(model)
    fmt = {}  # node -> (bits, frac) of its result
    used = set()
    for node in order:
        t = node["type"]
        ins = producers[node["name"]]
        if t == "output":
            continue
        own = t in ("conv1d", "linear", "batchnorm1d") or rng.random() < 0.5
        bits, frac = n, f  # what a node leaves out is the model-wide default
        if t == "batchnorm1d":  # folded: its conv's result format is its own
            bits, frac = fmt[ins[0]]
            own = False
        p = {}
        if own and t != "batchnorm1d":
            bits = rng.randint(3, 12)
            frac = rng.randint(1, bits - 1)
            if t in ("conv1d", "linear"):
                fi = fmt[ins[0]][1]
                wbits = rng.randint(3, 10)
                wfrac = rng.randint(1, wbits - 1)
                if rng.random() < 0.7:
                    p["weight"] = _fmt(wbits, wfrac)
                else:
                    wfrac = f
                frac = min(frac, fi + wfrac, bits - 1)
                if rng.random() < 0.3:
                    # wider than needed (the default is the minimum)
                    p["accum"] = 40
            p["result"] = _fmt(bits, frac)
            if t != "input":
                rounding = rng.choice(ROUNDINGS)
                overflow = "saturate" if t == "hardsigmoid" else rng.choice(OVERFLOWS)
                if rng.random() < 0.3:
                    ap = {"truncate": "AP_TRN", "nearest": "AP_RND",
                          "half_even": "AP_RND_CONV"}[rounding]
                    ov = {"saturate": "AP_SAT", "wrap": "AP_WRAP"}[overflow]
                    p["result"] = "ap_fixed<%d, %d, %s, %s>" % (bits, bits - frac, ap, ov)
                else:
                    p["rounding"], p["overflow"] = rounding, overflow
                used |= {rounding, overflow}
            node["precision"] = p
        elif t in ("conv1d", "linear"):
            frac = min(frac, fmt[ins[0]][1] + f)
        fmt[node["name"]] = (bits, frac)
    return used


# ------------------------------------------------------ float reference
def _padding(node):
    k, p = node["kernel_size"], node.get("padding", "valid")
    if p == "valid":
        return 0, 0
    if p == "same":
        return (k - 1) // 2, k - 1 - (k - 1) // 2
    return p, p


def _conv(node, x, shape):
    length, cin = shape
    k, s, g = node["kernel_size"], node.get("stride", 1), node.get("groups", 1)
    lo, hi = _padding(node)
    cout = node["out_channels"]
    out_len = (length + lo + hi - k) // s + 1
    w, b = node["weight"], node.get("bias") or [0.0] * cout
    cpg, opg = cin // g, cout // g
    pv = node.get("padding_value", 0.0)
    y = []
    for l in range(out_len):
        for o in range(cout):
            acc = b[o]
            for t in range(k):
                pos = l * s + t - lo
                for i in range(cpg):
                    v = pv if pos < 0 or pos >= length else x[pos * cin + (o // opg) * cpg + i]
                    acc += v * w[o][i][t]
            y.append(acc)
    return y, [out_len, cout]


def quantize_const(v, frac, bits):
    """Nearest, ties away from zero, saturated (FixedPoint.h)."""
    scaled = math.ldexp(v, frac)
    q = int(math.floor(abs(scaled) + 0.5)) * (1 if scaled >= 0 else -1)
    return max(-(1 << (bits - 1)), min((1 << (bits - 1)) - 1, q))


def _graph(model):
    """Nodes that reach the output in topological order, and every node's
    producers (in edge order)."""
    producers = {nd["name"]: [] for nd in model["nodes"]}
    for e in model["edges"]:
        producers[e["dst"]].append(e["src"])
    live = {nd["name"] for nd in model["nodes"] if nd["type"] == "output"}
    stack = list(live)
    while stack:
        for p in producers[stack.pop()]:
            if p not in live:
                live.add(p)
                stack.append(p)
    order, done = [], set()
    pending = [nd for nd in model["nodes"] if nd["name"] in live]
    while pending:
        rest = []
        for nd in pending:
            if all(p in done for p in producers[nd["name"]]):
                order.append(nd)
                done.add(nd["name"])
            else:
                rest.append(nd)
        if len(rest) == len(pending):
            raise ValueError("cycle")
        pending = rest
    return order, producers


def _consumers(model, name):
    return [e["dst"] for e in model["edges"] if e["src"] == name]


def _folded_into(model, node):
    """The batchnorm folded into this conv1d/linear, or None."""
    users = _consumers(model, node["name"])
    nodes = {nd["name"]: nd for nd in model["nodes"]}
    if len(users) == 1 and nodes[users[0]]["type"] == "batchnorm1d":
        return nodes[users[0]]
    return None


# ------------------------------------------- per-layer formats and modes
class Format:
    """How one layer's result is quantised (what nn-quantize wrote into the
    quantised model): `bits`, `frac` of the result, `ins` the operands'
    (bits, frac), `weight` (bits, frac) of a conv1d/linear, `rounding` and
    `overflow` (saturate when the layer has none)."""

    def __init__(self, bits, frac, ins=(), weight=None, rounding="nearest",
                 overflow="saturate"):
        self.bits, self.frac, self.ins = bits, frac, list(ins)
        self.weight, self.rounding, self.overflow = weight, rounding, overflow

    def range(self):
        lsb = 2.0 ** -self.frac
        return -(1 << (self.bits - 1)) * lsb, ((1 << (self.bits - 1)) - 1) * lsb

    def half(self, frac=None):
        """The largest error of one rounding to `frac` (default: the
        result's) fraction bits."""
        frac = self.frac if frac is None else frac
        return 2.0 ** -frac * (1.0 if self.rounding == "truncate" else 0.5)

    def drop(self, operand):
        """The rounding error of requantising an operand (bits, frac) to
        the result's format: none unless fraction bits are dropped."""
        return self.half() if operand[1] > self.frac else 0.0


_FIXED = re.compile(r"!nn\.fixed<(\d+), (\d+)>")


def read_formats(quantized_ir):
    """Per layer name, its Format, from the quantised nn module (MLIR text,
    what nn-quantize writes: q.mlir). A batchnorm folded into its conv1d or
    linear has no entry (its layer's applies)."""
    formats, values = {}, {}
    for line in quantized_ir.splitlines():
        m = re.match(r"\s*(?:(%\w+) = )?nn\.(\w+) \"([^\"]+)\"", line)
        if not m or m.group(2) == "model":
            continue
        types = line[line.rindex(" : "):]
        attrs = line[:line.rindex(" : ")]
        fixed = [(int(a), int(b)) for a, b in _FIXED.findall(types)]
        bits, frac = fixed[-1]
        w = re.search(r"weight_format = " + _FIXED.pattern, attrs)
        r = re.search(r'rounding = "(\w+)"', attrs)
        o = re.search(r'overflow = "(\w+)"', attrs)
        ins = fixed[:-1] if "->" in types else []
        # no weight_format: the weights are in the input's format
        weight = (int(w.group(1)), int(w.group(2))) if w else (ins[0] if ins else None)
        formats[m.group(3)] = Format(bits, frac, ins, weight,
                                     r.group(1) if r else "nearest",
                                     o.group(1) if o else "saturate")
        if m.group(1):
            values[m.group(1)] = (bits, frac)
    return formats


def uniform_formats(model, n, f, rounding="nearest"):
    """The Formats of a model in one format !nn.fixed<n, f> (saturating)."""
    order, producers = _graph(model)
    return {nd["name"]: Format(n, f, [(n, f)] * len(producers[nd["name"]]),
                               (n, f), rounding) for nd in order}


def _layer_format(model, formats, node):
    """The Format that applies to `node`'s result: a batchnorm takes the
    conv1d/linear it is folded into; the output its producer's."""
    if node["name"] in formats:
        return formats[node["name"]]
    producers = [e["src"] for e in model["edges"] if e["dst"] == node["name"]]
    nodes = {nd["name"]: nd for nd in model["nodes"]}
    return _layer_format(model, formats, nodes[producers[0]])


def float_reference(model, inputs, n=None, f=None, formats=None, bounds=None):
    """Float outputs of one inference (inputs are raw fixed-point of the
    input's format), in float64, clamped to each layer's range wherever the
    hardware saturates (each conv1d/linear after its batchnorm, each sum,
    each requantisation to another format, hardsigmoid). With `formats`
    (read_formats) and `bounds` (error_bound's per-layer bounds) it returns
    (outputs, wraps): wraps counts the values at a wrapping point (overflow
    wrap) that are not at least their bound inside the range, where the
    hardware may have wrapped and no float bound holds; without, the
    outputs of a model in the one format !nn.fixed<n, f>."""
    plain = formats is None
    if plain:
        formats = uniform_formats(model, n, f)
    order, producers = _graph(model)
    values, shapes = {}, {}
    wraps = [0]
    result = None

    def fit(v, fmt, e):
        lo, hi = fmt.range()
        if fmt.overflow == "wrap" and bounds is not None and not lo + e <= v <= hi - e:
            wraps[0] += 1
        return min(max(v, lo), hi)

    def requant(xs, operand, fmt, e):
        """An operand brought to the result's format (the identity when the
        formats agree)."""
        if operand == (fmt.bits, fmt.frac):
            return xs
        return [fit(v, fmt, e + fmt.drop(operand)) for v in xs]

    bound = bounds or {}
    for node in order:
        t = node["type"]
        ins = producers[node["name"]]
        fmt = _layer_format(model, formats, node)
        e = bound.get(node["name"], 0.0)
        x = values[ins[0]] if ins else None
        shape = shapes[ins[0]] if ins else None
        own = fmt.ins[0] if fmt.ins else None
        folded = t in ("conv1d", "linear") and _folded_into(model, node)
        if t == "input":
            shape = list(node["shape"])
            x = [v / 2.0 ** fmt.frac for v in inputs]
        elif t == "conv1d":
            x, shape = _conv(node, x, shape)
            x = x if folded else [fit(v, fmt, e) for v in x]
        elif t == "linear":
            conv = {"kernel_size": 1, "out_channels": node["out_features"],
                    "weight": [[[w] for w in row] for row in node["weight"]],
                    "bias": node.get("bias")}
            x, shape = _conv(conv, x, shape)
            x = x if folded else [fit(v, fmt, e) for v in x]
        elif t == "batchnorm1d":
            c = shape[1]
            eps = node.get("eps", 1e-5)
            x = [fit((v - node["running_mean"][i % c]) /
                     math.sqrt(node["running_var"][i % c] + eps) *
                     node["weight"][i % c] + node["bias"][i % c], fmt, e)
                 for i, v in enumerate(x)]
        elif t == "relu":
            x = requant([max(v, 0.0) for v in x], own, fmt, e - fmt.drop(own))
        elif t == "hardtanh":
            x = requant([min(max(v, node.get("min", -1.0)), node.get("max", 1.0)) for v in x],
                        own, fmt, e - fmt.drop(own))
        elif t == "hardsigmoid":  # always saturates
            lo, hi = fmt.range()
            x = [min(max(min(max(v / 6 + 0.5, 0.0), 1.0), lo), hi) for v in x]
        elif t == "flatten":
            shape = [1, shape[0] * shape[1]]
            x = requant(x, own, fmt, e - fmt.drop(own))
        elif t in ("maxpool1d", "avgpool1d"):
            x, shape = _pool(node, x, shape)
            x = requant(x, own, fmt, e - fmt.drop(own))
        elif t == "add":
            a, b = [requant(values[i], op, fmt, bound.get(i, 0.0))
                    for i, op in zip(ins, fmt.ins)]
            x = [fit(u + v, fmt, e) for u, v in zip(a, b)]
        elif t == "concat":
            x, shape = _concat(node, [requant(values[i], op, fmt, bound.get(i, 0.0))
                                      for i, op in zip(ins, fmt.ins)],
                               [shapes[i] for i in ins])
        elif t == "output":
            result = x
        values[node["name"]], shapes[node["name"]] = x, shape
    return result if plain else (result, wraps[0])


def _pool(node, x, shape):
    length, c = shape
    k, pad = node["kernel_size"], node.get("padding", 0)
    s = node.get("stride", k)
    out_len = _pool_length(node, length)
    y = []
    for l in range(out_len):
        first, last = max(l * s - pad, 0), min(l * s - pad + k, length) - 1
        for ch in range(c):
            window = [x[p * c + ch] for p in range(first, last + 1)]
            if node["type"] == "maxpool1d":
                y.append(max(window))
            else:
                count = k if node.get("count_include_pad", True) else len(window)
                y.append(sum(window) / count)
    return y, [out_len, c]


def _concat(node, xs, shapes):
    if node.get("axis", "channels") == "length":
        return [v for x in xs for v in x], [sum(s[0] for s in shapes), shapes[0][1]]
    length = shapes[0][0]
    out = []
    for l in range(length):
        for x, s in zip(xs, shapes):
            out += x[l * s[1]:(l + 1) * s[1]]
    return out, [length, sum(s[1] for s in shapes)]


def _folded(model):
    """conv1d/linear weights as [out][R] lists and bias, batchnorm folded."""
    result = {}
    for a in model["nodes"]:
        if a["type"] not in ("conv1d", "linear"):
            continue
        if a["type"] == "conv1d":
            w = [[v for row in ch for v in row] for ch in a["weight"]]
        else:
            w = [list(row) for row in a["weight"]]
        bias = list(a.get("bias") or [0.0] * len(w))
        b = _folded_into(model, a)
        if b:
            for o in range(len(w)):
                s = b["weight"][o] / math.sqrt(b["running_var"][o] + b.get("eps", 1e-5))
                w[o] = [v * s for v in w[o]]
                bias[o] = (bias[o] - b["running_mean"][o]) * s + b["bias"][o]
        result[a["name"]] = (w, bias, bool(a.get("bias") or b))
    return result


def error_bound(model, n=None, f=None, rounding="nearest", formats=None,
                per_layer=False):
    """Largest |hardware - float| any output can show (real units), layer
    by layer (docs/NNQuantization.md, "Error against float"), for a model
    in one format !nn.fixed<n, f> or with per-layer `formats`
    (read_formats). per_layer=True returns the bound of every layer's
    result instead (for float_reference's wrap check). Holds where no
    value wraps: saturation is 1-Lipschitz, a wrap is not."""
    if formats is None:
        formats = uniform_formats(model, n, f, rounding)
    folded = _folded(model)
    order, producers = _graph(model)
    bound = {}
    for node in order:
        t = node["type"]
        ins = producers[node["name"]]
        fmt = _layer_format(model, formats, node)
        e = bound[ins[0]] if ins else 0.0
        own = fmt.ins[0] if fmt.ins else None
        if t in ("conv1d", "linear"):
            ni, fi = own
            nw, fw = fmt.weight
            xmax = 2.0 ** (ni - 1 - fi)  # the largest |input|
            w, bias, has_bias = folded[node["name"]]
            e_in = e
            if t == "conv1d":
                pv = node.get("padding_value", 0.0)
                e_in = max(e, abs(pv - quantize_const(pv, fi, ni) * 2.0 ** -fi))
            worst = 0.0
            for o, row in enumerate(w):
                werr = sum(abs(v - quantize_const(v, fw, nw) * 2.0 ** -fw) for v in row)
                berr = abs(bias[o] - quantize_const(bias[o], fi + fw, min(16, ni + nw - 1))
                           * 2.0 ** -(fi + fw)) if has_bias else 0.0
                worst = max(worst, sum(abs(v) for v in row) * e_in + werr * xmax + berr)
            e = worst + (fmt.half() if fmt.frac < fi + fw else 0.0) + 1e-9
        elif t == "hardtanh":
            for key, default in (("min", -1.0), ("max", 1.0)):
                v = node.get(key, default)
                e = max(e, abs(v - quantize_const(v, own[1], own[0]) * 2.0 ** -own[1]))
            e += fmt.drop(own)
        elif t == "hardsigmoid":  # the exact rounding of x / 6 + 1/2
            e = e / 6 + fmt.half()
        elif t in ("relu", "flatten", "maxpool1d"):  # 1-Lipschitz, exact
            e += fmt.drop(own)
        elif t == "avgpool1d":  # an average of errors, one rounding in the
            e += fmt.half(own[1]) + fmt.drop(own)  # input's format, requant
        elif t == "add":
            e = sum(bound[i] + fmt.drop(op) for i, op in zip(ins, fmt.ins))
        elif t == "concat":
            e = max(bound[i] + fmt.drop(op) for i, op in zip(ins, fmt.ins))
        bound[node["name"]] = e
        if t == "output":
            return bound if per_layer else e
    return bound if per_layer else 0.0


# ------------------------------------------------------------ the flow
def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode,
                                                      p.stdout, p.stderr))
    return p.stdout


def compile_model(tools, model_path, work, n, f, rounding, parallelism,
                  overflow="saturate"):
    """JSON -> quantised nn (q.mlir) -> VHDL in work/vhdl; returns report."""
    nn = run([os.path.join(tools, "unum-translate"), "--from-nn-json", model_path])
    q = run([os.path.join(tools, "unum-opt"), "--nn-dead-node-elim",
             "--nn-fold-batchnorm",
             "--nn-quantize=total-bits=%d frac-bits=%d rounding=%s overflow=%s"
             % (n, f, rounding, overflow)],
            input=nn)
    with open(os.path.join(work, "q.mlir"), "w") as out:
        out.write(q)
    rtl = run([os.path.join(tools, "unum-opt"),
               "--convert-nn-to-rtl=parallelism=%d" % parallelism], input=q)
    vhdl = os.path.join(work, "vhdl")
    run([os.path.join(tools, "unum-translate"), "--to-vhdl", "--output-dir", vhdl, "-"],
        input=rtl)
    with open(os.path.join(vhdl, "report.json")) as r:
        return json.load(r)


def reference(tools, work, input_file):
    out = run([os.path.join(tools, "unum-nn-sim"), os.path.join(work, "q.mlir"),
               "--input", input_file])
    return [int(v) for v in out.split()]


def _inferences(report, input_file):
    with open(input_file) as f:
        values = sum(1 for line in f if line.strip().lstrip("-").isdigit())
    per = report["input"]["width"] * report["input"]["beats"]
    return max(1, values // per)


def ghdl(work, report, input_file, synth=True, stall_every=0,
         back_to_back=False, stall_seed=0):
    """Analyses, (optionally) synthesises and simulates the design in
    work/vhdl; returns (outputs, cycles per inference, seconds in GHDL).
    stall_every > 0 drops out_ready every stall_every-th cycle; stall_seed
    > 0 on a seeded pseudo-random quarter of the cycles (backpressure).
    back_to_back feeds each inference right after the previous one (the
    cycles then include the waits in the pipeline). Without backpressure
    the testbench asserts that the last initiation interval equals the
    report's (see ghdl_ii) and that the latency does (every inference's,
    the first one's when back to back); always that no output beat is lost
    or duplicated."""
    return ghdl_dir(os.path.join(work, "vhdl"), report, input_file, synth,
                    stall_every, back_to_back, stall_seed)


def ghdl_dir(vhdl, report, input_file, synth=True, stall_every=0,
             back_to_back=False, stall_seed=0):
    start = time.time()
    run(["ghdl", "-a", "--std=08"] + report["files"], cwd=vhdl)
    if synth:
        run(["ghdl", "--synth", "--std=08", report["top"]], cwd=vhdl)
    run(["ghdl", "-e", "--std=08", report["testbench"]], cwd=vhdl)
    # the interval is the report's without backpressure
    generics = ["-gback_to_back=true"] if back_to_back else []
    if not stall_every and not stall_seed:
        generics.append("-gexpect_latency=%d" % report["latency"])
        if back_to_back:
            generics.append("-gexpect_ii=%d" % report["initiation_interval"])
    run(["ghdl", "-r", "--std=08", report["testbench"],
         "-ginput_file=" + os.path.abspath(input_file),
         "-goutput_file=output.txt", "-gcycles_file=cycles.txt",
         "-gii_file=ii.txt", "-gstall_every=%d" % stall_every,
         "-gstall_seed=%d" % stall_seed,
         # a hang fails fast: far more than any inference needs, even stalled
         "-gmax_cycles=%d" % (10 * (report["scheduled_bound"] + 20) * _inferences(
             report, input_file)),
         "--ieee-asserts=disable"] + generics, cwd=vhdl)
    seconds = time.time() - start
    with open(os.path.join(vhdl, "output.txt")) as o:
        outputs = [int(v) for v in o.read().split()]
    with open(os.path.join(vhdl, "cycles.txt")) as c:
        cycles = [int(v) for v in c.read().split()]
    return outputs, cycles, seconds


def ghdl_ii(vhdl):
    """The cycles between consecutive inferences' last output beats of the
    last simulation in vhdl (the measured initiation intervals)."""
    with open(os.path.join(vhdl, "ii.txt")) as g:
        return [int(v) for v in g.read().split()]


def lanes_divide(report):
    """True when every mac unit's lanes divide its output channels, the case
    where the schedule reaches ceil(MACs / P)."""
    return all(s["macs"] == s["mac_cycles"] * s["multipliers"]
               for s in report["stages"] if s["kind"] == "mac_unit")


def write_inputs(path, rng, count, n, length, channels):
    samples = [[rng.randint(-(1 << (n - 1)), (1 << (n - 1)) - 1)
                for _ in range(length * channels)] for _ in range(count)]
    with open(path, "w") as out:
        for s in samples:
            out.write("\n".join(str(v) for v in s) + "\n")
    return samples
