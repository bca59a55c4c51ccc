#!/usr/bin/python3
"""Random AIR programs, compiled by unum-airc, against numpy.

Generates COUNT seeded random programs in f32, f64 and i32 -- every kernel,
numpy broadcasting, reductions over axes, matmul, strided conv1d, reshape and
transpose, select, casts, calls, several results -- with static and dynamic
sizes (`?` in the signature), writes them into a few .air files (one
unum-airc run each), links one shared library and calls every kernel through
ctypes (air_ctypes.py):

* with contiguous arguments, then twice with every input and output a random
  view: transposed, every other element (strides 2), at an offset in a
  larger buffer, reversed (a negative stride), or for an input constant
  along an axis a numpy broadcast view (stride 0); each result is compared
  with the same program evaluated by numpy, and outputs must not be written
  outside the view;
* with sizes changed: one dynamic size (numpy says whether the program still
  makes sense: status 0 and numpy's values, else status 1), a static size,
  and an output's size -- status 1 (UNUM_AIR_ERROR_SHAPE) and no output
  touched.

Tolerances (relative to the largest magnitude of the expected array): f64
1e-9, f32 1e-4; i32 exact. Exit status 1 on any disagreement, with the
program printed.

Usage: differential.py --airc unum-airc --cc cc --workdir DIR [--count N]
"""
import os
import random
import re
import sys

import numpy as np

from air_ctypes import build_library, call_status, parse_args
from air_random import RandomProgram

NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32}
KERNELS = ["add", "sub", "mul", "div", "max", "min", "pow", "eq", "ne", "lt",
           "le", "gt", "ge", "neg", "abs", "exp", "log", "sqrt", "tanh",
           "sigmoid", "select", "cast", "sum", "mean", "reduce_max",
           "reduce_min", "matmul", "conv1d", "reshape", "transpose", "call"]


# -- numpy semantics of the kernels (in the program's dtype) ----------------
def idiv(a, b):
    if np.issubdtype(a.dtype, np.integer):
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)
    return a / b


def sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


def tanh(x):
    return np.tanh(x.astype(np.float64)).astype(x.dtype)


def conv1d(x, w, s):
    k = w.shape[0]
    n = (x.shape[0] - k) // s + 1
    out = np.zeros((n, w.shape[2]), dtype=np.float64)
    for t in range(k):
        out += x[t:t + (n - 1) * s + 1:s].astype(np.float64) @ w[t].astype(
            np.float64)
    return out.astype(x.dtype)


def mean(x, axes):
    return np.mean(x.astype(np.float64), axis=axes).astype(x.dtype)


def fsum(x, axes):
    if np.issubdtype(x.dtype, np.integer):
        return np.sum(x, axis=axes, dtype=x.dtype)
    return np.sum(x.astype(np.float64), axis=axes).astype(x.dtype)


def trunc_int(x, dtype):
    return np.trunc(x).astype(dtype)


ENV = {"np": np, "idiv": idiv, "sigmoid": sigmoid, "tanh": tanh,
       "conv1d": conv1d, "mean": mean, "fsum": fsum, "trunc_int": trunc_int}


class Program(RandomProgram):
    """One random program, in AIR and in numpy."""

    def __init__(self, index, rng, dtype):
        super().__init__(rng)
        self.index, self.dtype = index, dtype
        self.float = dtype != "i32"
        self.dynamic = []  # per param, which dims are `?`
        self.air, self.py = [], []
        self.helpers = []
        self.kernel_of = {}

    # -- building blocks -------------------------------------------------
    def emit(self, kernel, air_rhs, py_rhs, shape, pool=True):
        name = self.fresh()
        self.kernel_of[name] = kernel
        self.air.append("    %%%s = %s" % (name, air_rhs))
        self.py.append("    %s = %s" % (name, py_rhs))
        if pool:
            self.pool.append((name, list(shape)))
        return name, list(shape)

    def lit(self, value):
        return value if self.float else int(value)

    def positive(self, v):
        """x*x + 1: positive (for log, sqrt, pow, div)."""
        sq = self.emit("mul", self.k("mul", v[0], v[0]),
                       "%s * %s" % (v[0], v[0]), v[1])
        one = self.lit(1.0)
        return self.emit("add", self.k("add", sq[0], one),
                         "%s + %s(%r)" % (sq[0], self.np(), one), v[1])

    def np(self):
        return "np." + NP[self.dtype].__name__

    def bounded(self, v):
        """tanh(x) for floats, x itself for integers."""
        if not self.float:
            return v
        return self.emit("tanh", self.k("tanh", v[0]), "tanh(%s)" % v[0], v[1])

    # -- random steps ----------------------------------------------------
    def unary(self):
        v = self.pick()
        ops = ["neg", "abs"] + (["exp", "log", "sqrt", "tanh", "sigmoid"]
                                if self.float else [])
        op = self.rng.choice(ops)
        if op in ("log", "sqrt"):
            v = self.positive(v)
        if op == "exp":
            v = self.bounded(v)
        py = {"neg": "-%s", "abs": "np.abs(%s)", "exp": "np.exp(%s)",
              "log": "np.log(%s)", "sqrt": "np.sqrt(%s)", "tanh": "tanh(%s)",
              "sigmoid": "sigmoid(%s)"}[op]
        return self.emit(op, self.k(op, v[0]), py % v[0], v[1])

    def binary(self):
        a = self.pick()
        others = [v for v in self.pool if self.broadcast(a[1], v[1]) is not None]
        b = self.rng.choice(others)
        self.used.add(b[0])
        shape = self.broadcast(a[1], b[1])
        ops = ["add", "sub", "mul", "div", "max", "min", "literal"]
        if self.float:
            ops.append("pow")
        op = self.rng.choice(ops)
        if op == "literal":
            c = self.lit(self.rng.choice([0.5, 2.0, -1.5, 3.0]))
            kind = self.rng.choice(["mul", "add", "sub"])
            sym = {"mul": "*", "add": "+", "sub": "-"}[kind]
            return self.emit(kind, self.k(kind, a[0], c),
                             "%s %s %s(%r)" % (a[0], sym, self.np(), c), a[1])
        if op == "div":
            b = self.positive(b)
        if op == "pow":
            a = self.positive(a)
            b = self.bounded(b)
        py = {"add": "%s + %s", "sub": "%s - %s", "mul": "%s * %s",
              "div": "idiv(%s, %s)", "max": "np.maximum(%s, %s)",
              "min": "np.minimum(%s, %s)", "pow": "np.power(%s, %s)"}[op]
        return self.emit(op, self.k(op, a[0], b[0]), py % (a[0], b[0]), shape)

    def select(self):
        a = self.pick()
        others = [v for v in self.pool if self.broadcast(a[1], v[1]) is not None]
        b = self.rng.choice(others)
        shape = self.broadcast(a[1], b[1])
        cmp = self.rng.choice(["eq", "ne", "gt", "lt", "ge", "le"])
        # The ufuncs: `a == b` gives a plain False on shapes that do not
        # broadcast (numpy 1.24) instead of raising.
        pyc = {"eq": "equal", "ne": "not_equal", "gt": "greater", "lt": "less",
               "ge": "greater_equal", "le": "less_equal"}[cmp]
        c = self.emit(cmp, self.k(cmp, a[0], b[0]),
                      "np.%s(%s, %s)" % (pyc, a[0], b[0]), shape, pool=False)
        # A number as a branch (a weak literal) half of the time.
        if self.rng.random() < 0.5:
            lit = self.lit(self.rng.choice([0.0, -2.0, 0.25]))
            return self.emit("select", self.k("select", c[0], a[0], lit),
                             "np.where(%s, %s, %s(%r))" % (c[0], a[0], self.np(),
                                                           lit), shape)
        return self.emit("select", self.k("select", c[0], a[0], b[0]),
                         "np.where(%s, %s, %s)" % (c[0], a[0], b[0]), shape)

    def reduction(self):
        v = self.pick()
        if not v[1]:
            return self.unary()
        ops = ["sum", "max", "min"] + (["mean"] if self.float else [])
        op = self.rng.choice(ops)
        rank = len(v[1])
        count = self.rng.choice([0] + list(range(1, rank + 1)) * 2)
        axes = sorted(self.rng.sample(range(rank), count))
        shape = [d for i, d in enumerate(v[1]) if i not in axes]
        name = {"sum": "sum", "mean": "mean", "max": "reduce_max",
                "min": "reduce_min"}[op]
        py = {"sum": "fsum(%s, %r)", "mean": "mean(%s, %r)",
              "max": "np.max(%s, axis=%r)", "min": "np.min(%s, axis=%r)"}[op]
        attr = "[%s]" % ", ".join(map(str, axes))
        if self.rng.random() < 0.2 and count == rank:
            return self.emit(name, self.k(op, v[0]),
                             py % (v[0], tuple(range(rank))), [])
        return self.emit(name, self.k(op, v[0], axes=attr),
                         py % (v[0], tuple(axes)), shape)

    def layout(self):
        v = self.pick(rank=2)
        if v is None:
            return self.unary()
        m, n = v[1]
        if self.rng.random() < 0.5:
            return self.emit("transpose", self.k("transpose", v[0], perm="[1, 0]"),
                             "%s.transpose(1, 0)" % v[0], [n, m])
        shape = self.rng.choice([[m * n], [n, m], [1, m * n], [-1], [-1, m]])
        out = [d if d != -1 else m * n // (m if len(shape) == 2 else 1)
               for d in shape]
        return self.emit("reshape", self.k("reshape", v[0], shape=str(shape)),
                         "%s.reshape(%s)" % (v[0], out), out)

    def matmul(self):
        v = self.pick(rank=2)
        if v is None:
            return self.unary()
        w = self.param([v[1][1], self.rng.randint(1, 5)])
        return self.emit("matmul", self.k("matmul", v[0], w[0]),
                         "(%s.astype(np.float64) @ %s.astype(np.float64)).astype(%s)"
                         % (v[0], w[0], self.np()) if self.float else
                         "%s @ %s" % (v[0], w[0]),
                         [v[1][0], w[1][1]])

    def conv1d(self):
        if not self.float:
            return self.matmul()
        v = self.pick(rank=2, min_dims=[4, 1])
        if v is None:
            v = self.param([self.rng.randint(6, 14), self.rng.randint(1, 3)])
        length, channels = v[1]
        taps = self.rng.randint(1, min(5, length))
        stride = self.rng.randint(1, 3)
        # Output channels that fill no vector, one, or one and a bit (masked
        # remainders of air-vectorize-conv1d).
        out = self.rng.choice([1, 2, 3, 5, 16, 17, 37])
        w = self.param([taps, channels, out])
        return self.emit("conv1d", self.k("conv1d", v[0], w[0], stride=stride),
                         "conv1d(%s, %s, %d)" % (v[0], w[0], stride),
                         [(length - taps) // stride + 1, out])

    def cast(self):
        v = self.pick()
        if self.float:
            other = "f32" if self.dtype == "f64" else "f64"
            c = self.emit("cast", self.k("cast", v[0], dtype=other),
                          "%s.astype(np.%s)" % (v[0], NP[other].__name__), v[1],
                          pool=False)
            return self.emit("cast", self.k("cast", c[0], dtype=self.dtype),
                             "%s.astype(%s)" % (c[0], self.np()), v[1])
        c = self.emit("cast", self.k("cast", v[0], dtype="f64"),
                      "%s.astype(np.float64)" % v[0], v[1], pool=False)
        h = self.emit("mul", self.k("mul", c[0], 0.75), "%s * 0.75" % c[0], v[1],
                      pool=False)
        return self.emit("cast", self.k("cast", h[0], dtype="i32"),
                         "trunc_int(%s, np.int32)" % h[0], v[1])

    def call(self):
        a = self.pick()
        name = "h%d_%d" % (self.index, len(self.helpers))
        self.helpers.append(
            "function %s(%%x, %%y) {\n"
            "    %%0 = kernel(mul, %%x, %%y)\n"
            "    %%1 = kernel(sub, %%0, %%x)\n"
            "    ret %%1\n}\n" % name)
        b = self.param(a[1]) if self.rng.random() < 0.5 else a
        return self.emit("call", "call %s(%%%s, %%%s)" % (name, a[0], b[0]),
                         "%s * %s - %s" % (a[0], b[0], a[0]), a[1])

    def generate(self):
        kind = self.rng.choice(["elementwise", "elementwise", "reduce",
                                "matmul", "conv1d", "layout", "mixed"])
        if kind == "conv1d" and not self.float:
            kind = "matmul"
        self.kind = kind
        rs = self.rng.randint
        if kind in ("matmul", "layout"):
            m, n = rs(1, 6), rs(2, 6)
            self.param([m, n])
            self.param([n])
            if self.rng.random() < 0.5:
                self.param([m, 1])
        elif kind == "conv1d":
            # Long enough for several register blocks of rows.
            self.param([rs(6, 40), rs(1, 3)])
        elif kind == "reduce":
            dims = [rs(2, 5) for _ in range(3)]
            self.param(dims)
            self.param(dims[1:])
            self.param([])
        else:
            m, n = rs(2, 6), rs(2, 6)
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
                           self.layout, self.matmul, self.call, self.cast]}[kind]
        for _ in range(rs(2, 6)):
            self.rng.choice(steps)()
        if kind in ("matmul", "conv1d") and not {"matmul", "conv1d"} & set(
                self.kernel_of.values()):
            (self.matmul if kind == "matmul" else self.conv1d)()
        # Results: the last value, and sometimes one more.
        self.kernels = set()  # those the results need: numpy_fn()
        self.results = [self.pool[-1]]
        if self.rng.random() < 0.3 and len(self.pool) > 1:
            other = self.rng.choice(self.pool[:-1])
            if other[0] != self.results[0][0]:
                self.results.append(other)
        # Sizes: any size but 1 may be dynamic (a `?` is never stretched).
        for _, shape in self.params:
            self.dynamic.append([d != 1 and self.rng.random() < 0.4
                                 for d in shape])

    def text(self):
        def ty(shape, dyn):
            return "%s[%s]" % (self.dtype, ", ".join(
                "?" if q else str(d) for d, q in zip(shape, dyn)))
        params = ", ".join("%%%s: %s" % (n, ty(s, q)) for (n, s), q in
                           zip(self.params, self.dynamic))
        return "".join(self.helpers) + "function f%d(%s) {\n%s\n    ret %s\n}\n" % (
            self.index, params, "\n".join(self.air),
            ", ".join("%" + r[0] for r in self.results))

    def numpy_fn(self):
        # Only what the results depend on: the compiler drops dead kernels,
        # and with them what they would require of the sizes.
        needed = {r[0] for r in self.results}
        lines = []
        for line in reversed(self.py):
            name, rhs = line.strip().split(" = ", 1)
            if name in needed:
                lines.append(line)
                self.kernels.add(self.kernel_of[name])
                needed |= set(re.findall(r"\b[vp]\d+\b", rhs))
        src = "def fn(%s):\n%s\n    return [%s]\n" % (
            ", ".join(n for n, _ in self.params), "\n".join(lines[::-1]),
            ", ".join(r[0] for r in self.results))
        env = dict(ENV)
        exec(src, env)
        return env["fn"], src


# -- arguments in every layout --------------------------------------------
def view_of(a, how, rng):
    """`a`'s values as a view of the layout `how` (a fresh buffer)."""
    if how == "transposed" and a.ndim >= 2:
        perm = list(range(a.ndim))[::-1]
        return np.array(a.transpose(perm), order="C").transpose(perm)
    if how == "strided" and a.ndim >= 1:
        big = np.zeros(tuple(2 * d + 1 for d in a.shape), dtype=a.dtype)
        index = tuple(slice(1, 1 + 2 * d, 2) for d in a.shape)
        big[index] = a
        return big[index]
    if how == "offset":
        pad = rng.randint(1, 7)
        buf = np.zeros(a.size + pad + 3, dtype=a.dtype)
        v = buf[pad:pad + a.size].reshape(a.shape)
        v[...] = a
        return v
    if how == "reversed" and a.ndim >= 1:
        return np.array(a[::-1], order="C")[::-1]
    return np.array(a, order="C")  # (np.ascontiguousarray makes 0-d 1-d)


LAYOUTS = ["contiguous", "transposed", "strided", "offset", "reversed"]


def random_input(dtype, shape, data_rng):
    if dtype == "i32":
        return data_rng.integers(-4, 5, size=shape).astype(np.int32)
    return data_rng.uniform(-1, 1, size=shape).astype(NP[dtype])


def compare(got, want, dtype):
    if got.shape != want.shape:
        return float("inf")
    if dtype == "i32":
        return 0.0 if np.array_equal(got, want) else float("inf")
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1.0)
    if not np.all(np.isfinite(want)):
        return 0.0 if np.array_equal(np.isnan(got), np.isnan(want)) else 1.0
    return float(np.max(np.abs(got.astype(np.float64) - want))) / scale \
        if want.size else 0.0


SENTINEL = {"i32": -77777, "f32": -7.5e30, "f64": -7.5e300}


def run_call(fn, p, inputs, out_shapes, layouts, rng):
    """Calls fn with inputs/outputs in `layouts`; returns (status, outputs,
    whether anything outside the outputs' views was written)."""
    dtype = NP[p.dtype]
    args = [view_of(a, l, rng) for a, l in zip(inputs, layouts)]
    outs, roots = [], []
    for shape, l in zip(out_shapes, layouts[len(inputs):]):
        o = view_of(np.full(shape, SENTINEL[p.dtype], dtype=dtype), l, rng)
        root = o
        while isinstance(root.base, np.ndarray):
            root = root.base
        roots.append((root, root.copy(), o))
        outs.append(o)
    status = call_status(fn, args, outs)
    stray = False
    for root, before, o in roots:
        # Elements inside the view may change; nothing else in its buffer.
        changed = (root != before).reshape(-1)
        inside = np.zeros(root.size, dtype=bool)
        start = (o.ctypes.data - root.ctypes.data) // o.itemsize
        pos = np.array([start])
        if o.ndim:
            idx = np.indices(o.shape).reshape(o.ndim, -1)
            pos = start + sum(i * (s // o.itemsize)
                              for i, s in zip(idx, o.strides))
        inside[pos] = True
        stray |= bool(np.any(changed & ~inside))
    return status, [np.array(o) for o in outs], stray


def main():
    args = parse_args(count=300, seed=14, chunk=25)

    rng = random.Random(args.seed)
    programs = []
    for i in range(args.count):
        p = Program(i, rng, ["f32", "f64", "i32"][i % 3])
        p.generate()
        programs.append(p)
    files = []
    for start in range(0, len(programs), args.chunk):
        air = os.path.join(args.workdir, "programs%d.air" % start)
        with open(air, "w") as f:
            for p in programs[start:start + args.chunk]:
                f.write(p.text())
        files.append(air)
    so = build_library(args.airc, args.cc, files,
                       os.path.join(args.workdir, "programs.so"), args.jobs)
    if so is None:
        return 1

    stats = {"calls": 0, "layout calls": 0, "dynamic": 0, "static": 0,
             "size errors": 0, "size changes accepted": 0}
    kinds, kernels, worst = {}, set(), {"f32": 0.0, "f64": 0.0, "i32": 0.0}
    tol = {"f32": 1e-4, "f64": 1e-9, "i32": 0.0}
    failures = 0
    for p in programs:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
        if any(any(d) for d in p.dynamic):
            stats["dynamic"] += 1
        else:
            stats["static"] += 1
        fn = getattr(so, "f%d" % p.index)
        ref, src = p.numpy_fn()
        kernels |= p.kernels
        data_rng = np.random.default_rng(1000 + p.index)
        call_rng = random.Random(p.index)
        inputs = [random_input(p.dtype, s, data_rng) for _, s in p.params]
        # An input constant along an axis, passed as a broadcast view.
        broadcast_input = None
        for i, a in enumerate(inputs):
            if a.ndim and a.shape[0] > 1 and call_rng.random() < 0.3:
                inputs[i] = np.ascontiguousarray(
                    np.broadcast_to(a[:1], a.shape))
                broadcast_input = i
                break
        with np.errstate(all="ignore"):
            want = ref(*inputs)
        out_shapes = [w.shape for w in want]
        problems = []
        n = len(inputs) + len(want)
        plans = [["contiguous"] * n] + [
            [call_rng.choice(LAYOUTS) for _ in range(n)] for _ in range(2)]
        for plan in plans:
            args_in = list(inputs)
            status, got, stray = run_call(fn, p, args_in, out_shapes, plan,
                                          call_rng)
            if broadcast_input is not None and plan is not plans[0]:
                a = inputs[broadcast_input]
                bview = np.broadcast_to(a[:1], a.shape)
                args_b = list(inputs)
                args_b[broadcast_input] = bview
                outs = [np.zeros(s, dtype=NP[p.dtype]) for s in out_shapes]
                st2 = call_status(fn, args_b, outs)
                if st2 != 0:
                    problems.append(("broadcast view status", st2))
                for g, w in zip(outs, want):
                    e = compare(g, w, p.dtype)
                    if not e <= tol[p.dtype]:
                        problems.append(("broadcast view", e))
            stats["calls"] += 1
            if plan is not plans[0]:
                stats["layout calls"] += 1
            if status != 0:
                problems.append((plan, "status", status))
                continue
            if stray:
                problems.append((plan, "wrote outside an output view"))
            for j, (g, w) in enumerate(zip(got, want)):
                e = compare(g, w, p.dtype)
                worst[p.dtype] = max(worst[p.dtype], e)
                if not e <= tol[p.dtype]:
                    problems.append((plan, "result %d" % j, e))
        # Changed sizes: numpy decides whether the program still makes sense.
        dyn = [(i, d) for i, q in enumerate(p.dynamic) for d, x in enumerate(q) if x]
        changes = []
        if dyn:
            i, d = call_rng.choice(dyn)
            changes.append(("dynamic", i, d))
        static = [(i, d) for i, (_, s) in enumerate(p.params)
                  for d in range(len(s)) if not p.dynamic[i][d]]
        if static:
            i, d = call_rng.choice(static)
            changes.append(("static", i, d))
        for what, i, d in changes:
            shapes = [list(s) for _, s in p.params]
            shapes[i][d] += call_rng.choice([-1, 1]) if shapes[i][d] > 2 else 1
            changed = [random_input(p.dtype, s, data_rng) for s in shapes]
            try:
                with np.errstate(all="ignore"):
                    want2 = ref(*changed)
                valid = what == "dynamic"
            except (ValueError, IndexError):
                want2, valid = None, False
            if valid and any(w.shape != s for w, s in zip(want2, out_shapes)) \
                    and any(w.size == 0 for w in want2):
                valid = False
            if valid:
                status, got, stray = run_call(
                    fn, p, changed, [w.shape for w in want2],
                    ["contiguous"] * n, call_rng)
                stats["size changes accepted"] += 1
                if status != 0:
                    problems.append(("changed %s size" % what, "status", status))
                else:
                    for g, w in zip(got, want2):
                        e = compare(g, w, p.dtype)
                        if not e <= tol[p.dtype]:
                            problems.append(("changed %s size" % what, e))
            else:
                status, got, stray = run_call(fn, p, changed, out_shapes,
                                              ["contiguous"] * n, call_rng)
                stats["size errors"] += 1
                if status != 1:
                    problems.append(("mismatched %s size" % what, "status",
                                     status))
                elif any(np.any(g != NP[p.dtype](SENTINEL[p.dtype])) for g in got):
                    problems.append(("mismatched %s size" % what,
                                     "an output was written"))
        # An output of the wrong size.
        j = call_rng.randrange(len(want))
        if want[j].ndim:
            bad = list(out_shapes)
            bad[j] = tuple(s + 1 if k == 0 else s for k, s in enumerate(bad[j]))
            status, got, _ = run_call(fn, p, inputs, bad, ["contiguous"] * n,
                                      call_rng)
            stats["size errors"] += 1
            if status != 1 or any(np.any(g != NP[p.dtype](SENTINEL[p.dtype])) for g in got):
                problems.append(("wrong output size", "status", status))
        if problems:
            failures += 1
            print("MISMATCH program %d (%s, %s): %s" % (p.index, p.kind, p.dtype,
                                                        problems))
            print(p.text())
            print(src)
    missing = [k for k in KERNELS if k not in kernels]
    print("%d programs (%s), %d with dynamic sizes, %d static" % (
        len(programs), ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
        stats["dynamic"], stats["static"]))
    print("%d calls, %d with transposed/strided/offset/reversed arguments; "
          "%d size changes refused with status 1, %d accepted" % (
              stats["calls"], stats["layout calls"], stats["size errors"],
              stats["size changes accepted"]))
    print("kernels not generated: %s" % (" ".join(missing) or "none"))
    print("worst relative error: f64 %.2e, f32 %.2e, i32 %.2e" % (
        worst["f64"], worst["f32"], worst["i32"]))
    print("%d mismatches" % failures)
    return 1 if failures or missing else 0


if __name__ == "__main__":
    sys.exit(main())
