#!/usr/bin/env python3
"""Compile generated Step Functions state machines end to end with unumc.

Each machine is a chain of blocks; a block holds a 3-task chain, a Choice
with two branches that rejoin, a Parallel with two 2-task branches, a Map over
a 2-task iterator that holds a nested Parallel, and an identity Pass: 20
states. Machines of 1k, 10k and 100k states are compiled to a config
directory (import, checks, lowering, verification, export of one
unum_config.json per function). For each size the table gives, best of
several runs:
  compile   unumc with the configs printed to /dev/null (no file system),
  to dir    unumc writing the config directory,
  fs floor  the same number of folders and files created by this script
            (mkdir + write, measured in the same run, same file system),
the time per state and the growth from one size to the next (10x the states
should take about 10x the time). Target: 10k states in under 1 s.

usage: utils/bench/asl_compile.py [--unumc build/bin/unumc]
           [--sizes 1000,10000,100000] [--dir /dev/shm]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def block(i, nxt):
    """The states of block i; the last one continues to `nxt` (or ends)."""
    p = "b%d_" % i

    def task(name, next_state):
        state = {"Type": "Task", "Resource": p + name}
        if next_state:
            state["Next"] = next_state
        else:
            state["End"] = True
        return state

    states = {
        p + "T1": task("T1", p + "T2"),
        p + "T2": task("T2", p + "T3"),
        p + "T3": task("T3", p + "Route"),
        p + "Route": {"Type": "Choice", "Choices": [
            {"Variable": "$.n", "NumericGreaterThan": i, "Next": p + "Hi"}],
            "Default": p + "Lo"},
        p + "Hi": task("Hi", p + "Join"),
        p + "Lo": task("Lo", p + "Join"),
        p + "Join": task("Join", p + "Fan"),
        p + "Fan": {"Type": "Parallel", "Next": p + "Each", "Branches": [
            {"StartAt": p + "L1", "States": {p + "L1": task("L1", p + "L2"),
                                              p + "L2": task("L2", None)}},
            {"StartAt": p + "R1", "States": {p + "R1": task("R1", p + "R2"),
                                              p + "R2": task("R2", None)}}]},
        p + "Each": {"Type": "Map", "Next": p + "Skip", "Iterator": {
            "StartAt": p + "M1", "States": {
                p + "M1": task("M1", p + "Inner"),
                p + "Inner": {"Type": "Parallel", "End": True, "Branches": [
                    {"StartAt": p + "X", "States": {p + "X": task("X", None)}},
                    {"StartAt": p + "Y", "States": {p + "Y": task("Y", None)}}]}}}},
        p + "Skip": {"Type": "Pass", "Next": p + "Last"},
        p + "Last": task("Last", nxt),
    }
    return states


def count_states(states):
    n = 0
    for s in states.values():
        n += 1
        for b in s.get("Branches", []):
            n += count_states(b["States"])
        if "Iterator" in s:
            n += count_states(s["Iterator"]["States"])
    return n


def machine(target):
    per_block = count_states(block(0, None))
    blocks = max(1, round(target / per_block))
    states = {}
    for i in range(blocks):
        states.update(block(i, "b%d_T1" % (i + 1) if i + 1 < blocks else None))
    return {"StartAt": "b0_T1", "States": states}, count_states(states)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--unumc", default="build/bin/unumc")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=None,
                        help="where to write (default: the temp directory)")
    args = parser.parse_args()
    if not os.access(args.unumc, os.X_OK):
        sys.exit("unumc not found at %s (build it first: utils/build.sh)" % args.unumc)

    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir) as work:
        for size in [int(s) for s in args.sizes.split(",")]:
            asl, states = machine(size)
            path = os.path.join(work, "sm%d.asl.json" % size)
            with open(path, "w") as f:
                json.dump(asl, f)
            out = os.path.join(work, "out")

            def timed(fn):
                best = None
                for _ in range(args.runs):
                    shutil.rmtree(out, ignore_errors=True)
                    start = time.perf_counter()
                    fn()
                    elapsed = time.perf_counter() - start
                    best = elapsed if best is None else min(best, elapsed)
                return best

            def run(target):
                proc = subprocess.run([args.unumc, path, "-o", target],
                                      stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
                if proc.returncode != 0:
                    sys.exit("unumc failed on %d states:\n%s" % (states, proc.stderr))

            compile_only = timed(lambda: run("-"))
            to_dir = timed(lambda: run(out))
            functions = sorted(os.listdir(out))

            def floor():
                os.mkdir(out)
                for name in functions:
                    os.mkdir(os.path.join(out, name))
                    with open(os.path.join(out, name, "unum_config.json"), "w") as f:
                        f.write("{}\n")
            fs_floor = timed(floor)
            rows.append((states, len(functions), compile_only, to_dir, fs_floor))

    print("%9s %9s %11s %11s %11s %9s %10s" % (
        "states", "functions", "compile (s)", "to dir (s)", "fs floor (s)",
        "us/state", "growth"))
    for i, (states, functions, c, d, fl) in enumerate(rows):
        growth = ""
        if i:
            growth = "%.1fx/%.0fx" % (c / rows[i - 1][2], states / rows[i - 1][0])
        print("%9d %9d %11.3f %11.3f %11.3f %9.1f %10s" % (
            states, functions, c, d, fl, 1e6 * c / states, growth))
    print("us/state and growth are for the compile column; 'to dir' minus "
          "'fs floor' is the compiler's own share of writing the directory.")


if __name__ == "__main__":
    main()
