#!/usr/bin/env python3
"""Compiles one probe per row of the ASL support table in docs/Tools/unumc.md
and checks that unumc behaves as the row says.

A row is `| Scope | Field | Probe | Behaviour |`. Scope is a state type
(Task, Pass, ...), `Choice rule` or `State machine`; Probe is JSON in
backticks: a state (placed as state "S" of a machine, with a Succeed state
"Done" when the probe names it) or, for `State machine`, the whole
definition. Behaviour is `supported` (compiles without a warning),
`accepted; warns: <text>` (compiles, but is not honoured, and says so) or
`refused: <text>`, the text being part of what unumc prints.
"""
import json
import os
import re
import subprocess
import sys

BEGIN, END = "<!-- support-table begin -->", "<!-- support-table end -->"


def rows(doc):
    text = open(doc, encoding="utf-8").read()
    body = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[2].startswith("`"):
            continue
        yield cells


def unquote(cell):
    # Markdown code spans; a literal "|" inside a table cell is written "\|".
    return cell.strip("`").replace("\\|", "|")


def main():
    doc, workdir, unumc = sys.argv[1], sys.argv[2], sys.argv[3]
    failures, count = [], 0
    for scope, field, probe, behaviour in rows(doc):
        count += 1
        state = json.loads(unquote(probe))
        if scope == "State machine":
            machine = state
        else:
            machine = {"StartAt": "S", "States": {"S": state}}
            if '"Done"' in unquote(probe):
                machine["States"]["Done"] = {"Type": "Succeed"}
        path = os.path.join(workdir, "probe%d.asl.json" % count)
        with open(path, "w") as f:
            json.dump(machine, f, indent=1)
        run = subprocess.run([unumc, path, "-o", "-"], capture_output=True,
                             text=True)
        behaviour = unquote(behaviour.replace("`", ""))
        where = "%s %s (%s)" % (scope, unquote(field), path)
        if behaviour.startswith("refused: "):
            want = behaviour[len("refused: "):]
            if run.returncode == 0:
                failures.append("%s: compiled, the table says refused" % where)
            elif want not in run.stderr:
                failures.append("%s: refused with\n%s\nnot '%s'" %
                                (where, run.stderr, want))
        elif behaviour == "supported" or behaviour.startswith("accepted"):
            if run.returncode != 0:
                failures.append("%s: refused, the table says it compiles:\n%s"
                                % (where, run.stderr))
            m = re.match(r"accepted; warns: (.*)", behaviour)
            if m and m.group(1) not in run.stderr:
                failures.append("%s: no warning '%s' in\n%s" %
                                (where, m.group(1), run.stderr))
            if not m and "warning" in run.stderr:
                failures.append("%s: an undocumented warning:\n%s" %
                                (where, run.stderr))
        else:
            failures.append("%s: unknown behaviour '%s'" % (where, behaviour))
    for f in failures:
        print("MISMATCH:", f)
    if failures or count == 0:
        sys.exit(1)
    print("support table: %d rows, all as documented" % count)


main()
