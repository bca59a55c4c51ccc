"""The state machines of scale.test. `scale.py BOUND UNUMC` compiles the big
ones and fails when one takes more than BOUND seconds of CPU; `--small` and
`--listed` print the small ones."""
import json
import os
import resource
import subprocess
import sys

TASK = "arn:aws:lambda:us-east-1:123456789012:function:"


def task(fn, nxt=None):
    s = {"Type": "Task", "Resource": TASK + fn}
    s.update({"Next": nxt} if nxt else {"End": True})
    return s


def branch(i):
    """A Task, a Choice on its output and two Passes (one folds away)."""
    return {"StartAt": f"B{i}", "States": {
        f"B{i}": task("Work", f"C{i}"),
        f"C{i}": {"Type": "Choice", "Default": f"P{i}",
                  "Choices": [{"Variable": "$.n", "NumericGreaterThan": i,
                               "Next": f"Q{i}"}]},
        f"P{i}": {"Type": "Pass", "Next": f"Q{i}"},
        f"Q{i}": {"Type": "Pass", "Result": i, "End": True}}}


def wide(n):
    return {"StartAt": "P", "States": {"P": {
        "Type": "Parallel", "Branches": [branch(i) for i in range(n)],
        "End": True}}}


def chain(prefix, n, end_next=None):
    """n states: Tasks, with a Choice and a Pass every tenth."""
    states = {}
    for i in range(n):
        name, nxt = f"{prefix}{i}", f"{prefix}{i + 1}" if i + 1 < n else end_next
        if i % 10 == 3:
            states[name] = {"Type": "Choice", "Default": nxt,
                            "Choices": [{"Variable": "$.stop",
                                         "BooleanEquals": True,
                                         "Next": f"{prefix}Stop"}]}
        elif i % 10 == 7:
            states[name] = {"Type": "Pass", "Next": nxt} if nxt else {
                "Type": "Pass", "End": True}
        else:
            states[name] = task("Work", nxt)
    states[f"{prefix}Stop"] = {"Type": "Succeed"}
    return states


def long(n):
    inner = 5000
    states = chain("S", n - inner - 3, "M")
    states["M"] = {"Type": "Map", "End": True, "Iterator": {
        "StartAt": "I0", "States": chain("I", inner)}}
    return {"StartAt": "S0", "States": states}


def passes(n):
    states = {f"P{i}": {"Type": "Pass", "Next": f"P{i + 1}"}
              for i in range(n - 1)}
    states[f"P{n - 1}"] = task("Work")
    return {"StartAt": "P0", "States": states}


def count(machine):
    total = 0
    for state in machine["States"].values():
        total += 1
        for b in state.get("Branches", []):
            total += count(b)
        if "Iterator" in state:
            total += count(state["Iterator"])
    return total


def compile_timed(name, machine, what, bound):
    """Compiles `machine`, its configs to stdout (so the file system's
    speed does not count), and checks the CPU time."""
    with open(name + ".asl.json", "w") as f:
        json.dump(machine, f)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([UNUMC, name + ".asl.json", "-o", "-"], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    functions = out.count("\n{\n") + out.startswith("{\n")
    print(f"{name}: {what}, {functions} functions, {len(out) >> 10} KB, "
          f"{cpu:.2f} s CPU")
    if cpu > bound:
        sys.exit(f"{name}: {cpu:.2f} s CPU, more than the bound of {bound} s")


if sys.argv[1] == "--small":
    # 20 branches (more than the 16 that list each other): branch i
    # returns i, or fails when asked to.
    branches = [{"StartAt": f"B{i}", "States": {f"B{i}": {
        "Type": "Pass", "Result": i, "End": True}}} for i in range(20)]
    branches[7] = {"StartAt": "Check", "States": {
        "Check": {"Type": "Choice", "Default": "Seven", "Choices": [
            {"Variable": "$.fail", "BooleanEquals": True, "Next": "Boom"}]},
        "Seven": {"Type": "Pass", "Result": 7, "End": True},
        "Boom": {"Type": "Fail", "Error": "Branch.Failed", "Cause": "asked"}}}
    json.dump({"StartAt": "P", "States": {
        "P": {"Type": "Parallel", "Branches": branches, "End": True,
              "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Caught"}]},
        "Caught": {"Type": "Pass", "End": True}}}, sys.stdout)
elif sys.argv[1] == "--choices":
    # Choice states in a row fold into one condition, a level deeper each:
    # more than a condition can nest is refused at the Choice where the
    # limit is passed.
    n = int(sys.argv[2])
    states = {f"C{i}": {"Type": "Choice", "Default": f"C{i + 1}", "Choices": [
        {"Variable": "$.x", "NumericEquals": i, "Next": "Done"}]}
        for i in range(n)}
    states[f"C{n}"] = task("Work")
    states["Done"] = task("Done")
    json.dump({"StartAt": "Start", "States": dict(
        {"Start": task("Start", "C0")}, **states)}, sys.stdout, indent=1)
elif sys.argv[1] == "--listed":
    json.dump({"StartAt": "P", "States": {"P": {
        "Type": "Parallel", "End": True, "Branches": [
            {"StartAt": f"B{i}", "States": {f"B{i}": task(f"B{i}")}}
            for i in range(16)]}}}, sys.stdout)
else:
    bound, UNUMC = float(sys.argv[1]), sys.argv[2]
    compile_timed("wide", wide(5000), "5000 branches", bound)
    machine = long(100000)
    compile_timed("long", machine, f"{count(machine)} states", bound)
    compile_timed("passes", passes(16000), "16000 states", bound)
