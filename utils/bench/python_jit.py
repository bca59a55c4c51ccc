#!/usr/bin/env python3
"""Benchmark of unum.jit from Python (issue 12), all ratios measured in this
one run, on one thread:

  1. call overhead of a cached jitted function on 1,000 f32 elements against
     the numpy expression: one op (goal: at most 2x numpy's time) and four
     ops (goal: faster than numpy);
  2. first-call compile time of a ten-op function (goal: under 150 ms);
  3. the memory-bound expressions of unum-air-bench (E1 (a*b+c)*d, E2
     exp(a)*b + c/d, E3 sum((a-b)^2)) called from Python against the same
     kernels called from C by unum-air-bench (goal: within 10%).

Times are CPU time of the calling thread (the machine may be shared), best
of the repetitions; the compile time is wall time and the process's CPU time
(MLIR may compile on its own threads). Run from the repository root after a build:

    PYTHONPATH=build/python /usr/bin/python3 utils/bench/python_jit.py [--quick]
"""
import argparse
import os
import re
import subprocess
import sys
import time
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.environ.get("UNUM_BINARY_DIR",
                                               os.path.join(ROOT, "build")), "python"))
import unum  # noqa: E402


def cpu_description():
    model, flags = "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    shown = [x for x in ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw",
                         "avx512vl", "neon", "asimd"] if x in flags]
    return model, shown


def per_call(fn, number, repeat):
    timer = timeit.Timer(fn, timer=time.thread_time)
    return min(timer.repeat(repeat=repeat, number=number)) / number


@unum.jit
def one_op(a, b):
    return a + b


@unum.jit
def four_ops(a, b, c):
    return (a * b + c) * a - b


@unum.jit
def e1(a, b, c, d):
    return (a * b + c) * d


@unum.jit
def e2(a, b, c, d):
    return np.exp(a) * b + c / d


@unum.jit
def e3(a, b):
    return np.sum((a - b) ** 2)


TEN_OPS = '''
import numpy as np
import unum


@unum.jit
def ten(a, b, c):
    x = a * b + c
    y = np.exp(-x * x)
    z = np.maximum(y, 0.5) - np.minimum(a, b)
    w = np.tanh(z) / (np.abs(c) + 1.0)
    return np.sum(w * 2.0, axis=-1)
'''


def compile_time(repeat):
    import importlib.util
    import tempfile
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ten_ops.py")
        with open(path, "w") as f:
            f.write(TEN_OPS)
        a = np.ones((64, 64), np.float32)
        for i in range(repeat):
            spec = importlib.util.spec_from_file_location("ten_ops_%d" % i, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            t, c = time.perf_counter(), time.process_time()
            module.ten(a, a, a)
            times.append((time.perf_counter() - t, time.process_time() - c))
    wall = [w for w, _ in times]
    cpu = [c for _, c in times]
    return min(wall), float(np.median(wall)), min(cpu)


def c_times(lg, reps):
    """unum-air-bench's (0) unum column, CPU time: E1..E3 in ms."""
    exe = os.path.join(os.environ.get("UNUM_BINARY_DIR", os.path.join(ROOT, "build")),
                       "bin", "unum-air-bench")
    if not os.path.exists(exe):
        return None, "no %s" % exe
    r = subprocess.run([exe, "--sizes", str(lg), "--reps", str(reps), "--warmup", "1",
                        "--no-numpy", "--no-conv", "--cpu", "none", "--clock", "cpu"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return None, r.stderr.strip()
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(E[123]) .*?\s{2,}([0-9.]+) \(", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, few repetitions")
    ap.add_argument("--size", type=int, default=None, help="log2 of the elements of E1-E3")
    args = ap.parse_args()
    lg = args.size or (16 if args.quick else 24)
    reps = 3 if args.quick else 7
    calls = 2000 if args.quick else 20000

    model, flags = cpu_description()
    print("CPU: %s; features: %s" % (model, " ".join(flags) or "none found"))
    print("unum %s, numpy %s, Python %s" % (unum.version(), np.__version__,
                                            sys.version.split()[0]))

    rng = np.random.default_rng(0)
    a, b, c = (rng.random(1000, dtype=np.float32) + 0.5 for _ in range(3))
    one_op(a, b)
    four_ops(a, b, c)
    u1 = per_call(lambda: one_op(a, b), calls, reps)
    n1 = per_call(lambda: a + b, calls, reps)
    u4 = per_call(lambda: four_ops(a, b, c), calls, reps)
    n4 = per_call(lambda: (a * b + c) * a - b, calls, reps)
    print("\ncall on 1000 f32 (cached)   unum        numpy       unum/numpy  goal")
    print("one op  a + b               %7.2f us  %7.2f us  %6.2fx     <= 2x  %s"
          % (u1 * 1e6, n1 * 1e6, u1 / n1, "ok" if u1 <= 2 * n1 else "MISSED"))
    print("four ops (a*b+c)*a - b      %7.2f us  %7.2f us  %6.2fx     < 1x   %s"
          % (u4 * 1e6, n4 * 1e6, u4 / n4, "ok" if u4 < n4 else "MISSED"))

    best, median, cpu = compile_time(3 if args.quick else 5)
    print("\nfirst call of a ten-op function (trace + compile + JIT + run): "
          "%.1f ms best, %.1f ms median wall; %.1f ms CPU of the process "
          "(goal < 150 ms: %s)" % (best * 1e3, median * 1e3, cpu * 1e3,
                                   "ok" if best < 0.150 else "MISSED"))

    n = 1 << lg
    xs = [rng.random(n, dtype=np.float32) + 0.5 for _ in range(4)]
    py, py_out = {}, {}
    for name, fn, k in [("E1", e1, 4), ("E2", e2, 4), ("E3", e3, 2)]:
        fn(*xs[:k])
        py[name] = per_call(lambda: fn(*xs[:k]), 1, reps) * 1e3
        if name != "E3":  # into a preallocated result, as the C side does
            out = np.empty(n, np.float32)
            py_out[name] = per_call(lambda: fn(*xs[:k], out=out), 1, reps) * 1e3
    c, why = c_times(lg, reps)
    print("\nn = 2^%d f32          Python, new result  Python, out=   C (ms)   "
          "Python/C  goal <= 1.10x" % lg)
    for name, text in [("E1", "(a*b+c)*d"), ("E2", "exp(a)*b + c/d"),
                       ("E3", "sum((a-b)^2)")]:
        same = py_out.get(name, py[name])
        shown = "%9.3f ms" % py_out[name] if name in py_out else "     (scalar)"
        if c and name in c:
            ratio = same / c[name]
            print("%s %-16s %9.3f ms       %s   %7.3f   %6.2fx    %s" % (
                name, text, py[name], shown, c[name], ratio,
                "ok" if ratio <= 1.10 else "MISSED"))
        else:
            print("%s %-16s %9.3f ms       %s   n/a (%s)" % (
                name, text, py[name], shown, why or "not parsed"))
    print("(Python/C compares like with like: the result preallocated on both sides; "
          "a new 2^%d result costs its page faults on first touch)" % lg)
    e3_err = abs(float(e3(xs[0], xs[1])) - float(np.sum((xs[0].astype(np.float64)
                                                          - xs[1]) ** 2)))
    print("(E3 absolute difference from an f64 numpy sum: %.3g)" % e3_err)


if __name__ == "__main__":
    main()
