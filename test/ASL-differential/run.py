#!/usr/bin/python3
"""The ASL differential suite: every case runs on unum (unumc + unum-run) and
on an independent interpreter (npm aws-local-stepfunctions, driven by
utils/asl-oracle/oracle.mjs), with the same subprocess handlers, and the
results must agree (outputs as JSON values, failures by error name).

See README.md beside this file: how to run one case, how to add one.
Exit status: 0 all cases as marked, 1 a case disagrees (or an xfail agrees),
2 usage/setup error, 77 the oracle is not installed (lit: UNSUPPORTED).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_ROOT = os.path.dirname(os.path.dirname(HERE))
ORACLE_DIR = os.path.join(SRC_ROOT, "utils", "asl-oracle")
HANDLERS = os.path.join(HERE, "handlers")
PYTHON = "/usr/bin/python3"
RUN_TIMEOUT = 30     # seconds for one unumc or unum-run
ORACLE_TIMEOUT = 30  # seconds for one oracle execution
# unum-run's --time-scale (contract 2) when it has it: waits, retry intervals
# and timeouts run 5 times faster (the oracle does not sleep at all).
TIME_SCALE = "0.2"


# ---------------------------------------------------------------------------
# Loading cases
# ---------------------------------------------------------------------------

def load_cases(paths):
    """Returns every case of the case files under `paths` (files or dirs).
    A file holds {"cases": [case, ...]} (cases/*.json) or one case
    (realworld/*/case.json, whose paths are relative to its folder)."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "cases", "*.json")))
            files += sorted(glob.glob(os.path.join(p, "realworld", "*", "case.json")))
            files += sorted(glob.glob(os.path.join(p, "*", "case.json")))
        else:
            files.append(p)
    cases, seen = [], {}
    for f in dict.fromkeys(files):
        with open(f) as fh:
            data = json.load(fh)
        entries = data["cases"] if "cases" in data else [data]
        for c in entries:
            c["_file"] = f
            c["_dir"] = os.path.dirname(os.path.abspath(f))
            name = c.get("name")
            if not name:
                raise SystemExit("%s: a case has no name" % f)
            if name in seen:
                raise SystemExit("%s: case %s is also in %s" % (f, name, seen[name]))
            seen[name] = f
            if "asl" not in c and "asl_file" not in c:
                raise SystemExit("%s: case %s has no asl" % (f, name))
            if not c.get("inputs") and not c.get("refused"):
                raise SystemExit("%s: case %s has no inputs" % (f, name))
            cases.append(c)
    return cases


def case_asl(c):
    if "asl" in c:
        return c["asl"]
    with open(os.path.join(c["_dir"], c["asl_file"])) as fh:
        return json.load(fh)


SUBST_RE = re.compile(r"\$\{([A-Za-z0-9_.:-]+)\}")


def substitute(value, subs):
    """The definition with ${Name} placeholders replaced (SAM's
    DefinitionSubstitutions), as the oracle and the handler map see it."""
    if not subs:
        return value
    if isinstance(value, str):
        return SUBST_RE.sub(lambda m: str(subs.get(m.group(1), m.group(0))), value)
    if isinstance(value, list):
        return [substitute(v, subs) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, subs) for k, v in value.items()}
    return value


def case_functions(c):
    """The case's --functions map (resource -> function name), or None."""
    f = c.get("functions")
    if f is None:
        return None
    if isinstance(f, str):
        with open(os.path.join(c["_dir"], f)) as fh:
            return json.load(fh)
    return f


def task_states(machine, out=None):
    """(state name, state) of every Task, iterators and branches included."""
    out = [] if out is None else out
    for name, st in machine.get("States", {}).items():
        t = st.get("Type")
        if t == "Task":
            out.append((name, st))
        elif t == "Map":
            body = st.get("ItemProcessor") or st.get("Iterator")
            if body:
                task_states(body, out)
        elif t == "Parallel":
            for b in st.get("Branches", []):
                task_states(b, out)
    return out


def wait_and_retry_states(machine, waits=None, retries=None):
    waits = [] if waits is None else waits
    retries = [] if retries is None else retries
    for name, st in machine.get("States", {}).items():
        if st.get("Type") == "Wait":
            waits.append(name)
        if "Retry" in st:
            retries.append(name)
        body = st.get("ItemProcessor") or st.get("Iterator")
        if body:
            wait_and_retry_states(body, waits, retries)
        for b in st.get("Branches", []):
            wait_and_retry_states(b, waits, retries)
    return waits, retries


LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"


def function_of(resource, state, functions):
    """The function name unumc gives a Task's resource (docs/Tools/unumc.md):
    the --functions entry, else the ARN's last ':' segment; for
    lambda:invoke the FunctionName parameter's function."""
    if functions and resource in functions:
        return functions[resource]
    if resource.startswith(LAMBDA_INVOKE):
        params = state.get("Parameters") or {}
        fn = params.get("FunctionName", "")
        if functions and fn in functions:
            return functions[fn]
        parts = fn.split(":")
        # arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]
        if len(parts) >= 7 and parts[5] == "function":
            return parts[6]
        return parts[-1]
    return resource.split(":")[-1]


def stateful(argv):
    """Whether a handler keeps state across calls (its answer depends on how
    often it ran, so a redelivery changes it)."""
    with open(argv[-1]) as fh:
        text = fh.read()
    return "ASL_DIFF_STATE_DIR" in text or "_lambda.count(" in text or "state_file(" in text


def handler_script(c, function):
    """The handler script of `function`: the case's "handlers" entry (a path
    relative to the case file's folder, or a name in handlers/), else
    <function>.py next to the case file or in handlers/."""
    h = (c.get("handlers") or {}).get(function, function)
    for cand in (os.path.join(c["_dir"], h), os.path.join(c["_dir"], h + ".py"),
                 os.path.join(HANDLERS, h), os.path.join(HANDLERS, h + ".py")):
        if os.path.isfile(cand):
            return os.path.abspath(cand)
    raise SystemExit("%s: case %s: no handler %r for function %s"
                     % (c["_file"], c["name"], h, function))


# ---------------------------------------------------------------------------
# The two engines
# ---------------------------------------------------------------------------

class Oracle:
    """One long-lived node process (oracle.mjs), one request at a time."""

    def __init__(self):
        self.proc = subprocess.Popen(
            ["node", os.path.join(ORACLE_DIR, "oracle.mjs")], cwd=ORACLE_DIR,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        # Answers are read from the descriptor (select + os.read), never
        # through the text wrapper's buffer.

    def run(self, request, timeout=ORACLE_TIMEOUT):
        """The oracle's answer; an execution that does not end within
        `timeout` seconds (a loop that never exits) costs the process: it is
        killed and the next request starts a new one."""
        if self.proc.poll() is not None:
            self.__init__()
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        fd = self.proc.stdout.fileno()
        line = b""
        deadline = time.time() + timeout
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.time()))
            if not ready:
                self.proc.kill()
                self.proc.wait()
                return {"status": "crashed", "message": "the oracle did not answer in %ds" % timeout}
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return {"status": "crashed", "message": "the oracle process died"}
            line += chunk
        return json.loads(line)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


ERROR_RE = re.compile(r"unum-run: error: (?:function '[^']*' \(instance [^)]*\): )?(.*)")


def unum_result(proc):
    """Normalizes an unum-run run to {"status", "output"|"error"|"message"}."""
    if proc.returncode == 0:
        try:
            outs = json.loads(proc.stdout)
        except ValueError:
            return {"status": "crashed", "message": "stdout is not JSON: " + proc.stdout[-300:]}
        if isinstance(outs, dict) and len(outs) == 1:
            return {"status": "succeeded", "output": next(iter(outs.values()))}
        return {"status": "crashed",
                "message": "%d terminal outputs (one expected): %s"
                % (len(outs), json.dumps(outs)[:300])}
    lines = [l for l in proc.stderr.splitlines() if l.startswith("unum-run: error: ")]
    if proc.returncode == 1 and lines:
        m = ERROR_RE.match(lines[0])
        rest = m.group(1)
        # The error's name (States.TaskFailed, CustomError) is the first
        # field, or the second after a lower-case category ("input: ").
        parts = rest.split(": ")
        named = {"status": "failed", "raw": rest}
        for k, part in enumerate(parts[:2]):
            if len(parts) > k + 1 and re.fullmatch(r"[A-Z][A-Za-z0-9_.\-]*", part):
                return dict(named, error=part, cause=": ".join(parts[k + 1:]))
            if not re.fullmatch(r"[a-z][a-z ]*", part):
                break
        return dict(named, error="<unnamed>", cause=rest)
    return {"status": "crashed",
            "message": "exit %s: %s" % (proc.returncode, proc.stderr.strip()[-400:])}


def same(a, b):
    """Agreement of two normalized results: JSON equality of outputs, equal
    error names for failures."""
    if a.get("status") != b.get("status"):
        return False
    if a["status"] == "succeeded":
        return a["output"] == b["output"]
    if a["status"] == "failed":
        if a["error"] == b["error"]:
            return True
        # unum-run prints "NAME: CAUSE"; a name with spaces or lower-case
        # words is only found by looking for the other side's name.
        for x, y in ((a, b), (b, a)):
            raw = x.get("raw")
            if raw is not None and (raw == y["error"] or raw.startswith(y["error"] + ": ")):
                return True
        return False
    return False


def show(r):
    if r.get("status") == "succeeded":
        return "output " + json.dumps(r["output"], sort_keys=True)
    if r.get("status") == "failed":
        return "failed %s (cause: %s)" % (r["error"], str(r.get("cause", ""))[:200])
    return "%s: %s" % (r.get("status"), str(r.get("message", ""))[:600])


class Runner:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.local = threading.local()
        self.oracles = []
        self.lock = threading.Lock()

    def oracle(self):
        if not hasattr(self.local, "oracle"):
            self.local.oracle = Oracle()
            with self.lock:
                self.oracles.append(self.local.oracle)
        return self.local.oracle

    def run_case(self, c):
        """Returns (verdict, report lines). Verdicts: PASS, FAIL, XFAIL, XPASS."""
        t0 = time.time()
        if c.get("refused") and self.args.oracle_only:
            return "PASS", ["  (a definition unumc must refuse: nothing to run)"], 0.0
        tmp = tempfile.mkdtemp(prefix=re.sub(r"\W", "_", c["name"]) + ".", dir=self.workdir)
        asl = case_asl(c)
        functions = case_functions(c)
        asl_path = os.path.join(tmp, "sm.asl.json")
        with open(asl_path, "w") as fh:
            json.dump(asl, fh, indent=1)
        app = os.path.join(tmp, "app")
        cmd = [self.args.unumc, asl_path, "-o", app]
        if functions is not None:
            fpath = os.path.join(tmp, "functions.json")
            with open(fpath, "w") as fh:
                json.dump(functions, fh)
            cmd += ["--functions", fpath]
        if c.get("substitutions"):
            spath = os.path.join(tmp, "substitutions.json")
            with open(spath, "w") as fh:
                json.dump(c["substitutions"], fh)
            cmd += ["--substitutions", spath]
        compile_error = None
        comp = None if self.args.oracle_only else subprocess.run(
            cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        if c.get("refused") and comp is not None:
            # A definition unum must refuse at compile time (a feature it
            # cannot run), with a located message naming what and why.
            ok = comp.returncode != 0 and re.search(c["refused"], comp.stderr) is not None \
                and re.search(r":\d+:\d+: error: ", comp.stderr) is not None
            lines = [] if ok and not self.args.verbose else [
                "  unumc must refuse it with a located error matching %r; exit %d, stderr:\n%s"
                % (c["refused"], comp.returncode, comp.stderr.strip()[-600:])]
            if not self.args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
            agree = ok
            if c.get("xfail"):
                return ("XPASS" if agree else "XFAIL"), lines, time.time() - t0
            return ("PASS" if agree else "FAIL"), lines, time.time() - t0
        if comp is not None and comp.returncode != 0:
            compile_error = {"status": "refused by unumc",
                             "message": comp.stderr.strip()[-800:]}

        # Handlers: the same script for both engines.
        resolved = substitute(asl, c.get("substitutions"))
        oracle_handlers = {}
        for state_name, st in task_states(resolved):
            fn = function_of(st.get("Resource", ""), st, functions)
            script = handler_script(c, fn)
            if st.get("Resource", "").startswith(LAMBDA_INVOKE):
                oracle_handlers[state_name] = {"argv": [PYTHON, script], "lambdaInvoke": True}
            else:
                oracle_handlers[state_name] = [PYTHON, script]
            if compile_error is None and os.path.isdir(os.path.join(app, fn)):
                dst = os.path.join(app, fn, "handler")
                if not os.path.lexists(dst):
                    os.symlink(script, dst)
        waits, retries = wait_and_retry_states(resolved)
        if self.args.crash_rate and c.get("xfail"):
            # Known wrong without crashes; fault injection adds nothing.
            if not self.args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
            return "SKIP", [], time.time() - t0
        if self.args.crash_rate and any(stateful(h if isinstance(h, list) else h["argv"])
                                        for h in oracle_handlers.values()):
            # A redelivered instance runs its handler again: a handler that
            # counts its calls would answer differently (by design).
            if not self.args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
            return "SKIP", [], time.time() - t0

        stores = ["memory"]
        if c.get("sqlite") or self.args.sqlite_all:
            stores.append("sqlite")
        expected = c.get("expected")
        lines, agree_all, defect_seen = [], True, False
        if expected is not None and not c.get("oracle_defect"):
            raise SystemExit("%s: case %s has \"expected\" without \"oracle_defect\""
                             % (c["_file"], c["name"]))
        for i, inp in enumerate(c["inputs"]):
            in_path = os.path.join(tmp, "input%d.json" % i)
            with open(in_path, "w") as fh:
                json.dump(inp, fh)
            odir = os.path.join(tmp, "oracle-state%d" % i)
            os.mkdir(odir)
            oracle = self.oracle().run({
                "definition": resolved, "input": inp, "handlers": oracle_handlers,
                "env": {"ASL_DIFF_STATE_DIR": odir},
                "waitStates": waits, "retryStates": retries,
                "validate": self.args.validate})
            want = oracle
            if expected is not None and i < len(expected) and expected[i] is not None:
                # The spec's answer where the oracle is known to be wrong.
                want = dict(expected[i])
                want.setdefault("status", "failed" if "error" in want else "succeeded")
                defect_seen |= not same(oracle, want)
            if self.args.oracle_only:
                # Only the oracle: a case fails when the oracle rejects the
                # definition or breaks, where no defect is recorded.
                lines.append("  input %d %s: %s" % (i, json.dumps(inp)[:200], show(oracle)))
                agree_all &= want is not oracle or oracle["status"] in ("succeeded", "failed")
                continue
            for store in stores:
                if compile_error is not None:
                    got = compile_error
                else:
                    sdir = os.path.join(tmp, "unum-state%d-%s" % (i, store))
                    os.mkdir(sdir)
                    st_arg = "memory" if store == "memory" else "sqlite:" + os.path.join(sdir, "db")
                    env = dict(os.environ, ASL_DIFF_STATE_DIR=sdir)
                    rcmd = [self.args.unum_run, app, "--input", in_path, "--store", st_arg]
                    if self.args.time_scale:
                        rcmd += ["--time-scale", self.args.time_scale]
                    if self.args.crash_rate:
                        rcmd += ["--crash-rate", self.args.crash_rate, "--seed", str(i + 1)]
                    try:
                        proc = subprocess.run(rcmd, capture_output=True, text=True, env=env,
                                              timeout=RUN_TIMEOUT)
                        got = unum_result(proc)
                    except subprocess.TimeoutExpired:
                        got = {"status": "crashed", "message": "unum-run timed out"}
                ok = same(got, want)
                agree_all &= ok
                if not ok or self.args.verbose:
                    lines.append("  input %d %s (%s): %s" % (i, json.dumps(inp)[:200], store,
                                                            "agree" if ok else "DISAGREE"))
                    lines.append("    unum:   " + show(got))
                    lines.append("    %s " % ("spec:  " if want is not oracle else "oracle:")
                                 + show(want))
                    if want is not oracle:
                        lines.append("    oracle: " + show(oracle) + " (recorded defect)")
        if c.get("oracle_defect") and not defect_seen:
            # The record must stay true: the oracle still answers differently.
            lines.append("  the recorded oracle defect is gone (the oracle now gives the "
                         "spec's answer on every input): drop \"expected\"/\"oracle_defect\"")
            agree_all = False
        if not self.args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        dt = time.time() - t0
        if c.get("xfail") and not self.args.oracle_only:
            verdict = "XPASS" if agree_all else "XFAIL"
            if verdict == "XPASS":
                lines.append("  marked xfail (%s) but every input agrees: remove the mark"
                             % c["xfail"])
        else:
            verdict = "PASS" if agree_all else "FAIL"
        return verdict, lines, dt

    def close(self):
        for o in self.oracles:
            o.close()


def drop_xfails(cases, names):
    """Removes the "xfail" mark of the cases `names` from their files (cases
    that agree now); returns the names it removed."""
    dropped = set()
    for f in sorted({c["_file"] for c in cases if c["name"] in names}):
        with open(f) as fh:
            data = json.load(fh)
        for c in data["cases"] if "cases" in data else [data]:
            if c.get("name") in names and c.pop("xfail", None) is not None:
                dropped.add(c["name"])
        with open(f, "w") as fh:
            fh.write(json.dumps(data, indent=1) + "\n")
    return dropped


def find_tool(name, explicit):
    if explicit:
        return explicit
    for d in (os.path.join(SRC_ROOT, "build", "bin"),):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    p = shutil.which(name)
    if not p:
        raise SystemExit("run.py: cannot find %s (pass --%s)" % (name, name))
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", default=[HERE],
                    help="case files or folders (default: this folder)")
    ap.add_argument("-k", "--filter", help="run only cases whose name matches this regex")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel cases (default 2)")
    ap.add_argument("-v", "--verbose", action="store_true", help="show every input's results")
    ap.add_argument("--keep", action="store_true", help="keep the work folders (printed)")
    ap.add_argument("--sqlite-all", action="store_true", help="also run every case on sqlite")
    ap.add_argument("--time-scale", help="unum-run's --time-scale (default %s when unum-run has "
                    "the option)" % TIME_SCALE)
    ap.add_argument("--crash-rate", help="run unum-run with --crash-rate P (fault injection; "
                    "xfail cases and those whose handlers keep state across calls are "
                    "skipped)")
    ap.add_argument("--drop-agreeing-xfails", action="store_true",
                    help="remove the xfail mark of every marked case that agrees now "
                    "(edits the case files; for the commit that lands a fix)")
    ap.add_argument("--unumc")
    ap.add_argument("--unum-run", dest="unum_run")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--validate", action="store_true",
                    help="let the oracle validate every definition (slow: use when adding cases)")
    ap.add_argument("--oracle-only", action="store_true",
                    help="only show what the oracle answers (for writing cases)")
    args = ap.parse_args()

    cases = load_cases(args.paths)
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, c["name"])]
    if args.list:
        for c in cases:
            print(c["name"])
        return 0
    if not shutil.which("node"):
        print("UNSUPPORTED: node is not installed (utils/bootstrap.sh installs it)")
        return 77
    if not os.path.isdir(os.path.join(ORACLE_DIR, "node_modules", "aws-local-stepfunctions")):
        print("UNSUPPORTED: the oracle is not installed in %s/node_modules "
              "(run utils/bootstrap.sh, or npm ci there)" % ORACLE_DIR)
        return 77
    if not args.oracle_only:
        args.unumc = find_tool("unumc", args.unumc)
        args.unum_run = find_tool("unum-run", args.unum_run)
        if args.time_scale is None:
            helptext = subprocess.run([args.unum_run, "--help"], capture_output=True, text=True)
            if "--time-scale" in helptext.stdout + helptext.stderr:
                args.time_scale = TIME_SCALE

    t0 = time.time()
    workdir = tempfile.mkdtemp(prefix="asl-diff.")
    runner = Runner(args, workdir)
    counts = {"PASS": 0, "FAIL": 0, "XFAIL": 0, "XPASS": 0, "SKIP": 0}
    failed, xpassed = [], []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(args.jobs, 2))) as ex:
            futs = {ex.submit(runner.run_case, c): c for c in cases}
            for fut in concurrent.futures.as_completed(futs):
                c = futs[fut]
                try:
                    verdict, lines, dt = fut.result()
                except Exception as e:  # a runner bug must not hide the other cases
                    verdict, lines, dt = "FAIL", ["  runner error: %r" % e], 0.0
                counts[verdict] += 1
                print("%-5s %s (%.1fs)%s" % (verdict, c["name"], dt,
                                             "  [xfail: %s]" % c["xfail"] if c.get("xfail") else ""))
                for l in lines:
                    print(l)
                if verdict in ("FAIL", "XPASS"):
                    failed.append(c["name"])
                if verdict == "XPASS":
                    xpassed.append(c["name"])
                sys.stdout.flush()
    finally:
        runner.close()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print("work folders kept in " + workdir)
    if args.drop_agreeing_xfails:
        dropped = drop_xfails(cases, set(xpassed))
        print("dropped the xfail mark of %d case(s): %s" % (len(dropped), " ".join(sorted(dropped))))
        failed = [n for n in failed if n not in dropped]
    print("\n%d cases: %d agree, %d xfail (known, see KNOWN.md), %d disagree, "
          "%d unexpectedly agree%s; %.1fs"
          % (len(cases), counts["PASS"], counts["XFAIL"], counts["FAIL"], counts["XPASS"],
             ", %d skipped (xfail or stateful handlers, under --crash-rate)" % counts["SKIP"]
             if counts["SKIP"] else "", time.time() - t0))
    if failed:
        print("failing: " + " ".join(sorted(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
