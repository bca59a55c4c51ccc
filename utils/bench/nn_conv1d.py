#!/usr/bin/env python3
"""One conv1d layer through the hardware flow at P = 1, 2, 4, 8.

Prints, per P: cycles per inference measured in GHDL simulation against the
target ceil(MACs / P) + pipeline depth + L, the initiation interval measured
with the inferences back to back (the testbench fails unless it equals
report.json's) and its ratio to the latency, the multipliers and all memory
bits of report.json (weight ROM, control tables, buffers), and the GHDL time
(analysis + synthesis check + both simulations). Every run is also checked
bit for bit against unum-nn-sim. A second table
gives, per P, what the design costs on an iCE40 UP5K and how fast it runs
(utils/nn-flow/synth.py: ghdl --synth -> yosys synth_ice40 -> nextpnr-ice40):
LUTs, flip-flops, DSP blocks, RAM blocks, Fmax (skipped with --no-synth or
when yosys/nextpnr-ice40 are missing).

  utils/bench/nn_conv1d.py [--build build] [--length 64] [--channels 8] [--no-synth]
"""

import argparse
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nn"))
sys.path.insert(0, os.path.join(HERE, "..", "nn-flow"))
import nnhw  # noqa: E402
import synth  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "..", "build"))
parser.add_argument("--length", type=int, default=64)
parser.add_argument("--channels", type=int, default=8, help="in and out channels")
parser.add_argument("--kernel", type=int, default=3)
parser.add_argument("--inferences", type=int, default=4)
parser.add_argument("--no-synth", action="store_true",
                    help="skip the yosys/nextpnr table (it takes minutes)")
args = parser.parse_args()
do_synth = not args.no_synth and all(shutil.which(t) for t in ("yosys", "nextpnr-ice40"))
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
print("%3s | %8s | %22s | %5s | %5s | %6s | %11s | %8s | %10s | %11s | %7s | %s"
      % ("P", "cycles", "bound ceil(MACs/P)+d+L", "ratio", "II", "II/lat", "multipliers",
         "ROM bits", "table bits", "buffer bits", "GHDL s", "bit-exact"))
print("-" * 132)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.json")
    with open(path, "w") as out:
        json.dump(model, out)
    inputs = os.path.join(tmp, "input.txt")
    nnhw.write_inputs(inputs, rng, args.inferences, 8, length, c)
    base = None
    works = {}
    for p in (1, 2, 4, 8):
        work = os.path.join(tmp, "p%d" % p)
        works[p] = work
        os.makedirs(work)
        report = nnhw.compile_model(tools, path, work, 8, 4, "nearest", p)
        expected = nnhw.reference(tools, work, inputs)
        got, cycles, seconds = nnhw.ghdl(work, report, inputs)
        # again back to back: the testbench asserts the report's interval
        piped, _, more = nnhw.ghdl(work, report, inputs, synth=False,
                                   back_to_back=True)
        ii = nnhw.ghdl_ii(os.path.join(work, "vhdl"))[-1]
        bound = math.ceil(macs / p) + report["pipeline_depth"] + length
        base = base or max(cycles)
        print("%3d | %8d | %22d | %5.2f | %5d | %6.2f | %11d | %8d | %10d | %11d | %7.2f | %s"
              % (p, max(cycles), bound, base / max(cycles), ii, ii / max(cycles),
                 report["multipliers"], report["rom_bits"], report["table_bits"],
                 report["buffer_bits"], seconds + more,
                 "yes" if got == expected == piped else "NO"))
    print("ratio: cycles at P=1 / cycles at P; cycles are the worst of %d inferences"
          " one at a time (the latency);" % args.inferences)
    print("II: cycles between the last two of them back to back (= report.json's "
          "initiation_interval)")
    print("GHDL s: analysis + ghdl --synth + simulation of all inferences, twice")
    if do_synth:
        print()
        print("synthesis for iCE40 UP5K (5280 LUTs, 8 DSP, 30 RAM blocks): "
              "utils/nn-flow/synth.py, figures include its 1-pin I/O shell")
        print("%3s | %6s | %10s | %6s | %3s | %3s | %9s | %s"
              % ("P", "LUTs", "flip-flops", "carry", "DSP", "RAM", "Fmax MHz", "s"))
        print("-" * 64)
        for p, work in works.items():
            start = time.time()
            try:
                f = synth.synthesise(os.path.join(work, "vhdl"))
            except synth.FlowError as e:
                print("%3d | synthesis failed: %s" % (p, str(e).splitlines()[0]))
                continue
            fmax = "%.1f" % f["fmax_mhz"] if f.get("fmax_mhz") else "no fit"
            print("%3d | %6d | %10d | %6d | %3d | %3d | %9s | %.0f"
                  % (p, f["luts"], f["flip_flops"], f["carries"], f["dsp_blocks"],
                     f["ram_blocks"], fmax, time.time() - start))
    else:
        print("(no synthesis table: --no-synth, or yosys/nextpnr-ice40 missing)")
