#!/usr/bin/env python3
"""Round-trips every conformance config set through unum-translate.

For each app under compile/*/expected/ and handwritten/*/ (see the README of
the conformance data):
  json -> mlir -> json            must equal the input,
  json -> mlir -> yaml -> mlir -> json  must equal the input,
and the MLIR imported from JSON and from the YAML export must be identical.
Equality is the README's rule: JSON values with key order ignored, array
order significant, the meaningless "Remove" key dropped (Debug is kept: the
dialect preserves it, so the check is stricter than the rule).
Every legacy/ app must be rejected with exit code 1 and a diagnostic that
names an obsolete field. Prints a summary line with the counts.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def run(cmd, expect_ok=True):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if expect_ok and proc.returncode != 0:
        sys.exit("FAILED (%d): %s\n%s" % (proc.returncode, " ".join(cmd), proc.stderr))
    return proc


def load_app(directory, name="unum_config.json"):
    configs = {}
    for entry in sorted(os.listdir(directory)):
        path = os.path.join(directory, entry, name)
        if os.path.isfile(path):
            with open(path) as f:
                value = json.load(f)
            value.pop("Remove", None)
            configs[entry] = value
    return configs


def strip_locations(mlir):
    return re.sub(r"loc\([^)]*\)", "", mlir)


def check_app(tool, app_dir, work):
    expected = load_app(app_dir)
    mlir_path = os.path.join(work, "app.mlir")
    run([tool, "--from-json", app_dir, "--app-name", "app", "-o", mlir_path])

    out_json = os.path.join(work, "json")
    run([tool, "--to-json", mlir_path, "--output-dir", out_json])
    got = load_app(out_json)
    if got != expected:
        sys.exit("json -> mlir -> json differs for %s:\nexpected %s\ngot      %s"
                 % (app_dir, json.dumps(expected, sort_keys=True),
                    json.dumps(got, sort_keys=True)))

    out_yaml = os.path.join(work, "yaml")
    run([tool, "--to-yaml", mlir_path, "--output-dir", out_yaml])
    yaml_mlir = os.path.join(work, "from-yaml.mlir")
    run([tool, "--from-yaml", out_yaml, "--app-name", "app", "-o", yaml_mlir])
    out_json2 = os.path.join(work, "json2")
    run([tool, "--to-json", yaml_mlir, "--output-dir", out_json2])
    got = load_app(out_json2)
    if got != expected:
        sys.exit("json -> yaml -> json differs for %s:\nexpected %s\ngot      %s"
                 % (app_dir, json.dumps(expected, sort_keys=True),
                    json.dumps(got, sort_keys=True)))
    with open(mlir_path) as a, open(yaml_mlir) as b:
        if strip_locations(a.read()) != strip_locations(b.read()):
            sys.exit("MLIR imported from JSON and from YAML differ for %s" % app_dir)
    return len(expected)


LEGACY_FIELDS = ["NextInput", "Fan-out Modifiers", "WaitFor", "type", "next",
                 "invokeeReturnStore", "Name"]


def check_legacy(tool, app_dir):
    proc = run([tool, "--from-json", app_dir], expect_ok=False)
    if proc.returncode != 1:
        sys.exit("legacy app %s: expected exit code 1, got %d\n%s"
                 % (app_dir, proc.returncode, proc.stderr))
    if proc.stdout.strip():
        sys.exit("legacy app %s: output was written despite errors" % app_dir)
    named = [f for f in LEGACY_FIELDS if "'%s'" % f in proc.stderr]
    if not named or not re.search(r"unum_config\.json:\d+:\d+: error:", proc.stderr):
        sys.exit("legacy app %s: diagnostic names no obsolete field or has no "
                 "location:\n%s" % (app_dir, proc.stderr))
    return named


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--unum-translate", required=True)
    parser.add_argument("--conformance", required=True)
    args = parser.parse_args()
    root = args.conformance

    apps = []
    for case in sorted(os.listdir(os.path.join(root, "compile"))):
        apps.append(os.path.join(root, "compile", case, "expected"))
    for case in sorted(os.listdir(os.path.join(root, "handwritten"))):
        apps.append(os.path.join(root, "handwritten", case))

    configs = 0
    for app in apps:
        with tempfile.TemporaryDirectory() as work:
            configs += check_app(args.unum_translate, app, work)
            print("round-trip ok: %s" % os.path.relpath(app, root))

    legacy = sorted(os.listdir(os.path.join(root, "legacy")))
    for case in legacy:
        named = check_legacy(args.unum_translate, os.path.join(root, "legacy", case))
        print("legacy rejected: %s (names %s)" % (case, ", ".join(named)))

    print("SUMMARY: %d apps (%d configs) round-tripped json->mlir->json and "
          "json->yaml->json; %d legacy apps rejected" % (len(apps), configs, len(legacy)))


if __name__ == "__main__":
    main()
