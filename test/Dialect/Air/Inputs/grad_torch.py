#!/usr/bin/python3
"""Random AIR programs whose air-grad gradients must agree with PyTorch.

Generates COUNT seeded random programs (f64 and f32; elementwise chains with
numpy broadcasting, reductions over axes, matmul, strided conv1d, reshape,
transpose, select, pow, max/min, casts, tuples and calls), writes each with a
`value_and_grad` function into ONE .air file (one unum-airc run), links the
object into a shared library, calls the kernels through ctypes and compares
with torch.autograd (the same program written with torch ops) and, for f64,
with central finite differences of the compiled value function.

Tolerances (relative, in the infinity norm of the reference): f64 1e-6
against torch, 1e-6 against finite differences (h = 1e-6); f32 1e-4 against
torch run in f32. Exit status 1 on any mismatch, with the program printed.

Usage: grad_torch.py --airc unum-airc --cc cc --workdir DIR [--count N]
"""
import os
import random
import sys

import numpy as np
import torch

from air_ctypes import build_library, call, parse_args
from air_random import RandomProgram

torch.set_num_threads(1)


class Program(RandomProgram):
    """One random program, written in both AIR and torch."""

    def __init__(self, index, rng, dtype):
        super().__init__(rng)
        self.index = index
        self.dtype = dtype
        self.air = []  # body lines
        self.py = []  # torch lines
        self.helpers = []  # extra AIR functions (called)
        self.has_cast = False  # rounds to f32: no finite differences

    # -- building blocks -------------------------------------------------
    def emit(self, air_rhs, py_rhs, shape):
        name = self.fresh()
        self.air.append("    %%%s = %s" % (name, air_rhs))
        self.py.append("    %s = %s" % (name, py_rhs))
        self.pool.append((name, list(shape)))
        return name, list(shape)

    def positive(self, v):
        """x*x + 0.5: a smooth positive value (for log, sqrt, pow, div)."""
        sq = self.emit(self.k("mul", v[0], v[0]), "%s * %s" % (v[0], v[0]), v[1])
        return self.emit(self.k("add", sq[0], 0.5), "%s + 0.5" % sq[0], v[1])

    # -- random steps ----------------------------------------------------
    def unary(self):
        v = self.pick()
        op = self.rng.choice(["neg", "abs", "exp", "log", "sqrt", "tanh",
                              "sigmoid"])
        if op in ("log", "sqrt"):
            v = self.positive(v)
        if op == "exp":
            v = self.emit(self.k("tanh", v[0]), "torch.tanh(%s)" % v[0], v[1])
        # torch 1.13's double backward of torch.abs returns uninitialised
        # memory; where(x >= 0, x, -x) is the same function (and the same
        # gradient away from 0, which random data never hits).
        if op == "abs":
            return self.emit(self.k(op, v[0]),
                             "torch.where(%s >= 0, %s, -%s)" % ((v[0],) * 3), v[1])
        py = {"neg": "-%s", "exp": "torch.exp(%s)",
              "log": "torch.log(%s)", "sqrt": "torch.sqrt(%s)",
              "tanh": "torch.tanh(%s)", "sigmoid": "torch.sigmoid(%s)"}[op]
        return self.emit(self.k(op, v[0]), py % v[0], v[1])

    def binary(self):
        a = self.pick()
        others = [v for v in self.pool if self.broadcast(a[1], v[1]) is not None]
        b = self.rng.choice(others)
        self.used.add(b[0])
        shape = self.broadcast(a[1], b[1])
        op = self.rng.choice(["add", "sub", "mul", "div", "max", "min", "pow",
                              "literal"])
        if op == "literal":
            c = self.rng.choice([0.5, 2.0, -1.5, 3.0])
            kind = self.rng.choice(["mul", "add", "sub"])
            sym = {"mul": "*", "add": "+", "sub": "-"}[kind]
            return self.emit(self.k(kind, a[0], c), "%s %s %r" % (a[0], sym, c),
                             a[1])
        if op == "div":
            b = self.positive(b)
        if op == "pow":
            a = self.positive(a)
            b = self.emit(self.k("tanh", b[0]), "torch.tanh(%s)" % b[0], b[1])
        py = {"add": "%s + %s", "sub": "%s - %s", "mul": "%s * %s",
              "div": "%s / %s", "max": "torch.maximum(%s, %s)",
              "min": "torch.minimum(%s, %s)", "pow": "torch.pow(%s, %s)"}[op]
        return self.emit(self.k(op, a[0], b[0]), py % (a[0], b[0]), shape)

    def select(self):
        a = self.pick()
        others = [v for v in self.pool if self.broadcast(a[1], v[1]) is not None]
        b = self.rng.choice(others)
        shape = self.broadcast(a[1], b[1])
        cmp = self.rng.choice(["gt", "lt", "ge", "le"])
        pyc = {"gt": ">", "lt": "<", "ge": ">=", "le": "<="}[cmp]
        c = self.emit(self.k(cmp, a[0], b[0]), "%s %s %s" % (a[0], pyc, b[0]),
                      shape)
        self.pool.pop()  # an i1 value: not an operand for arithmetic
        t = self.emit(self.k("mul", a[0], 2.0), "%s * 2.0" % a[0], a[1])
        return self.emit(self.k("select", c[0], t[0], b[0]),
                         "torch.where(%s, %s, %s)" % (c[0], t[0], b[0]), shape)

    def reduction(self):
        v = self.pick()
        if not v[1]:
            return self.unary()
        op = self.rng.choice(["sum", "mean", "max", "min"])
        rank = len(v[1])
        axes = sorted(self.rng.sample(range(rank), self.rng.randint(1, rank)))
        shape = [d for i, d in enumerate(v[1]) if i not in axes]
        fn = {"sum": "torch.sum", "mean": "torch.mean", "max": "torch.amax",
              "min": "torch.amin"}[op]
        return self.emit(self.k(op, v[0], axes="[%s]" % ", ".join(map(str, axes))),
                         "%s(%s, dim=%r)" % (fn, v[0], tuple(axes)), shape)

    def layout(self):
        v = self.pick(rank=2)
        if v is None:
            return self.unary()
        m, n = v[1]
        if self.rng.random() < 0.5:
            return self.emit(self.k("transpose", v[0], perm="[1, 0]"),
                             "%s.permute(1, 0)" % v[0], [n, m])
        shape = self.rng.choice([[m * n], [n, m], [1, m * n]])
        return self.emit(self.k("reshape", v[0], shape=str(shape)),
                         "%s.reshape(%s)" % (v[0], shape), shape)

    def matmul(self):
        v = self.pick(rank=2)
        if v is None:
            return self.unary()
        w = self.param([v[1][1], self.rng.randint(2, 4)])
        return self.emit(self.k("matmul", v[0], w[0]),
                         "torch.matmul(%s, %s)" % (v[0], w[0]),
                         [v[1][0], w[1][1]])

    def conv1d(self):
        v = self.pick(rank=2, min_dims=[4, 1])
        if v is None:
            x = self.param([self.rng.randint(6, 12), self.rng.randint(1, 3)])
            v = x
        length, channels = v[1]
        taps = self.rng.randint(1, min(4, length))
        stride = self.rng.randint(1, 3)
        out = self.rng.randint(1, 3)
        w = self.param([taps, channels, out])
        return self.emit(
            self.k("conv1d", v[0], w[0], stride=stride),
            "torch.nn.functional.conv1d(%s.permute(1, 0)[None], "
            "%s.permute(2, 1, 0), stride=%d)[0].permute(1, 0)" % (v[0], w[0], stride),
            [(length - taps) // stride + 1, out])

    def call(self):
        """A helper function called with two values of one shape."""
        a = self.pick()
        name = "h%d_%d" % (self.index, len(self.helpers))
        self.helpers.append(
            "function %s(%%x, %%y) {\n"
            "    %%0 = kernel(mul, %%x, %%y)\n"
            "    %%1 = kernel(tanh, %%0)\n"
            "    %%2 = kernel(make_tuple, %%1, %%x)\n"
            "    %%3 = kernel(get, %%2, 0)\n"
            "    %%4 = kernel(add, %%3, %%y)\n"
            "    ret %%4\n}\n" % name)
        b = self.param(a[1]) if self.rng.random() < 0.5 else a
        return self.emit("call %s(%%%s, %%%s)" % (name, a[0], b[0]),
                         "torch.tanh(%s * %s) + %s" % (a[0], b[0], b[0]), a[1])

    def cast(self):
        """Through the other float dtype and back."""
        self.has_cast = True
        v = self.pick()
        other = "f32" if self.dtype == "f64" else "f64"
        tother = "torch.float32" if other == "f32" else "torch.float64"
        c = self.emit(self.k("cast", v[0], dtype=other),
                      "%s.to(%s)" % (v[0], tother), v[1])
        self.pool.pop()
        e = self.emit(self.k("tanh", c[0]), "torch.tanh(%s)" % c[0], v[1])
        self.pool.pop()
        return self.emit(self.k("cast", e[0], dtype=self.dtype),
                         "%s.to(%s)" % (e[0], "torch.float64" if self.dtype == "f64"
                                        else "torch.float32"), v[1])

    def generate(self):
        kind = self.rng.choice(["elementwise", "elementwise", "reduce", "matmul",
                                "conv1d", "layout", "mixed"])
        self.kind = kind
        if kind in ("matmul", "layout"):
            m, n = self.rng.randint(2, 5), self.rng.randint(2, 5)
            self.param([m, n])
            self.param([n])
            if self.rng.random() < 0.5:
                self.param([m, 1])
        elif kind == "conv1d":
            self.param([self.rng.randint(6, 12), self.rng.randint(1, 3)])
        elif kind == "reduce":
            dims = [self.rng.randint(2, 4) for _ in range(3)]
            self.param(dims)
            self.param(dims[1:])
            self.param([])
        else:
            m, n = self.rng.randint(2, 5), self.rng.randint(2, 5)
            for shape in self.rng.sample([[m, n], [n], [], [m, 1], [1, n]], 3):
                self.param(shape)
            if [m, n] not in [p[1] for p in self.params]:
                self.param([m, n])
        steps = {"elementwise": [self.unary, self.binary, self.binary,
                                 self.select, self.call, self.cast],
                 "reduce": [self.reduction, self.binary, self.unary],
                 "matmul": [self.matmul, self.unary, self.binary],
                 "conv1d": [self.conv1d, self.unary, self.binary],
                 "layout": [self.layout, self.binary, self.unary],
                 "mixed": [self.unary, self.binary, self.reduction, self.select,
                           self.layout, self.matmul, self.call]}[kind]
        for _ in range(self.rng.randint(3, 8)):
            self.rng.choice(steps)()
        if kind in ("matmul", "conv1d") and not any(
                "matmul" in l or "conv1d" in l for l in self.air):
            (self.matmul if kind == "matmul" else self.conv1d)()
        # The loss: every value nothing uses, reduced and added up.
        leaves = [v for v in self.pool if v[0] not in self.used]
        terms = []
        for v in leaves:
            op = self.rng.choice(["sum", "mean"])
            terms.append(self.emit(self.k(op, v[0]), "torch.%s(%s)" % (op, v[0]),
                                   []))
        total = terms[0]
        for t in terms[1:]:
            total = self.emit(self.k("add", total[0], t[0]),
                              "%s + %s" % (total[0], t[0]), [])
        self.result = total[0]

    def text(self):
        def ty(shape):
            return "%s[%s]" % (self.dtype, ", ".join(map(str, shape)))
        params = ", ".join("%%%s: %s" % (n, ty(s)) for n, s in self.params)
        names = ", ".join("%" + n for n, _ in self.params)
        wrt = ", ".join(str(i) for i in range(len(self.params)))
        outs = ", ".join("%%g%d" % i for i in range(len(self.params)))
        return ("".join(self.helpers) +
                "function f%d(%s) {\n%s\n    ret %%%s\n}\n" %
                (self.index, params, "\n".join(self.air), self.result) +
                "function vg%d(%s) {\n    %%v, %s = value_and_grad(f%d, wrt=[%s])(%s)\n"
                "    ret %%v, %s\n}\n" % (self.index, params, outs, self.index, wrt,
                                         names, outs))

    def second(self):
        """Second derivatives (elementwise and reduction programs): the
        gradient of s = sum_j sum(g_j * g_j), g = the gradient of f."""
        return self.kind in ("elementwise", "reduce")

    def second_text(self):
        def ty(shape):
            return "%s[%s]" % (self.dtype, ", ".join(map(str, shape)))
        n = len(self.params)
        params = ", ".join("%%%s: %s" % (p, ty(s)) for p, s in self.params)
        names = ", ".join("%" + p for p, _ in self.params)
        wrt = ", ".join(str(i) for i in range(n))
        gs = ", ".join("%%g%d" % i for i in range(n))
        lines = ["    %s = grad(f%d, wrt=[%s])(%s)" % (gs, self.index, wrt, names)]
        for i in range(n):
            lines.append("    %%q%d = kernel(mul, %%g%d, %%g%d)" % (i, i, i))
            lines.append("    %%s%d = kernel(sum, %%q%d)" % (i, i))
        total = "%s0"
        for i in range(1, n):
            lines.append("    %%t%d = kernel(add, %s, %%s%d)" % (i, total, i))
            total = "%%t%d" % i
        hs = ", ".join("%%h%d" % i for i in range(n))
        return ("function s%d(%s) {\n%s\n    ret %s\n}\n" %
                (self.index, params, "\n".join(lines), total) +
                "function hh%d(%s) {\n    %s = grad(s%d, wrt=[%s])(%s)\n"
                "    ret %s\n}\n" % (self.index, params, hs, self.index, wrt,
                                    names, hs))

    def torch_fn(self):
        src = "def fn(%s):\n%s\n    return %s\n" % (
            ", ".join(n for n, _ in self.params), "\n".join(self.py), self.result)
        env = {"torch": torch}
        exec(src, env)
        return env["fn"], src


def rel_error(got, want):
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1.0)
    return float(np.max(np.abs(got - want))) / scale if want.size else 0.0


def main():
    args = parse_args(count=240, seed=2026, chunk=20)

    rng = random.Random(args.seed)
    programs = []
    for i in range(args.count):
        p = Program(i, rng, "f32" if i % 4 == 3 else "f64")
        p.generate()
        programs.append(p)
    # Files of `chunk` programs, compiled `jobs` at a time: the lowering's
    # cost grows faster than linearly with the module's size.
    files = []
    for start in range(0, len(programs), args.chunk):
        air = os.path.join(args.workdir, "programs%d.air" % start)
        with open(air, "w") as f:
            for p in programs[start:start + args.chunk]:
                f.write(p.text())
                if p.second():
                    f.write(p.second_text())
        files.append(air)
    so = build_library(args.airc, args.cc, files,
                       os.path.join(args.workdir, "programs.so"), args.jobs)
    if so is None:
        return 1

    kinds = {}
    failures = 0
    fd_checked = 0
    worst = {"f64": 0.0, "f32": 0.0, "fd": 0.0, "second": 0.0}
    second_checked = 0
    for p in programs:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
        np_dtype = np.float64 if p.dtype == "f64" else np.float32
        t_dtype = torch.float64 if p.dtype == "f64" else torch.float32
        data_rng = np.random.default_rng(1000 + p.index)
        inputs = [np.ascontiguousarray(
            data_rng.uniform(-1, 1, size=s).astype(np_dtype)) for _, s in p.params]
        fn, src = p.torch_fn()
        leaves = [torch.tensor(a, dtype=t_dtype, requires_grad=True) for a in inputs]
        value = fn(*leaves)
        grads = torch.autograd.grad(value, leaves, allow_unused=True)
        want = [value.detach().numpy()] + [
            (g if g is not None else torch.zeros_like(l)).numpy()
            for g, l in zip(grads, leaves)]
        got = call(getattr(so, "vg%d" % p.index), inputs,
                   [()] + [s for _, s in p.params], np_dtype)
        tol = 1e-6 if p.dtype == "f64" else 1e-4
        errors = [rel_error(g, w) for g, w in zip(got, want)]
        err = max(errors)
        worst[p.dtype] = max(worst[p.dtype], err)
        bad = not err <= tol
        if p.dtype == "f64" and not bad and not p.has_cast:
            # Central differences of the compiled value function.
            f = getattr(so, "f%d" % p.index)
            h = 1e-6
            for j, a in enumerate(inputs):
                fd = np.zeros_like(a)
                for idx in np.ndindex(a.shape):
                    saved = a[idx]
                    a[idx] = saved + h
                    up = call(f, inputs, [()], np_dtype)[0]
                    a[idx] = saved - h
                    down = call(f, inputs, [()], np_dtype)[0]
                    a[idx] = saved
                    fd[idx] = (up - down) / (2 * h)
                scale = max(1.0, abs(float(want[0])))
                e = float(np.max(np.abs(fd - got[1 + j]))) / scale if a.size else 0.0
                worst["fd"] = max(worst["fd"], e)
                if not e <= 1e-6:
                    bad = True
                    errors.append(("fd", j, e))
            fd_checked += 1
        if p.second():
            # Second derivatives against torch's double backward.
            firsts = torch.autograd.grad(fn(*leaves), leaves, create_graph=True,
                                         allow_unused=True)
            total = sum(((g * g).sum() for g in firsts if g is not None),
                        torch.zeros((), dtype=t_dtype))
            if total.requires_grad:
                seconds = torch.autograd.grad(total, leaves, allow_unused=True)
            else:
                seconds = [None] * len(leaves)
            want2 = [(g if g is not None else torch.zeros_like(l)).numpy()
                     for g, l in zip(seconds, leaves)]
            got2 = call(getattr(so, "hh%d" % p.index), inputs,
                        [s for _, s in p.params], np_dtype)
            e2 = max(rel_error(g, w) for g, w in zip(got2, want2))
            worst["second"] = max(worst["second"], e2)
            second_checked += 1
            if not e2 <= tol:
                bad = True
                errors.append(("second", e2))
        if bad:
            failures += 1
            print("MISMATCH program %d (%s, %s): errors %s" %
                  (p.index, p.kind, p.dtype, errors))
            print(p.text())
            print(src)
    print("%d programs (%s), %d f64 ones also against finite differences" %
          (len(programs), ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
           fd_checked))
    print("%d also with second derivatives (grad of grad)" % second_checked)
    print("worst relative error: f64 vs torch %.2e, f32 vs torch %.2e, "
          "f64 vs finite differences %.2e, second derivatives %.2e" %
          (worst["f64"], worst["f32"], worst["fd"], worst["second"]))
    print("%d mismatches" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
