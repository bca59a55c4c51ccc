#!/usr/bin/python3
"""Value-and-grad kernels from air-grad against PyTorch autograd and
hand-fused C loops, one thread, all ratios from one run.

  utils/bench/air_grad_bench.py [--airc build/bin/unum-airc] [--log2n 24]
                                [--reps 5]

E1 sum((a*b+c)*d), E2 sum(exp(a)*b + c/d), E3 sum((a-b)^2) on 2^n f32
elements, the value and the gradient with respect to every input; MLP:
sum(relu(relu(x W1) W2)) with x [512, 256], W1 [256, 256], W2 [256, 64],
the value and the gradients of W1 and W2. Unum's kernels are compiled by
unum-airc into a shared object and called through ctypes (one call per run:
the overhead is microseconds); torch runs with torch.set_num_threads(1);
the hand-fused loops are one C loop per expression (value and all
gradients), -O3 -march=native -ffast-math. Times are the best of --reps.
Needs /usr/bin/python3 with numpy and torch (python3-torch).
"""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "test",
                                "Dialect", "Air", "Inputs"))
from air_ctypes import descriptor  # noqa: E402  (memref descriptors)
from bench_timing import best  # noqa: E402


def prepared(fn, inputs, out_shapes):
    """A call of kernel `fn` into outputs allocated (and faulted in) once:
    the ABI has the caller own every buffer."""
    outs = [np.ones(s, dtype=np.float32) for s in out_shapes]
    descs = [ctypes.byref(descriptor(x)) for x in list(inputs) + outs]
    return (lambda: fn(*descs)), outs

AIR = """
function e1(%a: f32[N], %b: f32[N], %c: f32[N], %d: f32[N]) {
    %0 = kernel(mul, %a, %b)
    %1 = kernel(add, %0, %c)
    %2 = kernel(mul, %1, %d)
    %3 = kernel(sum, %2)
    ret %3
}
function e1_vg(%a: f32[N], %b: f32[N], %c: f32[N], %d: f32[N]) {
    %v, %ga, %gb, %gc, %gd = value_and_grad(e1, wrt=[0, 1, 2, 3])(%a, %b, %c, %d)
    ret %v, %ga, %gb, %gc, %gd
}
function e2(%a: f32[N], %b: f32[N], %c: f32[N], %d: f32[N]) {
    %0 = kernel(exp, %a)
    %1 = kernel(mul, %0, %b)
    %2 = kernel(div, %c, %d)
    %3 = kernel(add, %1, %2)
    %4 = kernel(sum, %3)
    ret %4
}
function e2_vg(%a: f32[N], %b: f32[N], %c: f32[N], %d: f32[N]) {
    %v, %ga, %gb, %gc, %gd = value_and_grad(e2, wrt=[0, 1, 2, 3])(%a, %b, %c, %d)
    ret %v, %ga, %gb, %gc, %gd
}
function e3(%a: f32[N], %b: f32[N]) {
    %0 = kernel(sub, %a, %b)
    %1 = kernel(mul, %0, %0)
    %2 = kernel(sum, %1)
    ret %2
}
function e3_vg(%a: f32[N], %b: f32[N]) {
    %v, %ga, %gb = value_and_grad(e3, wrt=[0, 1])(%a, %b)
    ret %v, %ga, %gb
}
function mlp(%x: f32[512, 256], %w1: f32[256, 256], %w2: f32[256, 64]) {
    %0 = kernel(matmul, %x, %w1)
    %1 = kernel(max, %0, 0)
    %2 = kernel(matmul, %1, %w2)
    %3 = kernel(max, %2, 0)
    %4 = kernel(sum, %3)
    ret %4
}
function mlp_vg(%x: f32[512, 256], %w1: f32[256, 256], %w2: f32[256, 64]) {
    %v, %g1, %g2 = value_and_grad(mlp, wrt=[1, 2])(%x, %w1, %w2)
    ret %v, %g1, %g2
}
"""

C = r"""
#include <math.h>
#include <stdint.h>
float e1(const float *a, const float *b, const float *c, const float *d,
         float *ga, float *gb, float *gc, float *gd, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    float t = a[i] * b[i] + c[i];
    s += t * d[i];
    ga[i] = d[i] * b[i]; gb[i] = d[i] * a[i]; gc[i] = d[i]; gd[i] = t;
  }
  return (float)s;
}
float e2(const float *a, const float *b, const float *c, const float *d,
         float *ga, float *gb, float *gc, float *gd, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    float e = expf(a[i]), r = 1.0f / d[i], q = c[i] * r;
    s += e * b[i] + q;
    ga[i] = e * b[i]; gb[i] = e; gc[i] = r; gd[i] = -q * r;
  }
  return (float)s;
}
float e3(const float *a, const float *b, float *ga, float *gb, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) {
    float t = a[i] - b[i];
    s += t * t;
    ga[i] = 2 * t; gb[i] = -2 * t;
  }
  return (float)s;
}
"""


def cpu_info():
    model, flags = "?", []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                flags = line.split(":", 1)[1].split()
    simd = [x for x in ("sse4_2", "avx", "avx2", "fma", "avx512f") if x in flags]
    return model, simd


def main():
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    ap = argparse.ArgumentParser()
    ap.add_argument("--airc", default=os.path.join(root, "build", "bin", "unum-airc"))
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--log2n", type=int, default=24)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    model, simd = cpu_info()
    print("CPU: %s (%s); one thread; torch %s; best of %d" %
          (model, " ".join(simd), torch.__version__, args.reps))

    work = tempfile.mkdtemp(prefix="air-grad-bench-")
    with open(os.path.join(work, "k.air"), "w") as f:
        f.write(AIR)
    with open(os.path.join(work, "ref.c"), "w") as f:
        f.write(C)
    subprocess.run([args.airc, os.path.join(work, "k.air"), "-o",
                    os.path.join(work, "k.o")], check=True)
    subprocess.run([args.cc, "-shared", "-fPIC", os.path.join(work, "k.o"),
                    "-o", os.path.join(work, "k.so"), "-lm"], check=True)
    subprocess.run([args.cc, "-shared", "-fPIC", "-O3", "-march=native",
                    "-ffast-math", os.path.join(work, "ref.c"), "-o",
                    os.path.join(work, "ref.so"), "-lm"], check=True)
    so = ctypes.CDLL(os.path.join(work, "k.so"))
    ref = ctypes.CDLL(os.path.join(work, "ref.so"))
    fp = ctypes.POINTER(ctypes.c_float)
    for name in ("e1", "e2", "e3"):
        getattr(ref, name).restype = ctypes.c_float

    n = 1 << args.log2n
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(0, 1, n).astype(np.float32)
    c = rng.uniform(0, 1, n).astype(np.float32)
    d = rng.uniform(1, 2, n).astype(np.float32)
    print("\n%-28s %10s %10s %10s %10s %10s" %
          ("value_and_grad, 2^%d f32" % args.log2n, "unum ms", "torch ms",
           "fused C ms", "torch/unum", "C/unum"))
    exprs = {
        "E1 sum((a*b+c)*d)": ("e1_vg", [a, b, c, d], "e1",
                              lambda A, B, C, D: ((A * B + C) * D).sum()),
        "E2 sum(exp(a)*b + c/d)": ("e2_vg", [a, b, c, d], "e2",
                                   lambda A, B, C, D: (torch.exp(A) * B + C / D).sum()),
        "E3 sum((a-b)^2)": ("e3_vg", [a, b], "e3",
                            lambda A, B: ((A - B) ** 2).sum()),
    }
    failed = False
    for label, (kernel, ins, cname, tfn) in exprs.items():
        outs_shapes = [()] + [(n,)] * len(ins)
        run, got = prepared(getattr(so, kernel), ins, outs_shapes)
        t_unum = best(run, args.reps)
        leaves = [torch.from_numpy(x).requires_grad_() for x in ins]

        def torch_vg():
            for l in leaves:
                l.grad = None
            v = tfn(*leaves)
            v.backward()
            return v
        t_torch = best(torch_vg, args.reps)
        grads = [np.ones(n, np.float32) for _ in ins]
        cargs = [x.ctypes.data_as(fp) for x in ins] + \
                [g.ctypes.data_as(fp) for g in grads] + [ctypes.c_int64(n)]
        cfn = getattr(ref, cname)
        t_c = best(lambda: cfn(*cargs), args.reps)
        # The three agree (gradients exactly or to rounding).
        v = torch_vg()
        for g, l, h in zip(got[1:], leaves, grads):
            if not (np.allclose(g, l.grad.numpy(), rtol=1e-5, atol=1e-6) and
                    np.allclose(g, h, rtol=1e-5, atol=1e-6)):
                failed = True
                print("MISMATCH in", label)
        if abs(float(got[0]) - float(v)) > 1e-5 * abs(float(v)):
            failed = True
            print("MISMATCH in the value of", label, float(got[0]), float(v))
        print("%-28s %10.2f %10.2f %10.2f %9.2fx %9.2fx" %
              (label, t_unum * 1e3, t_torch * 1e3, t_c * 1e3, t_torch / t_unum,
               t_c / t_unum))

    x = rng.standard_normal((512, 256)).astype(np.float32)
    w1 = (rng.standard_normal((256, 256)) / 16).astype(np.float32)
    w2 = (rng.standard_normal((256, 64)) / 16).astype(np.float32)
    run, got = prepared(so.mlp_vg, [x, w1, w2], [(), (256, 256), (256, 64)])
    t_unum = best(run, args.reps)
    tx = torch.from_numpy(x)
    l1 = torch.from_numpy(w1).requires_grad_()
    l2 = torch.from_numpy(w2).requires_grad_()

    def mlp():
        l1.grad = l2.grad = None
        v = torch.relu(torch.relu(tx @ l1) @ l2).sum()
        v.backward()
        return v
    t_torch = best(mlp, args.reps)
    v = mlp()
    if not (np.allclose(got[1], l1.grad.numpy(), rtol=1e-4, atol=1e-4) and
            np.allclose(got[2], l2.grad.numpy(), rtol=1e-4, atol=1e-4)):
        failed = True
        print("MISMATCH in the MLP")
    print("%-28s %10.2f %10.2f %10s %9.2fx %10s" %
          ("MLP 512x256x256x64", t_unum * 1e3, t_torch * 1e3, "-",
           t_torch / t_unum, "-"))
    print("\ngoals: torch/unum >= 2x on E1-E3, C/unum >= 0.9x, torch/unum "
          ">= 0.8x on the MLP")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
