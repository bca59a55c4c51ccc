#!/usr/bin/python3
"""Row-wise kernels (softmax, layernorm, logsumexp over the last axis) and
reductions over axis 0, compiled by unum-airc, checked against numpy and
timed against PyTorch (one thread) and numpy, all ratios from one run.

  utils/bench/air_rows_bench.py [--airc build/bin/unum-airc] [--rows 4096]
                                [--cols 1024] [--reps 5] [--clock wall|cpu]
                                [--mcpu host,haswell] [--threads 2]
                                [--check-only]

It prints the CPU model and vector features, the load average, and per
kernel the best and median time of Unum (one column per --mcpu build, host
= this machine's CPU), PyTorch (one thread) and numpy, the ratios of the
best times (> 1: Unum is faster) and the load average after the row. Each
of the --reps runs times every column in turn (after one warm-up call of
each), so that a change of load or clock hits them all alike. Every column
writes into an output allocated once where the library can (see main()).
With --threads N > 1 (the default, 2) the first --mcpu is also built with
--num-threads=N (OpenMP, -lomp): its column and the ratio of its best time
to the one-thread build's (Nt/1t > 1: the threads help; with --clock cpu
that column is the CPU time of all threads and no ratio is printed); its
results must equal the one-thread build's bit for bit.

Every kernel's result is compared with a float64 numpy evaluation (relative
error at most 1e-5; near zero, 1e-8 of the largest result) on the benchmark shape and on small odd shapes (rows
that do not fill a block, one row, one column); a mismatch exits 1.
--check-only skips the timing (what the lit test runs).
Needs /usr/bin/python3 with numpy (and python3-torch for the timing).
"""
import argparse
import ctypes
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "test",
                                "Dialect", "Air", "Inputs"))
from air_ctypes import compile_library, descriptor  # noqa: E402  (memref descriptors)
from bench_timing import alternating, cpu_description  # noqa: E402

AIR = """
function softmax(%x: f32[R, C]) {
    %0 = kernel(max, %x, axes=[1])
    %1 = kernel(reshape, %0, shape=[-1, 1])
    %2 = kernel(sub, %x, %1)
    %3 = kernel(exp, %2)
    %4 = kernel(sum, %3, axes=[1])
    %5 = kernel(reshape, %4, shape=[-1, 1])
    %6 = kernel(div, %3, %5)
    ret %6
}
function layernorm(%x: f32[R, C]) {
    %0 = kernel(mean, %x, axes=[1])
    %1 = kernel(reshape, %0, shape=[-1, 1])
    %2 = kernel(sub, %x, %1)
    %3 = kernel(mul, %2, %2)
    %4 = kernel(mean, %3, axes=[1])
    %5 = kernel(add, %4, 0.00001)
    %6 = kernel(sqrt, %5)
    %7 = kernel(reshape, %6, shape=[-1, 1])
    %8 = kernel(div, %2, %7)
    ret %8
}
function logsumexp(%x: f32[R, C]) {
    %0 = kernel(max, %x, axes=[1])
    %1 = kernel(reshape, %0, shape=[-1, 1])
    %2 = kernel(sub, %x, %1)
    %3 = kernel(exp, %2)
    %4 = kernel(sum, %3, axes=[1])
    %5 = kernel(log, %4)
    %6 = kernel(add, %5, %0)
    ret %6
}
function colsum(%x: f32[R, C]) {
    %0 = kernel(sum, %x, axes=[0])
    ret %0
}
function colmax(%x: f32[R, C]) {
    %0 = kernel(max, %x, axes=[0])
    ret %0
}
function colmean(%x: f32[R, C]) {
    %0 = kernel(mean, %x, axes=[0])
    ret %0
}
function colmin(%x: f32[R, C]) {
    %0 = kernel(min, %x, axes=[0])
    ret %0
}
function colsum64(%x: f64[R, C]) {
    %0 = kernel(sum, %x, axes=[0])
    ret %0
}
function colmax64(%x: f64[R, C]) {
    %0 = kernel(max, %x, axes=[0])
    ret %0
}
function midsum(%x: f32[A, R, C]) {
    %0 = kernel(sum, %x, axes=[1])
    ret %0
}
"""


def ref_softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def ref_layernorm(x):
    x = x.astype(np.float64)
    d = x - x.mean(axis=1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5)


def ref_logsumexp(x):
    x = x.astype(np.float64)
    m = x.max(axis=1)
    return np.log(np.exp(x - m[:, None]).sum(axis=1)) + m


# The error bound of an f32 sum over a non-last axis (docs/Air.md): chunks of
# at most 32 rows added in f32, the chunks' sums in f64, rounded once.
F32_SUM_CHUNK = 32


def f32_sum_error(x, axis, count=1):
    """Largest error docs/Air.md allows an f32 sum (a mean: divided by
    `count`) over `axis`: (32 - 1) 2^-24 sum |x| + the final rounding."""
    x = x.astype(np.float64)
    exact = x.sum(axis=axis) / count
    return ((F32_SUM_CHUNK - 1) * np.abs(x).sum(axis=axis) / count +
            np.abs(exact)) * 2.0 ** -24 * (1 + 1e-6)


# name: (reference in float64, dtype, rank, axis, sum?); a 3-D input is
# (3, rows, cols) in the checks and --mid in the timing.
KERNELS = {
    "softmax": (ref_softmax, np.float32, 2, None, False),
    "layernorm": (ref_layernorm, np.float32, 2, None, False),
    "logsumexp": (ref_logsumexp, np.float32, 2, None, False),
    "colsum": (lambda x: x.astype(np.float64).sum(axis=0), np.float32, 2, 0,
               True),
    "colmax": (lambda x: x.max(axis=0), np.float32, 2, 0, False),
    "colmean": (lambda x: x.astype(np.float64).mean(axis=0), np.float32, 2, 0,
                True),
    "colmin": (lambda x: x.min(axis=0), np.float32, 2, 0, False),
    "colsum64": (lambda x: x.sum(axis=0), np.float64, 2, 0, True),
    "colmax64": (lambda x: x.max(axis=0), np.float64, 2, 0, False),
    "midsum": (lambda x: x.astype(np.float64).sum(axis=1), np.float32, 3, 1,
               True),
}


def output_shape(name, shape):
    ref, dtype, rank, axis, _ = KERNELS[name]
    if axis is None:
        return shape if name != "logsumexp" else shape[:1]
    return shape[:axis] + shape[axis + 1:]


def call(fn, x, out):
    fn.restype = ctypes.c_int32
    return fn(ctypes.byref(descriptor(x)), ctypes.byref(descriptor(out)))


def check(so, rows, cols, rng, same_as=None):
    """Compares every kernel of `so` with numpy; with `same_as` (the
    one-thread build) also bit for bit with that. Sums over axes are held to
    their documented bound, max/min to numpy's value exactly."""
    ok = True
    for name, (ref, dtype, rank, axis, is_sum) in KERNELS.items():
        shape = (rows, cols) if rank == 2 else (3, rows, cols)
        x = (rng.standard_normal(shape) * 4).astype(dtype)
        out = np.full(output_shape(name, shape), np.nan, dtype)
        if call(getattr(so, name), x, out) != 0:
            print("FAIL %s %s: status != 0" % (name, shape))
            ok = False
            continue
        if same_as is not None:
            one = np.full(out.shape, np.nan, dtype)
            call(getattr(same_as, name), x, one)
            if one.tobytes() != out.tobytes():
                print("FAIL %s %s: threads change the result" % (name, shape))
                ok = False
        # The same values in a transposed and in a strided view: the same
        # result.
        views = [np.asfortranarray(x),
                 np.repeat(x, 2, axis=-1)[..., ::2]]
        for view in views:
            again = np.full(out.shape, np.nan, dtype)
            if (call(getattr(so, name), view, again) != 0 or
                    again.tobytes() != out.tobytes()):
                print("FAIL %s %s: a view of strides %s gives another result"
                      % (name, shape, view.strides))
                ok = False
        want = ref(x)
        if axis is not None and not is_sum:
            if not np.array_equal(out, want):
                print("FAIL %s %s: differs from numpy" % (name, shape))
                ok = False
            continue
        if is_sum:
            count = shape[axis] if name.endswith("mean") else 1
            bound = (f32_sum_error(x, axis, count) if dtype == np.float32
                     else 1e-12 * np.abs(x).sum(axis=axis))
            err = np.max(np.abs(out - want) - bound, initial=-1.0)
            if not err <= 0:
                print("FAIL %s %s: error above the bound by %.3g" %
                      (name, shape, err))
                ok = False
            continue
        # Relative, with a floor of 1e-3 of the largest result: values near
        # zero (x - mean) carry the absolute rounding error of their inputs.
        floor = 1e-3 * max(np.max(np.abs(want)), 1e-30)
        err = np.max(np.abs(out - want) / (np.abs(want) + floor))
        if not err <= 1e-5:
            print("FAIL %s %s: relative error %.3g" % (name, shape, err))
            ok = False
    return ok


def main():
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    ap = argparse.ArgumentParser()
    ap.add_argument("--airc", default=os.path.join(root, "build", "bin", "unum-airc"))
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("--mid", default="64,1024,64",
                    help="A,B,C: midsum's shape (a sum over axis 1)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--mcpu", default="host",
                    help="comma-separated CPUs to build for (host: this one)")
    ap.add_argument("--threads", type=int, default=2,
                    help="also build the first --mcpu for N threads (1: no)")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="cpu: this process's CPU time (on a busy machine)")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    work = tempfile.mkdtemp(prefix="air-rows-bench-")

    def build(mcpu, threads=1):
        flags = [] if mcpu == "host" else ["--mcpu=" + mcpu]
        stem = os.path.join(work, "k-%s-%dt" % (mcpu, threads))
        return compile_library(args.airc, AIR, stem, flags, threads, args.cc)

    builds = {mcpu: build(mcpu) for mcpu in args.mcpu.split(",")}
    first = args.mcpu.split(",")[0]
    threaded = build(first, args.threads) if args.threads > 1 else None
    rng = np.random.default_rng(7)
    ok = True
    # Every remainder of the axis-0 reductions: fewer rows than a chunk (8
    # to 32 rows), a last partial chunk, column blocks of 1024 f32 and their
    # remainder, strips of 32 columns, single vectors, single columns.
    shapes = [(1, 1), (1, 7), (3, 1), (5, 33), (37, 300), (9, 1031),
              (70, 45), (257, 2049), (args.rows, args.cols)]
    for mcpu, so in builds.items():
        for r, c in shapes:
            ok &= check(so, r, c, rng)
    if threaded is not None:
        for r, c in shapes:
            ok &= check(threaded, r, c, rng, same_as=builds[first])
    print("numerics: %s" % ("ok" if ok else "MISMATCH"))
    if args.check_only:
        return 0 if ok else 1

    import torch
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    x = rng.standard_normal((args.rows, args.cols)).astype(np.float32)
    x64 = x.astype(np.float64)
    x3 = rng.standard_normal(
        tuple(int(d) for d in args.mid.split(","))).astype(np.float32)
    inputs = {np.float32: {2: x, 3: x3}, np.float64: {2: x64}}
    tx, tx64, tx3 = (torch.from_numpy(a) for a in (x, x64, x3))
    print("CPU: %s" % cpu_description())
    print("%dx%d (midsum: %s), one thread (but the %dt column), %d runs "
          "(best / median; each run times every column in turn), %s clock; "
          "load average %s" % (
              args.rows, args.cols, "x".join(args.mid.split(",")),
              args.threads, args.reps, args.clock,
              " ".join("%.2f" % a for a in os.getloadavg())))
    print("times in ms; ratios of best times: torch/unum, numpy/unum > 1 "
          "when unum is faster")
    # The references are timed as Unum is: warm (one untimed call first),
    # one thread, writing into an output allocated once where the library
    # has an in-place out= kernel (torch's softmax, logsumexp and reductions,
    # numpy's reductions). torch's layer_norm has none (its out= overload
    # computes into a new tensor and copies: ~1.6x slower), so it allocates
    # its result per call (glibc reuses the freed block: no page faults);
    # numpy's softmax and layernorm are several array expressions, each
    # allocating its result.
    t_out = {}

    def tout(name, shape, dtype=torch.float32):
        if name not in t_out:
            t_out[name] = torch.empty(shape, dtype=dtype)
        return t_out[name]

    def nout(name, shape, dtype=np.float32):
        if name not in t_out:
            t_out[name] = np.empty(shape, dtype)
        return t_out[name]

    R, C = args.rows, args.cols
    mid = tuple(int(d) for d in args.mid.split(","))
    others = {
        "softmax": (lambda: torch.softmax(tx, 1, out=tout("sm", (R, C))),
                    lambda: (lambda e: e / e.sum(axis=1, keepdims=True))(
                        np.exp(x - x.max(axis=1, keepdims=True)))),
        "layernorm": (lambda: torch.nn.functional.layer_norm(
                          tx, (args.cols,), eps=1e-5),
                      lambda: (lambda d: d / np.sqrt(
                          (d * d).mean(axis=1, keepdims=True) + 1e-5))(
                              x - x.mean(axis=1, keepdims=True))),
        "logsumexp": (lambda: torch.logsumexp(tx, 1, out=tout("lse", (R,))),
                      lambda: (lambda m: np.log(np.exp(
                          x - m[:, None]).sum(axis=1)) + m)(x.max(axis=1))),
        "colsum": (lambda: torch.sum(tx, 0, out=tout("c", (C,))),
                   lambda: x.sum(axis=0, out=nout("nc", (C,)))),
        "colmax": (lambda: torch.amax(tx, 0, out=tout("c", (C,))),
                   lambda: x.max(axis=0, out=nout("nc", (C,)))),
        "colmean": (lambda: torch.mean(tx, 0, out=tout("c", (C,))),
                    lambda: x.mean(axis=0, out=nout("nc", (C,)))),
        "colmin": (lambda: torch.amin(tx, 0, out=tout("c", (C,))),
                   lambda: x.min(axis=0, out=nout("nc", (C,)))),
        "colsum64": (lambda: torch.sum(tx64, 0, out=tout(
                         "c64", (C,), torch.float64)),
                     lambda: x64.sum(axis=0, out=nout("nc64", (C,),
                                                      np.float64))),
        "colmax64": (lambda: torch.amax(tx64, 0, out=tout(
                         "c64", (C,), torch.float64)),
                     lambda: x64.max(axis=0, out=nout("nc64", (C,),
                                                      np.float64))),
        "midsum": (lambda: torch.sum(tx3, 1, out=tout(
                       "m", (mid[0], mid[2]))),
                   lambda: x3.sum(axis=1, out=nout("nm", (mid[0], mid[2])))),
    }
    nt = [] if threaded is None else ["%s %dt" % (first, args.threads)]
    head = ["kernel"] + ["unum %s" % m for m in builds]
    head += ["unum " + n for n in nt]
    head += ["torch", "numpy"]
    head += ["torch/%s" % m for m in builds] + ["numpy/%s" % m for m in builds]
    head += ["%dt/1t" % args.threads for n in nt]
    head += ["load"]
    width = [10] + [15] * (len(builds) + len(nt) + 2)
    width += [12] * (2 * len(builds) + len(nt)) + [5]
    print(" ".join("%-*s" % (w, h) if i == 0 else "%*s" % (w, h)
                   for i, (w, h) in enumerate(zip(width, head))))
    for name, (ref, dtype, rank, axis, _) in KERNELS.items():
        xin = inputs[dtype][rank]
        out = np.ones(output_shape(name, xin.shape), dtype)
        # The descriptors are built once, as numpy and torch have their
        # arrays ready: building them costs ~9 us a call, 10% of a 64x16384
        # axis-0 sum. What is timed is the ctypes call (~1 us) and the
        # kernel.
        dx, dout = descriptor(xin), descriptor(out)
        px, pout = ctypes.byref(dx), ctypes.byref(dout)

        def bound(fn):
            fn.restype = ctypes.c_int32
            return lambda: fn(px, pout)
        fns = [bound(getattr(so, name)) for so in builds.values()]
        if threaded is not None:
            fns.append(bound(getattr(threaded, name)))
        fns += list(others[name])
        # Interleaved: every rep times each build and both references.
        timed = alternating(fns, args.reps, clock)
        one = timed[:len(builds)]
        t_threads = timed[len(builds)] if threaded is not None else None
        t_torch, t_np = timed[-2], timed[-1]
        row = ["%-10s" % name]
        row += ["%15s" % ("%.3f / %.3f" % (t[0] * 1e3, t[1] * 1e3))
                for t in timed]
        row += ["%11.2fx" % (t_torch[0] / t[0]) for t in one]
        row += ["%11.2fx" % (t_np[0] / t[0]) for t in one]
        if threaded is not None and args.clock == "cpu":
            row += ["%12s" % "n/a"]  # CPU time of all threads: no speed-up
        elif threaded is not None:
            row += ["%11.2fx" % (one[0][0] / t_threads[0])]
        row += ["%5.2f" % os.getloadavg()[0]]
        print(" ".join(row))
    print("goals: torch/unum >= 1.0 on softmax and layernorm, numpy/unum >= "
          "1.0 on the axis-0 reductions" + (
              "; %dt/1t > 1 with enough work" % args.threads
              if threaded is not None else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
