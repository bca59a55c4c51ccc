#!/usr/bin/env python3
"""Compiles every conformance state machine with unumc.

compile/<case>: the output must match expected/ by the rule of the
conformance README: the same function names, and each config equal as a JSON
value after dropping "Remove" and "Debug" on both sides (array order
significant, a Next object differs from a one-element list).
frontend-only/<case>: must compile; where the original compiler produced
expected/, the script also reports whether the output matches it (the cases
where Unum deliberately differs, e.g. Catch support, are listed by name).
Prints a summary with the counts.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def load(directory):
    configs = {}
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(directory, entry, "unum_config.json")
        if os.path.isfile(path):
            with open(path) as f:
                value = json.load(f)
            value.pop("Remove", None)
            value.pop("Debug", None)
            configs[entry] = value
    return configs


def compile_case(unumc, case_dir, out):
    cmd = [unumc, os.path.join(case_dir, "statemachine.asl.json"), "-o", out]
    globals_file = os.path.join(case_dir, "globals.json")
    if os.path.isfile(globals_file):
        cmd += ["--globals", globals_file]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc


def diff(expected, got):
    lines = []
    for name in sorted(set(expected) | set(got)):
        if name not in got:
            lines.append("  missing function %s" % name)
        elif name not in expected:
            lines.append("  extra function %s: %s" % (name, json.dumps(got[name], sort_keys=True)))
        elif expected[name] != got[name]:
            lines.append("  %s:\n    expected %s\n    got      %s" % (
                name, json.dumps(expected[name], sort_keys=True),
                json.dumps(got[name], sort_keys=True)))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--unumc", required=True)
    parser.add_argument("--conformance", required=True)
    args = parser.parse_args()
    root = args.conformance
    failures = 0

    compile_cases = sorted(os.listdir(os.path.join(root, "compile")))
    for case in compile_cases:
        case_dir = os.path.join(root, "compile", case)
        with tempfile.TemporaryDirectory() as work:
            out = os.path.join(work, "out")
            proc = compile_case(args.unumc, case_dir, out)
            if proc.returncode != 0:
                failures += 1
                print("FAIL compile/%s: unumc exited %d\n%s" % (case, proc.returncode, proc.stderr))
                continue
            d = diff(load(os.path.join(case_dir, "expected")), load(out))
            if d:
                failures += 1
                print("FAIL compile/%s differs from expected/:\n%s" % (case, d))
            else:
                print("match compile/%s" % case)

    compile_failures = failures
    frontend = sorted(os.listdir(os.path.join(root, "frontend-only")))
    matched = differ = 0
    for case in frontend:
        case_dir = os.path.join(root, "frontend-only", case)
        with tempfile.TemporaryDirectory() as work:
            out = os.path.join(work, "out")
            proc = compile_case(args.unumc, case_dir, out)
            if proc.returncode != 0:
                failures += 1
                print("FAIL frontend-only/%s: unumc exited %d\n%s" % (case, proc.returncode, proc.stderr))
                continue
            expected_dir = os.path.join(case_dir, "expected")
            if not os.path.isdir(expected_dir):
                print("compiled frontend-only/%s (the original compiler failed)" % case)
                continue
            d = diff(load(expected_dir), load(out))
            if d:
                differ += 1
                print("compiled frontend-only/%s, differs from the original compiler:\n%s" % (case, d))
            else:
                matched += 1
                print("compiled frontend-only/%s, same as the original compiler" % case)

    print("SUMMARY: compile %d/%d match expected; frontend-only %d/%d compile "
          "(%d same as the original compiler, %d differ); %d failures"
          % (len(compile_cases) - compile_failures, len(compile_cases),
             len(frontend), len(frontend), matched, differ, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
