#!/usr/bin/env python3
"""Runs unum-translate on every malformed file listed in an expectations file.

Each line of the expectations file is `<file> <line>:<col> <message part>`.
For every file the import must exit with code 1 (not crash, not succeed),
print nothing on stdout, and report `<file>:<line>:<col>: error: ...`
containing the message part. Files in the directory that the expectations
do not list are an error too, so nothing goes untested.
"""
import argparse
import os
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--unum-translate", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--expected", required=True)
    args = parser.parse_args()

    expectations = []
    with open(args.expected) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, position, message = line.split(" ", 2)
            expectations.append((name, position, message))

    listed = {name for name, _, _ in expectations}
    on_disk = {n for n in os.listdir(args.dir) if n.endswith((".json", ".yaml"))}
    if on_disk != listed:
        sys.exit("expectations and files differ: unlisted %s, missing %s"
                 % (sorted(on_disk - listed), sorted(listed - on_disk)))

    failures = 0
    for name, position, message in expectations:
        path = os.path.join(args.dir, name)
        flag = "--from-yaml" if name.endswith(".yaml") else "--from-json"
        proc = subprocess.run([args.unum_translate, flag, path],
                              capture_output=True, text=True)
        want = "%s:%s: error: " % (path, position)
        problems = []
        if proc.returncode != 1:
            problems.append("exit code %d, expected 1" % proc.returncode)
        if proc.stdout:
            problems.append("wrote output despite the error")
        lines = [l for l in proc.stderr.splitlines() if l.startswith(want)]
        if not any(message in l for l in lines):
            problems.append("no diagnostic '%s...%s'" % (want, message))
        if problems:
            failures += 1
            print("FAIL %s: %s\n%s" % (name, "; ".join(problems), proc.stderr))
        else:
            print("ok %s" % name)
    print("%d malformed inputs, %d failures" % (len(expectations), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
