#!/usr/bin/env python3
"""One conv1d layer through the hardware flow at P = 1, 2, 4, 8.

Prints, per P: cycles per inference measured in GHDL simulation against the
target ceil(MACs / P) + pipeline depth + L, the multipliers and ROM bits of
report.json, and the GHDL time (analysis + synthesis check + simulation).
Every run is also checked bit for bit against unum-nn-sim.

  utils/bench/nn_conv1d.py [--build build] [--length 64] [--channels 8]
"""

import argparse
import json
import math
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nn"))
import nnhw  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "..", "build"))
parser.add_argument("--length", type=int, default=64)
parser.add_argument("--channels", type=int, default=8, help="in and out channels")
parser.add_argument("--kernel", type=int, default=3)
parser.add_argument("--inferences", type=int, default=4)
args = parser.parse_args()
tools = os.path.join(os.path.abspath(args.build), "bin")

rng = random.Random(7)
c, k, length = args.channels, args.kernel, args.length
model = {"name": "conv_bench", "nodes": [
    {"name": "x", "type": "input", "shape": [length, c]},
    nnhw.conv1d_node(rng, "conv", c, length, out_ch=c, groups=1, kernel=k,
                     stride=1, padding="same", bias=True),
    {"name": "y", "type": "output"}],
    "edges": [{"src": "x", "dst": "conv"}, {"src": "conv", "dst": "y"}]}
macs = length * c * c * k

print("conv1d L=%d C_in=C_out=%d K=%d padding=same, Q8.4, %d MACs per inference"
      % (length, c, k, macs))
print("%3s | %8s | %24s | %5s | %11s | %8s | %11s | %9s | %s"
      % ("P", "cycles", "bound ceil(MACs/P)+d+L", "ratio", "multipliers", "ROM bits",
         "buffer bits", "GHDL s", "bit-exact"))
print("-" * 110)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.json")
    with open(path, "w") as out:
        json.dump(model, out)
    inputs = os.path.join(tmp, "input.txt")
    nnhw.write_inputs(inputs, rng, args.inferences, 8, length, c)
    base = None
    for p in (1, 2, 4, 8):
        work = os.path.join(tmp, "p%d" % p)
        os.makedirs(work)
        report = nnhw.compile_model(tools, path, work, 8, 4, "nearest", p)
        expected = nnhw.reference(tools, work, inputs)
        got, cycles, seconds = nnhw.ghdl(work, report, inputs)
        bound = math.ceil(macs / p) + report["pipeline_depth"] + length
        base = base or max(cycles)
        print("%3d | %8d | %24d | %5.2f | %11d | %8d | %11d | %9.2f | %s"
              % (p, max(cycles), bound, base / max(cycles), report["multipliers"],
                 report["rom_bits"], report["buffer_bits"], seconds,
                 "yes" if got == expected else "NO"))
print("ratio: cycles at P=1 / cycles at P; cycles are the worst of %d inferences;"
      % args.inferences)
print("GHDL s: analysis + ghdl --synth + simulation of all inferences")
