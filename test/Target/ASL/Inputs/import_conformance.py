#!/usr/bin/env python3
"""Imports every statemachine.asl.json of the conformance data with --from-asl.

For each case under compile/, frontend-only/ and handwritten/ that has a
statemachine.asl.json, runs `unum-translate --from-asl` (with --asl-globals
globals.json when the case has one) and requires exit code 0, an
sfn.state_machine on stdout and no diagnostics. Prints one line per case and a
summary with the counts.
"""
import argparse
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--unum-translate", required=True)
    parser.add_argument("--conformance", required=True)
    args = parser.parse_args()

    imported = failures = with_globals = 0
    for kind in ("compile", "frontend-only", "handwritten"):
        root = os.path.join(args.conformance, kind)
        for case in sorted(os.listdir(root)):
            asl = os.path.join(root, case, "statemachine.asl.json")
            if not os.path.isfile(asl):
                continue
            cmd = [args.unum_translate, "--from-asl", asl]
            globals_json = os.path.join(root, case, "globals.json")
            if os.path.isfile(globals_json):
                cmd += ["--asl-globals", globals_json]
                with_globals += 1
            proc = subprocess.run(cmd, capture_output=True, text=True)
            name = "%s/%s" % (kind, case)
            if (proc.returncode != 0 or "sfn.state_machine" not in proc.stdout
                    or proc.stderr.strip()):
                failures += 1
                print("FAIL (%d): %s\n%s" % (proc.returncode, name, proc.stderr))
                continue
            imported += 1
            print("imported: %s" % name)
    print("SUMMARY: %d state machines imported (%d with globals), %d failures"
          % (imported, with_globals, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
