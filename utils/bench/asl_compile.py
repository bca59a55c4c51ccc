#!/usr/bin/env python3
"""Compile generated Step Functions state machines end to end with unumc.

Each machine is a chain of blocks; a block holds a 3-task chain, a Choice
with two branches that rejoin, a Parallel with two 2-task branches, a Map over
a 2-task iterator that holds a nested Parallel, and an identity Pass: 20
states. Machines of 1k, 10k and 100k states are compiled to a config
directory (import, checks, lowering, verification, export of one
unum_config.json per function); the table gives the best of several runs,
the time per state, and the growth from one size to the next (10x the states
should take about 10x the time). Target: 10k states in under 1 s.

usage: utils/bench/asl_compile.py [--unumc build/bin/unumc] [--sizes 1000,10000,100000]
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
    args = parser.parse_args()
    if not os.access(args.unumc, os.X_OK):
        sys.exit("unumc not found at %s (build it first: utils/build.sh)" % args.unumc)

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for size in [int(s) for s in args.sizes.split(",")]:
            asl, states = machine(size)
            path = os.path.join(work, "sm%d.asl.json" % size)
            with open(path, "w") as f:
                json.dump(asl, f)
            best = None
            for _ in range(args.runs):
                out = os.path.join(work, "out")
                shutil.rmtree(out, ignore_errors=True)
                start = time.perf_counter()
                proc = subprocess.run([args.unumc, path, "-o", out],
                                      capture_output=True, text=True)
                elapsed = time.perf_counter() - start
                if proc.returncode != 0:
                    sys.exit("unumc failed on %d states:\n%s" % (states, proc.stderr))
                best = elapsed if best is None else min(best, elapsed)
            functions = len(os.listdir(out))
            rows.append((states, functions, best))

    print("%10s %10s %10s %12s %8s" % ("states", "functions", "time (s)",
                                        "us/state", "growth"))
    for i, (states, functions, t) in enumerate(rows):
        growth = ""
        if i:
            prev_states, _, prev_t = rows[i - 1]
            growth = "%.2fx/%.0fx" % (t / prev_t, states / prev_states)
        print("%10d %10d %10.3f %12.1f %8s" % (states, functions, t,
                                             1e6 * t / states, growth))


if __name__ == "__main__":
    main()
