#!/usr/bin/env python3
"""Simulates a design written by `unum-translate --to-vhdl --output-dir DIR`
with GHDL and prints its report: cycles per inference measured in simulation
next to the figures of DIR/report.json (the exact latency, which the
testbench checks, multipliers, adder-tree adders, ROM bits, the cycle bound). Optionally compares the outputs with the CPU
reference.

  utils/nn/simulate.py DIR --input samples.txt [--reference q.mlir]
                       [--unum-nn-sim build/bin/unum-nn-sim]
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nnhw  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("dir")
parser.add_argument("--input", required=True)
parser.add_argument("--reference", help="the quantised nn model, for a bit-exact check")
parser.add_argument("--unum-nn-sim", default=os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "bin", "unum-nn-sim"))
args = parser.parse_args()

with open(os.path.join(args.dir, "report.json")) as r:
    report = json.load(r)
outputs, cycles, seconds = nnhw.ghdl_dir(os.path.abspath(args.dir), report, args.input)
print("design %s: %d inference(s), GHDL %.2f s" % (report["design"], len(cycles), seconds))
print("  cycles per inference (measured): %s" % ", ".join(map(str, cycles)))
print("  latency (report.json, checked by the testbench): %d" % report["latency"])
print("  cycle bound ceil(MACs/P) + depth + L: %d (as scheduled: %d)"
      % (report["cycle_bound"], report["scheduled_bound"]))
print("  multipliers %d, adder-tree adders %d, ROM bits %d, MACs %d, pipeline depth %d"
      % (report["multipliers"], report.get("tree_adders", 0), report["rom_bits"],
         report["macs"], report["pipeline_depth"]))
for s in report["stages"]:
    print("  %-24s %-11s multipliers %3d  ROM bits %7d  MAC cycles %7d"
          % (s["entity"], s["kind"], s["multipliers"], s["rom_bits"], s["mac_cycles"]))
status = 0
if args.reference:
    ref = subprocess.run([args.unum_nn_sim, args.reference, "--input", args.input],
                         stdout=subprocess.PIPE, universal_newlines=True, check=True)
    same = [int(v) for v in ref.stdout.split()] == outputs
    print("  bit-exact with unum-nn-sim: %s" % ("yes" if same else "NO"))
    status = 0 if same else 1
sys.exit(status)
