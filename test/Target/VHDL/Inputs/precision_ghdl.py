"""Per-layer precision under GHDL, exhaustively on the input range.

1. hardsigmoid at F = 1, 2, 4, 8 (input and result formats, every rounding):
   on every input value the hardware equals unum-nn-sim and both equal the
   exact rounding of x / 6 + 1/2 computed here with rationals (so the slope
   never degrades to a quantised constant, which was 0 at F = 1).
2. requantisation between layers of differing formats in every rounding and
   overflow mode: relu and maxpool/avgpool to fewer and more fraction bits,
   add and concat of operands in other formats, a linear with its own weight
   format and a wrapping result. On every input value the hardware equals
   unum-nn-sim, and the elementwise cases also equal a model of requant
   computed here with rationals. Every design passes ghdl --synth."""

import argparse
import json
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                "utils", "nn"))
import nnhw  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--tools", required=True)
parser.add_argument("--work", required=True)
args = parser.parse_args()

AP = {"truncate": "AP_TRN", "nearest": "AP_RND", "half_even": "AP_RND_CONV"}


def fmt(bits, frac, rounding=None, overflow=None):
    extra = ""
    if rounding:
        extra = ", %s, %s" % (AP[rounding], "AP_WRAP" if overflow == "wrap" else "AP_SAT")
    return "ap_fixed<%d, %d%s>" % (bits, bits - frac, extra)


def round_q(value, rounding):
    """A Fraction rounded to an integer."""
    floor = value.numerator // value.denominator
    rest = value - floor
    if rounding == "truncate":
        return floor
    if rounding == "nearest":
        return floor + (1 if rest >= Fraction(1, 2) else 0)
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2):
        return floor + 1
    return floor


def fit(v, bits, overflow):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if overflow == "wrap":
        v &= (1 << bits) - 1
        return v - (1 << bits) if v > hi else v
    return min(max(v, lo), hi)


def requant(q, f_in, bits, f_out, rounding, overflow):
    return fit(round_q(Fraction(q * 2 ** f_out, 2 ** f_in), rounding), bits, overflow)


def hardsigmoid(q, f_in, bits, f_out, rounding):
    x = Fraction(q, 2 ** f_in)
    y = round_q((x / 6 + Fraction(1, 2)) * 2 ** f_out, rounding)
    return min(max(y, 0), 2 ** f_out, (1 << (bits - 1)) - 1)


def run_model(name, model, n, f, channels, in_bits, expect=None, extra="", p=2):
    """Compiles, simulates every input value of in_bits bits (one inference
    of [values / channels, channels]) and compares; returns problems."""
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "model.json")
    with open(path, "w") as out:
        json.dump(model, out)
    report = nnhw.compile_model(args.tools, path, work, n, f, "nearest", p,
                                overflow="saturate")
    values = list(range(-(1 << (in_bits - 1)), 1 << (in_bits - 1)))
    inputs = os.path.join(work, "input.txt")
    with open(inputs, "w") as out:
        out.write("\n".join(map(str, values)) + "\n")
    reference = nnhw.reference(args.tools, work, inputs)
    got, _, _ = nnhw.ghdl(work, report, inputs)
    problems = []
    if got != reference:
        bad = sum(a != b for a, b in zip(got, reference)) + abs(len(got) - len(reference))
        problems.append("GHDL differs from unum-nn-sim on %d of %d" % (bad, len(reference)))
    if expect is not None:
        want = [expect(v) for v in values]
        if reference != want:
            bad = [(v, a, b) for v, a, b in zip(values, reference, want) if a != b]
            problems.append("unum-nn-sim differs from the exact rounding on %d values, "
                            "first %s" % (len(bad), bad[:1]))
    print("%s: %d values%s: %s" % (name, len(values), extra,
                                   "; ".join(problems) or "ok"))
    return problems


def chain(name, length, channels, layers, input_precision=None):
    nodes = [{"name": "x", "type": "input", "shape": [length, channels]}]
    if input_precision:
        nodes[0]["precision"] = {"result": input_precision}
    edges, prev = [], "x"
    for layer in layers:
        nodes.append(layer)
        edges.append({"src": prev, "dst": layer["name"]})
        prev = layer["name"]
    nodes.append({"name": "y", "type": "output"})
    edges.append({"src": prev, "dst": "y"})
    return {"name": name, "nodes": nodes, "edges": edges}


failures = 0
# 1. hardsigmoid: 10-bit inputs at F fraction bits, results at F and at
# another count of fraction bits
for f in (1, 2, 4, 8):
    for f_out, rounding in ((f, "nearest"), (max(1, 9 - f), "truncate"),
                            (f, "half_even")):
        n_out = 10
        model = chain("hs_f%d_%d_%s" % (f, f_out, rounding), 256, 4,
                      [{"name": "s", "type": "hardsigmoid",
                        "precision": {"result": fmt(n_out, f_out), "rounding": rounding}}],
                      input_precision=fmt(10, f))
        failures += bool(run_model(
            model["name"], model, 10, f, 4, 10,
            expect=lambda q, f=f, f_out=f_out, r=rounding: hardsigmoid(q, f, n_out, f_out, r),
            extra=" (F=%d -> %d, %s)" % (f, f_out, rounding)))

# 2a. relu requantised from Q8.5 to fewer (2) and more (7, wrapping over 8
# bits) fraction bits in every mode
for f_out, bits in ((2, 6), (7, 8)):
    for rounding in ("truncate", "nearest", "half_even"):
        for overflow in ("saturate", "wrap"):
            name = "relu_%d_%d_%s_%s" % (bits, f_out, rounding, overflow)
            model = chain(name, 64, 4, [{"name": "r", "type": "relu", "precision": {
                "result": fmt(bits, f_out), "rounding": rounding, "overflow": overflow}}],
                input_precision=fmt(8, 5))
            failures += bool(run_model(
                name, model, 8, 5, 4, 8,
                expect=lambda q, b=bits, fo=f_out, r=rounding, o=overflow:
                    requant(max(q, 0), 5, b, fo, r, o)))

# 2b. a graph: pooling to other formats, an add of operands in two formats,
# a concat, and a linear with its own weight format and a wrapping result
graph = {"name": "mix", "nodes": [
    {"name": "x", "type": "input", "shape": [32, 2], "precision": {"result": fmt(8, 4)}},
    {"name": "mp", "type": "maxpool1d", "kernel_size": 2,
     "precision": {"result": fmt(6, 2, "half_even", "wrap")}},
    {"name": "ap", "type": "avgpool1d", "kernel_size": 2,
     "precision": {"result": fmt(10, 6), "rounding": "truncate"}},
    {"name": "sum", "type": "add", "precision": {"result": fmt(7, 3), "rounding": "half_even",
                                                 "overflow": "wrap"}},
    {"name": "cat", "type": "concat", "precision": {"result": fmt(9, 5),
                                                    "rounding": "nearest"}},
    {"name": "lin", "type": "linear", "in_features": 4, "out_features": 3,
     "weight": [[0.3, -1.7, 0.05, 2.2], [-0.6, 0.9, 1.1, -0.2], [0.01, 0.02, -0.03, 0.7]],
     "bias": [0.1, -0.3, 0.25],
     "precision": {"weight": "ap_fixed<6, 2>", "result": fmt(5, 1, "truncate", "wrap"),
                   "accum": 30}},
    {"name": "y", "type": "output"}],
    "edges": [{"src": "x", "dst": "mp"}, {"src": "x", "dst": "ap"},
              {"src": "mp", "dst": "sum"}, {"src": "ap", "dst": "sum"},
              {"src": "sum", "dst": "cat"}, {"src": "mp", "dst": "cat"},
              {"src": "cat", "dst": "lin"}, {"src": "lin", "dst": "y"}]}
for p in (1, 4):
    failures += bool(run_model("mix_p%d" % p, graph, 8, 4, 2, 8,
                               extra=" (a graph, P=%d)" % p, p=p))

if failures:
    print("%d precision models FAILED" % failures)
    sys.exit(1)
print("all precision models bit-exact")
