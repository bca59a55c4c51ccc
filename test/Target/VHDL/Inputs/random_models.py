"""Random models through the whole hardware flow under GHDL.

For every seed: a random 2-4 layer model (utils/nn/nnhw.py), quantised with
varying widths and rounding, lowered at P = 1, 2, 4 or 8, emitted, checked
with `ghdl --synth`, and simulated on random inputs. Fails unless the
simulation equals unum-nn-sim bit for bit, stays within the float error
bound (per-layer formats included; inferences where a wrapping layer may
have wrapped are not checked and counted), takes exactly report.json's
latency (the testbench asserts it; the bound must hold too). The inferences go in back to back: the cycles between
consecutive inferences' ends (the initiation interval) must all equal
report.json's initiation_interval (the testbench asserts the last one
itself)."""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                "utils", "nn"))
import nnhw  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--tools", required=True)
parser.add_argument("--work", required=True)
parser.add_argument("--seeds", type=int, default=16)
parser.add_argument("--first", type=int, default=0)
parser.add_argument("--inferences", type=int, default=3)
parser.add_argument("--mixed", type=int, default=2,
                    help="every MIXED-th model (seeds 1, 1 + MIXED, ...) gets "
                    "per-layer formats and modes (0: none)")
parser.add_argument("--graphs", action="store_true",
                    help="layer graphs (residual add, concat, forks, dead "
                    "nodes) instead of chains")
args = parser.parse_args()

FORMATS = [(8, 4), (10, 5), (12, 6), (6, 3), (16, 8)]
kinds, failures, seconds, float_checked = set(), 0, 0.0, 0
for seed in range(args.first, args.first + args.seeds):
    rng = random.Random(1000 + seed)
    model = nnhw.random_graph(seed) if args.graphs else nnhw.random_model(seed)
    blocks = model.pop("blocks", [])
    n, f = FORMATS[seed % len(FORMATS)]
    rounding = nnhw.ROUNDINGS[seed % 3]
    overflow = "saturate"
    p = [1, 2, 4, 8][seed % 4]
    mixed = args.mixed and seed % args.mixed == 1
    if mixed:
        # per-layer formats and modes; the default overflow wraps sometimes
        overflow = nnhw.OVERFLOWS[(seed // args.mixed) % 2]
        kinds.update(nnhw.random_precision(model, rng, n, f))
        kinds.add("mixed")
    kinds.update({rounding, overflow})
    work = os.path.join(args.work, "seed%d" % seed)
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "model.json")
    with open(path, "w") as out:
        json.dump(model, out, indent=1)
    report = nnhw.compile_model(args.tools, path, work, n, f, rounding, p,
                                overflow=overflow)
    x = next(nd for nd in model["nodes"] if nd["name"] == "x")
    in_bits = n
    if "result" in x.get("precision", {}):
        in_bits = int(x["precision"]["result"].split("<")[1].split(",")[0])
    inputs = os.path.join(work, "input.txt")
    samples = nnhw.write_inputs(inputs, rng, args.inferences, in_bits, *x["shape"])
    expected = nnhw.reference(args.tools, work, inputs)
    got, cycles, secs = nnhw.ghdl(work, report, inputs, back_to_back=True)
    seconds += secs
    intervals = nnhw.ghdl_ii(os.path.join(work, "vhdl"))
    # the first inference meets an empty pipeline: its cycles are the latency
    cycles = cycles[:1]
    # Every third model again with periodic backpressure: out_ready low
    # every k-th cycle (k = 2 or 3) stalls the stages, 7 inferences back to
    # back; the outputs must not change (none lost or duplicated: the
    # testbench checks the count) and the inferences then finish on average
    # every max(II, out_beats * k / (k - 1)) cycles: the 6 intervals add up
    # to exactly 6 times that (docs/VHDLInterface.md). Every third other
    # model with seeded pseudo-random backpressure (out_ready low on a
    # quarter of the cycles): the same outputs.
    bp_problems = []
    if seed % 3 == 1:
        k = 2 + (seed // 3) % 2
        more = os.path.join(work, "input7.txt")
        nnhw.write_inputs(more, rng, 7, in_bits, *x["shape"])
        stalled, _, secs = nnhw.ghdl(work, report, more, synth=False,
                                     stall_every=k, back_to_back=True)
        seconds += secs
        kinds.add("backpressure")
        if stalled != nnhw.reference(args.tools, work, more):
            bp_problems.append("outputs differ under backpressure")
        stalled_ii = nnhw.ghdl_ii(os.path.join(work, "vhdl"))
        pace = max(report["initiation_interval"],
                   report["output"]["beats"] * k / (k - 1))
        if len(stalled_ii) != 6 or sum(stalled_ii) != 6 * pace:
            bp_problems.append("intervals %s under stall_every=%d, expected %g on average"
                               % (stalled_ii, k, pace))
    if seed % 3 == 2:
        stalled, _, secs = nnhw.ghdl(work, report, inputs, synth=False,
                                     stall_seed=seed + 1, back_to_back=True)
        seconds += secs
        kinds.add("random-backpressure")
        if stalled != expected:
            bp_problems.append("outputs differ under random backpressure")
    layers = blocks or [nd["type"] for nd in model["nodes"][1:-1]]
    kinds.update(blocks)
    if sum(nd["type"] == "input" for nd in model["nodes"]) > 1:
        kinds.add("dead-input")
    if report.get("forks"):
        kinds.add("fork")
    for nd in model["nodes"]:
        kinds.add(nd["type"])
        if nd["type"] == "conv1d":
            kinds.add("padding=%s" % (nd["padding"] if isinstance(nd["padding"], str) else "N"))
            kinds.add("stride>1" if nd["stride"] > 1 else "stride=1")
            kinds.add("groups>1" if nd["groups"] > 1 else "groups=1")
            kinds.add("bias" if nd["bias"] else "no-bias")
    kinds.add("P=%d" % p)
    if any(st.get("tree_adders", 0) for st in report["stages"]):
        kinds.add("adder-tree")
    for name in report["files"]:
        with open(os.path.join(work, "vhdl", name)) as vhd:
            if "b mod ROWS;" in vhd.read():
                kinds.add("line-buffer")
    problems = bp_problems
    if got != expected:
        bad = [i for i, (a, b) in enumerate(zip(got, expected)) if a != b]
        problems.append("not bit-exact: %d of %d outputs differ (first at %s)"
                        % (len(bad) + abs(len(got) - len(expected)), len(expected),
                           bad[:1] or "the end"))
    # The float check, per-layer formats included (the bound composes layer
    # by layer); a sample where a value may have wrapped (overflow wrap, a
    # float value within its bound of the range's ends) has no bound and is
    # not checked, and counted.
    with open(os.path.join(work, "q.mlir")) as q:
        formats = nnhw.read_formats(q.read())
    bounds = nnhw.error_bound(model, formats=formats, per_layer=True)
    out = next(nd["name"] for nd in model["nodes"] if nd["type"] == "output")
    bound, out_frac = bounds[out], formats[out].frac
    per = len(expected) // args.inferences
    worst, checked = 0.0, 0
    for k, sample in enumerate(samples):
        ref, wraps = nnhw.float_reference(model, sample, formats=formats, bounds=bounds)
        if wraps:
            continue
        checked += 1
        hw = got[k * per:(k + 1) * per]
        if len(ref) != len(hw):
            problems.append("output count %d, float reference %d" % (len(hw), len(ref)))
            break
        worst = max([worst] + [abs(a / 2.0 ** out_frac - b) for a, b in zip(hw, ref)])
    float_checked += checked
    if worst > bound:
        problems.append("float error %.5f above the bound %.5f" % (worst, bound))
    if checked and mixed:
        kinds.add("float-checked-mixed")
    float_text = ("float error %.4f <= %.4f (%d of %d inferences; the others may wrap)"
                  % (worst, bound, checked, len(samples)))
    limit = report["cycle_bound"] if nnhw.lanes_divide(report) else report["scheduled_bound"]
    if not cycles or max(cycles) > limit:
        problems.append("cycles %s above %d" % (cycles, limit))
    if cycles != [report["latency"]]:
        problems.append("cycles %s, report.json's latency %d" % (cycles, report["latency"]))
    ii = report["initiation_interval"]
    if len(intervals) != args.inferences - 1 or set(intervals) != {ii}:
        problems.append("initiation intervals %s, report %d" % (intervals, ii))
    status = "FAIL " + "; ".join(problems) if problems else "ok"
    failures += bool(problems)
    print("seed %d: %s Q%d.%d %s %s%s P=%d: %d outputs, cycles %d = latency <= %d (%s), "
          "II %s = %d, %s: %s"
          % (seed, "+".join(layers), n, f, rounding, overflow,
             " per-layer" if mixed else "", p, len(expected), max(cycles or [0]),
             limit, "ceil(MACs/P)+depth+L" if limit == report["cycle_bound"]
             else "scheduled", "/".join(map(str, intervals)), ii,
             float_text, status))
print("covered: " + " ".join(sorted(kinds)))
MODES = set(nnhw.ROUNDINGS) | set(nnhw.OVERFLOWS) | {"mixed", "float-checked-mixed"} \
    if args.mixed else set()
REQUIRED = {"conv1d", "linear", "relu", "hardtanh", "hardsigmoid", "batchnorm1d",
            "flatten", "padding=valid", "padding=same", "padding=N", "stride>1",
            "groups>1", "bias", "no-bias", "adder-tree", "line-buffer", "backpressure",
            "random-backpressure", "P=1", "P=2", "P=4",
            "P=8"} | MODES
if args.graphs:
    REQUIRED = {"add", "concat", "fork", "dead-input", "backpressure",
                "random-backpressure", "batchnorm1d",
                "maxpool1d", "avgpool1d",
                "P=1", "P=2", "P=4", "P=8"} | set(nnhw.GRAPH_BLOCKS) | MODES
if args.seeds >= (8 if args.graphs else 16) and not REQUIRED <= kinds:
    print("FAIL: the seeds do not cover " + " ".join(sorted(REQUIRED - kinds)))
    failures += 1
print("float bound checked on %d of %d inferences" % (float_checked,
                                                      args.seeds * args.inferences))
print("GHDL time: %.1f s" % seconds)
if failures:
    print("%d of %d models FAILED" % (failures, args.seeds))
    sys.exit(1)
print("all %d models bit-exact" % args.seeds)
