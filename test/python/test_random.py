"""Seeded random Python functions, jitted and compared with numpy running
the very same function on the very same arrays.

Each function is one of several kinds (elementwise chains, broadcasting,
reductions with axes and keepdims, matmul, transposes and reshapes, tuples
in and out, calls of other jitted functions, Python scalar arguments), in
float32, float64 or int32, and is called with its arguments contiguous,
transposed (or reversed), strided and offset: four layouts of one signature,
so one compile. The result must have numpy's dtype and shape, and its values
within a tolerance of the dtype (exact for integers).
"""
import random
import re

import numpy as np
import pytest

import unum

N_FUNCTIONS = 168
DTYPES = ["float32", "float64", "int32"]
KINDS = ["elementwise", "broadcast", "reduce", "matmul", "layout", "tuple", "call",
         "scalar"]


class Gen:
    """Random expressions over named arrays of known shapes."""

    def __init__(self, rng, dtype):
        self.rng, self.dtype = rng, dtype
        self.is_int = dtype == "int32"

    def const(self):
        if self.is_int:
            return str(self.rng.randint(1, 3))
        return repr(round(self.rng.uniform(0.25, 2.0), 2))

    def leaf(self, names):
        if self.rng.random() < 0.2:
            return self.const()
        return self.rng.choice(names)

    def expr(self, names, depth):
        """An expression that reads at least one of `names`."""
        for _ in range(100):
            e = self.any_expr(names, depth)
            if any(re.search(r"\b%s\b" % n.split(".")[0], e) for n in names):
                return e
        return names[0]

    def any_expr(self, names, depth):
        r = self.rng
        if depth == 0:
            return self.leaf(names)
        a = self.any_expr(names, depth - 1)
        b = self.any_expr(names, depth - 1)
        choices = ["+", "-", "*", "max", "min", "neg", "where", "abs", "sq"]
        if not self.is_int:
            choices += ["/", "exp", "log", "sqrt", "tanh", "pow"]
        else:
            choices += ["div"]
        op = r.choice(choices)
        if op in "+-*":
            return "(%s %s %s)" % (a, op, b)
        if op == "/":
            return "(%s / (np.abs(%s) + 1.0))" % (a, b)
        if op == "div":  # true division of integers gives float64
            return "(%s / (np.abs(%s) + 1))" % (a, b)
        if op == "max":
            return "np.maximum(%s, %s)" % (a, b)
        if op == "min":
            return "np.minimum(%s, %s)" % (a, b)
        if op == "neg":
            return "(-%s)" % a
        if op == "abs":
            return "abs(%s)" % a if r.random() < 0.5 else "np.abs(%s)" % a
        if op == "sq":
            return "(%s ** 2)" % a
        if op == "where":
            c = self.any_expr(names, 0)
            cmp = r.choice([">", "<", ">=", "<=", "==", "!="])
            return "np.where(%s %s %s, %s, %s)" % (a, cmp, c, b, self.any_expr(names, 0))
        if op == "exp":
            return "np.exp(np.tanh(%s))" % a
        if op == "log":
            return "np.log(np.abs(%s) + 1.0)" % a
        if op == "sqrt":
            return "np.sqrt(np.abs(%s))" % a
        if op == "tanh":
            return "np.tanh(%s)" % a
        if op == "pow":
            return "((np.abs(%s) + 0.5) ** 1.5)" % a
        raise AssertionError(op)


def build(seed):
    """(source of module, name of the function, argument specs)."""
    rng = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    dtype = DTYPES[(seed // len(KINDS)) % len(DTYPES)]
    g = Gen(rng, dtype)
    lines = ["import numpy as np", "import unum", ""]
    depth = rng.randint(1, 3)
    m, n = rng.randint(2, 5), rng.randint(2, 6)
    if kind == "elementwise":
        shape = rng.choice([(n,), (m, n), (2, m, n)])
        args = [("a", dtype, shape), ("b", dtype, shape)]
        body = ["return %s" % g.expr(["a", "b"], depth)]
    elif kind == "broadcast":
        shapes = [(m, n), (n,), (m, 1), (1, n), ()]
        args = [("a", dtype, (m, n)), ("b", dtype, rng.choice(shapes[1:])),
                ("c", dtype, rng.choice(shapes))]
        body = ["t = %s" % g.expr(["a", "b"], depth),
                "return %s" % g.expr(["t", "c"], 1)]
    elif kind == "reduce":
        shape = rng.choice([(m, n), (2, m, n)])
        nd = len(shape)
        args = [("a", dtype, shape), ("b", dtype, shape)]
        red = rng.choice(["sum", "mean", "max", "min"])
        axis = rng.choice([None, 0, 1, -1, (0, nd - 1), -nd])
        keep = rng.random() < 0.5
        e = g.expr(["a", "b"], depth - 1)
        if rng.random() < 0.5:
            r = "np.%s(%s, axis=%r, keepdims=%r)" % (red, e, axis, keep)
        else:
            r = "(%s).%s(axis=%r, keepdims=%r)" % (e, red, axis, keep)
        body = ["r = %s" % r]
        if keep and rng.random() < 0.6:
            body.append("return a - r")  # the kept axes broadcast back
        else:
            body.append("return r")
    elif kind == "matmul":
        k = rng.randint(2, 5)
        form = rng.choice(["mm", "mv", "vm", "at", "np"])
        if form == "mm":
            args = [("a", dtype, (m, k)), ("b", dtype, (k, n))]
            body = ["return %s @ b" % g.expr(["a"], depth - 1)]
        elif form == "mv":
            args = [("a", dtype, (m, k)), ("b", dtype, (k,))]
            body = ["return (a @ b) + 1"]
        elif form == "vm":
            args = [("a", dtype, (k,)), ("b", dtype, (k, n))]
            body = ["return np.matmul(a, b * 2)"]
        elif form == "at":
            args = [("a", dtype, (k, m)), ("b", dtype, (k, n))]
            body = ["return a.T @ %s" % g.expr(["b"], depth - 1)]
        else:
            args = [("a", dtype, (m, k)), ("b", dtype, (n, k))]
            body = ["return np.dot(a, b.T) - np.sum(a)"]
    elif kind == "layout":
        form = rng.choice(["T", "transpose", "reshape", "reshape2", "transpose3"])
        if form == "transpose3":
            args = [("a", dtype, (2, m, n)), ("b", dtype, (m, 2, n))]
            body = ["return np.transpose(a, (1, 0, 2)) * b"]
        elif form == "reshape2":
            args = [("a", dtype, (m, n)), ("b", dtype, (n * m,))]
            body = ["return a.reshape(-1) + b.reshape(n_, m_).T.reshape(-1)"
                    .replace("n_", str(n)).replace("m_", str(m))]
        else:
            args = [("a", dtype, (m, n)), ("b", dtype, (n, m))]
            e = g.expr(["a", "b.T"], depth - 1)
            if form == "T":
                body = ["return (%s).T" % e]
            elif form == "transpose":
                body = ["return np.transpose(%s) + a.transpose()" % e]
            else:
                body = ["return (%s).reshape(%d, %d)" % (e, n, m)]
    elif kind == "tuple":
        shape = rng.choice([(n,), (m, n)])
        args = [("t", dtype, (shape, shape)), ("c", dtype, shape)]
        body = ["a, b = t",
                "x = %s" % g.expr(["a", "c"], depth),
                "y = %s" % g.expr(["b", "x"], depth - 1),
                "return x, (y, np.sum(y))"]
    elif kind == "call":
        shape = rng.choice([(n,), (m, n)])
        args = [("a", dtype, shape), ("b", dtype, shape)]
        lines += ["@unum.jit", "def helper(x, y):",
                  "    return %s" % g.expr(["x", "y"], 1), ""]
        body = ["u = helper(a, b)", "return helper(u, %s)" % g.expr(["a"], depth - 1)]
    else:  # scalar: Python numbers as arguments are weak, as in numpy
        shape = rng.choice([(n,), (m, n)])
        s = rng.choice(["int", "float"]) if not g.is_int else "int"
        args = [("a", dtype, shape), ("s", s, ())]
        body = ["return %s" % g.expr(["a", "s"], depth)]
    params = ", ".join(a[0] for a in args)
    lines += ["@unum.jit", "def f(%s):" % params] + ["    " + b for b in body]
    return "\n".join(lines) + "\n", args


def value(rng, dtype, shape):
    if dtype == "int32":
        return rng.integers(-5, 6, size=shape).astype(np.int32)
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def views(x, layout):
    """`x`'s values in another memory layout."""
    if x.ndim == 0 or layout == "contiguous":
        return x
    if layout == "transposed":
        if x.ndim == 1:
            return np.ascontiguousarray(x[::-1])[::-1]
        return np.asfortranarray(x)
    if layout == "strided":
        big = np.zeros((2 * x.shape[0],) + x.shape[1:], x.dtype)
        big[::2] = x
        return big[::2]
    flat = np.zeros(x.size + 3, x.dtype)  # offset
    flat[3:] = x.ravel()
    return flat[3:].reshape(x.shape)


def make_args(seed, specs, layout):
    rng = np.random.default_rng(seed)
    out = []
    for name, dtype, shape in specs:
        if dtype == "int":
            out.append(int(rng.integers(1, 4)))
        elif dtype == "float":
            out.append(float(rng.uniform(0.5, 2)))
        elif name == "t":
            out.append(tuple(views(value(rng, dtype, s), layout) for s in shape))
        else:
            out.append(views(value(rng, dtype, shape), layout))
    return out


def check(got, want, dtype):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, dtype)
        return
    want_arr, got_arr = np.asarray(want), np.asarray(got)
    assert got_arr.dtype == want_arr.dtype, (got_arr.dtype, want_arr.dtype)
    assert got_arr.shape == want_arr.shape
    assert np.isscalar(got) == np.isscalar(want)
    if want_arr.dtype.kind in "iub":
        np.testing.assert_array_equal(got_arr, want_arr)
    else:
        tol = 2e-5 if want_arr.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got_arr, want_arr, rtol=tol, atol=tol)


@pytest.mark.parametrize("seed", range(N_FUNCTIONS))
def test_random_function(seed, module_from_source):
    source, specs = build(seed)
    module, _ = module_from_source("random_%d" % seed, source)
    f = module.f
    for layout in ["contiguous", "transposed", "strided", "offset"]:
        args = make_args(seed, specs, layout)
        with np.errstate(all="ignore"):
            want = f.__wrapped__(*args)
        try:
            got = f(*args)
        except unum.CompileError as e:
            pytest.fail("%s\n%s" % (e, source))
        try:
            check(got, want, specs[0][1])
        except AssertionError as e:
            raise AssertionError("%s layout: %s\n%s" % (layout, e, source))
    assert f.compile_count == 1, "the four layouts share one signature"
    if seed % 3 == 0:  # the same function with run-time sizes
        fd = unum.JitFunction(f.__wrapped__, dynamic=True)
        args = make_args(seed, specs, "contiguous")
        with np.errstate(all="ignore"):
            want = f.__wrapped__(*args)
        try:
            check(fd(*args), want, specs[0][1])
        except AssertionError as e:
            raise AssertionError("dynamic: %s\n%s" % (e, source))


def test_kinds_and_dtypes_are_all_covered():
    seen = {(KINDS[s % len(KINDS)], DTYPES[(s // len(KINDS)) % len(DTYPES)])
            for s in range(N_FUNCTIONS)}
    assert len(seen) == len(KINDS) * len(DTYPES)
