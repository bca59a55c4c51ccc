"""The kernels' blocked and fused paths against numpy, called through the
ABI with every layout it accepts (docs/AirABI.md#descriptors), on shapes the
random programs of test/Dialect/Air/differential.test are too small to
reach: matmul with K over one 256-deep cache block and edge tiles on both
sides, conv1d with many register blocks and channel remainders, row-wise
kernels (softmax, layernorm, logsumexp) over air-fuse-rows' blocks and the
two-level row sums, 3-D reductions over each axis, empty and size-1
dimensions, and NaN and infinities flowing through the fused epilogues.

One unum-airc build with dynamic sizes (so one object serves every shape);
inputs and outputs are passed contiguous, transposed in memory (column
major), reversed along every axis (negative strides), every other element
at an offset (strides 2, offset > 0), and for inputs constant along axis 0
as a numpy broadcast view (stride 0). Each result must match numpy (f32
loosely, integers exactly, NaN where numpy has NaN) and nothing outside an
output view may be written.
"""
import os
import sys

import numpy as np
import pytest

from conftest import BINARY_DIR, SOURCE_DIR

sys.path.insert(0, os.path.join(SOURCE_DIR, "test", "Dialect", "Air", "Inputs"))
from air_ctypes import call_status, compile_library  # noqa: E402

AIRC = os.path.join(BINARY_DIR, "bin", "unum-airc")

AIR = """
function mm(%a: f32[M, K], %b: f32[K, N]) { %0 = kernel(matmul, %a, %b) ret %0 }
function mmd(%a: f64[M, K], %b: f64[K, N]) { %0 = kernel(matmul, %a, %b) ret %0 }
function mmi(%a: i32[M, K], %b: i32[K, N]) { %0 = kernel(matmul, %a, %b) ret %0 }
function mmbr(%a: f32[M, K], %b: f32[K, N], %c: f32[N]) {
    %0 = kernel(matmul, %a, %b)
    %1 = kernel(add, %0, %c)
    %2 = kernel(max, %1, 0)
    ret %2
}
function mmrow(%a: f32[M, K], %b: f32[K, N], %c: f32[M, 1]) {
    %0 = kernel(matmul, %a, %b)
    %1 = kernel(mul, %0, %c)
    %2 = kernel(min, %1, 0.5)
    %3 = kernel(tanh, %2)
    ret %0, %3
}
function conv(%x: f32[L, C], %w: f32[K, C, O]) { %0 = kernel(conv1d, %x, %w) ret %0 }
function conv3br(%x: f32[L, C], %w: f32[K, C, O], %b: f32[O]) {
    %0 = kernel(conv1d, %x, %w, stride=3)
    %1 = kernel(add, %0, %b)
    %2 = kernel(max, %1, 0)
    ret %2
}
function softmax(%x: f32[R, C]) {
    %m = kernel(max, %x, axes=[1])
    %mm = kernel(reshape, %m, shape=[-1, 1])
    %d = kernel(sub, %x, %mm)
    %e = kernel(exp, %d)
    %s = kernel(sum, %e, axes=[1])
    %ss = kernel(reshape, %s, shape=[-1, 1])
    %o = kernel(div, %e, %ss)
    ret %o
}
function lnorm(%x: f32[R, C]) {
    %m = kernel(mean, %x, axes=[1])
    %mm = kernel(reshape, %m, shape=[-1, 1])
    %d = kernel(sub, %x, %mm)
    %q = kernel(mul, %d, %d)
    %v = kernel(mean, %q, axes=[1])
    %vv = kernel(reshape, %v, shape=[-1, 1])
    %ve = kernel(add, %vv, 0.00001)
    %sd = kernel(sqrt, %ve)
    %o = kernel(div, %d, %sd)
    ret %o
}
function lse(%x: f32[R, C]) {
    %m = kernel(max, %x, axes=[1])
    %mm = kernel(reshape, %m, shape=[-1, 1])
    %d = kernel(sub, %x, %mm)
    %e = kernel(exp, %d)
    %s = kernel(sum, %e, axes=[1])
    %l = kernel(log, %s)
    %o = kernel(add, %l, %m)
    ret %o
}
function red3(%x: f32[A, B, C]) {
    %0 = kernel(sum, %x, axes=[2])
    %1 = kernel(mean, %x, axes=[0])
    %2 = kernel(sum, %x, axes=[1])
    %3 = kernel(min, %x, axes=[0, 2])
    ret %0, %1, %2, %3
}
function ew(%a: f32[A, B, C], %b: f32[B, 1], %c: f32[]) {
    %0 = kernel(mul, %a, %b)
    %1 = kernel(add, %0, %c)
    %2 = kernel(gt, %1, 0.5)
    %3 = kernel(select, %2, %1, %a)
    ret %3
}
function tr(%a: f64[A, B, C]) {
    %0 = kernel(transpose, %a, perm=[2, 0, 1])
    %1 = kernel(abs, %0)
    ret %1
}
"""

LAYOUTS = ["contiguous", "column-major", "reversed", "strided", "broadcast"]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    if not os.path.exists(AIRC):
        pytest.skip("no %s" % AIRC)
    return compile_library(AIRC, AIR, tmp_path_factory.mktemp("layouts") / "k")


def view(a, layout, output=False):
    """`a`'s values in `layout`, in a fresh buffer (an output: no stride 0)."""
    if a.ndim == 0 or layout == "contiguous" or (output and layout == "broadcast"):
        return np.array(a, order="C")
    if layout == "column-major":
        return np.array(a, order="F")
    if layout == "reversed":
        every = tuple(slice(None, None, -1) for _ in a.shape)
        return np.ascontiguousarray(a[every])[every]
    if layout == "strided":
        big = np.zeros(tuple(2 * d + 1 for d in a.shape), a.dtype)
        inner = tuple(slice(1, 1 + 2 * d, 2) for d in a.shape)
        big[inner] = a
        return big[inner]
    return np.broadcast_to(a[:1], a.shape) if a.shape[0] else np.array(a)


def root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def inside(o):
    """Which elements of `o`'s buffer its view addresses."""
    buf = root(o)
    mask = np.zeros(buf.size, dtype=bool)
    start = (o.ctypes.data - buf.ctypes.data) // o.itemsize
    if o.size:
        idx = np.indices(o.shape).reshape(o.ndim, -1)
        mask[start + sum(i * (s // o.itemsize) for i, s in zip(idx, o.strides))] = True
    return mask


def call(lib, name, inputs, out_specs, layout):
    """Calls `name` with `inputs` and outputs in `layout` (buffers full of
    -77); returns the inputs as passed and the outputs, after checking the
    status and that nothing outside the outputs' views was written."""
    args = [view(a, layout) for a in inputs]
    outs = [view(np.full(shape, -77, dtype), layout, output=True)
            for shape, dtype in out_specs]
    for o in outs:
        root(o)[...] = -77
    assert call_status(getattr(lib, name), args, outs) == 0
    for o in outs:
        outside = root(o).reshape(-1)[~inside(o)]
        assert np.all(outside == -77), "wrote outside an output view"
    return [np.array(a) for a in args], [np.array(o) for o in outs]


def close(got, want, tol):
    want = np.asarray(want, np.float64)
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    finite = ~nan & np.isfinite(want)
    np.testing.assert_array_equal(got[~nan & ~finite], want[~nan & ~finite])
    err = np.abs(got[finite] - want[finite])
    assert np.all(err <= tol * np.maximum(1, np.abs(want[finite])))


def with_specials(x, rng):
    """Some NaN and infinities at random places."""
    x = x.copy()
    if x.size > 8:
        for v in (np.nan, np.inf, -np.inf):
            x.flat[rng.integers(0, x.size)] = v
    return x


F64 = np.float64


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("m,k,n", [(29, 513, 47), (1, 300, 1), (15, 33, 33),
                                   (0, 5, 4), (3, 0, 4), (97, 260, 129)])
def test_matmul(lib, layout, m, k, n):
    rng = np.random.default_rng(m * 1000 + k + n)
    a = rng.integers(-3, 4, (m, k)).astype(np.float32)
    b = rng.integers(-3, 4, (k, n)).astype(np.float32)
    # Small integers: every dtype's sum is exact in any order.
    for name, dt in (("mm", np.float32), ("mmd", np.float64), ("mmi", np.int32)):
        (a2, b2), (o,) = call(lib, name, [a.astype(dt), b.astype(dt)],
                              [((m, n), dt)], layout)
        np.testing.assert_array_equal(o, (a2.astype(F64) @ b2.astype(F64)).astype(dt))
    a = with_specials(rng.standard_normal((m, k)).astype(np.float32), rng)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal(n).astype(np.float32)
    with np.errstate(all="ignore"):
        (a2, b2, c2), (o,) = call(lib, "mmbr", [a, b, c],
                                  [((m, n), np.float32)], layout)
        close(o, np.maximum(a2.astype(F64) @ b2 + c2, 0), 1e-4)
        r = rng.standard_normal((m, 1)).astype(np.float32)
        (a2, b2, r2), (o1, o2) = call(lib, "mmrow", [a, b, r],
                                      [((m, n), np.float32)] * 2, layout)
        ab = a2.astype(F64) @ b2
        close(o1, ab, 1e-4)
        close(o2, np.tanh(np.minimum(ab * r2, 0.5)), 1e-4)


def conv_ref(x, w, s):
    taps = w.shape[0]
    n = (x.shape[0] - taps) // s + 1
    out = np.zeros((n, w.shape[2]))
    for t in range(taps):
        out += x[t:t + (n - 1) * s + 1:s].astype(F64) @ w[t].astype(F64)
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("length,c,taps,o", [(257, 13, 4, 50), (100, 32, 9, 32),
                                            (9, 3, 9, 17), (70, 1, 2, 1)])
def test_conv1d(lib, layout, length, c, taps, o):
    rng = np.random.default_rng(length + c + taps + o)
    x = with_specials(rng.standard_normal((length, c)).astype(np.float32), rng)
    w = rng.standard_normal((taps, c, o)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    with np.errstate(all="ignore"):
        n = length - taps + 1
        (x2, w2), (out,) = call(lib, "conv", [x, w], [((n, o), np.float32)], layout)
        close(out, conv_ref(x2, w2, 1), 1e-4)
        n = (length - taps) // 3 + 1
        (x2, w2, b2), (out,) = call(lib, "conv3br", [x, w, b],
                                    [((n, o), np.float32)], layout)
        close(out, np.maximum(conv_ref(x2, w2, 3) + b2, 0), 1e-4)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("rows,cols", [(33, 300), (200, 1024), (2, 4099),
                                       (7, 127), (1, 1), (0, 5)])
def test_row_kernels(lib, layout, rows, cols):
    rng = np.random.default_rng(rows * 7 + cols)
    x = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
    x = with_specials(x, rng)
    if rows > 4:
        x[2, :] = -np.inf
        x[3, :] = 1e30
    with np.errstate(all="ignore"):
        (x2,), (sm,) = call(lib, "softmax", [x], [((rows, cols), np.float32)], layout)
        x64 = x2.astype(F64)
        mx = x64.max(axis=1, keepdims=True) if rows else np.zeros((0, 1))
        e = np.exp(x64 - mx)
        close(sm, e / e.sum(axis=1, keepdims=True), 1e-5)
        (x2,), (lse,) = call(lib, "lse", [x], [((rows,), np.float32)], layout)
        close(lse, np.log(e.sum(axis=1)) + mx[:, 0], 1e-5)
        (x2,), (ln,) = call(lib, "lnorm", [x], [((rows, cols), np.float32)], layout)
        d = x64 - x64.mean(axis=1, keepdims=True)
        close(ln, d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5), 2e-4)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 5, 1000), (40, 7, 9), (2, 2, 0), (0, 3, 4),
                                   (1, 1, 1), (3, 50, 260)])
def test_reductions_and_elementwise(lib, layout, shape):
    rng = np.random.default_rng(sum(shape))
    x = with_specials(rng.standard_normal(shape).astype(np.float32), rng)
    a, b, c = shape
    with np.errstate(all="ignore"):
        if a * c:  # (min over an empty axis: numpy has no value)
            outs = [((a, b), np.float32), ((b, c), np.float32),
                    ((a, c), np.float32), ((b,), np.float32)]
            (x2,), got = call(lib, "red3", [x], outs, layout)
            x64 = x2.astype(F64)
            tol = 1e-5 * max(1, c)
            close(got[0], x64.sum(axis=2), tol)
            close(got[1], x64.mean(axis=0), tol)
            close(got[2], x64.sum(axis=1), tol)
            close(got[3], x64.min(axis=(0, 2)), 0)
        bb = rng.standard_normal((b, 1)).astype(np.float32)
        cc = np.array(0.25, np.float32)
        (x2, b2, c2), (o,) = call(lib, "ew", [x, bb, cc], [(shape, np.float32)], layout)
        v = x2 * b2 + c2
        close(o, np.where(v > 0.5, v, x2), 0)
        t = np.abs(rng.standard_normal(shape))
        (t2,), (o,) = call(lib, "tr", [t], [((c, a, b), F64)], layout)
        close(o, np.abs(np.transpose(t2, (2, 0, 1))), 0)
