"""Kernels built for two threads give bit-identical results to one thread
(lib/Conversion/AirToLinalg/Parallel.h: threads share loops whose
iterations write disjoint elements, never a reduction), on random shapes
below and above the work thresholds (tiny and odd sizes stay on one thread,
large ones fork): matmul, conv1d (strides 1 and 2; with an elementwise
epilogue the threads share air-fuse-rows' row blocks), elementwise, row-wise
kernels (softmax, layernorm, logsumexp: air-fuse-rows' row blocks) and
reductions over axis 0 (and axes 0 and 1 of a 3-D array).

Both libraries are built by unum-airc (--num-threads=1 and 2) from the same
AIR text with dynamic sizes; each kernel is called with the same inputs
and the outputs are compared byte for byte, and with numpy (loosely)."""
import os
import sys

import numpy as np
import pytest

from conftest import BINARY_DIR, SOURCE_DIR

sys.path.insert(0, os.path.join(SOURCE_DIR, "test", "Dialect", "Air", "Inputs"))
from air_ctypes import call_status, compile_library  # noqa: E402

sys.path.insert(0, os.path.join(SOURCE_DIR, "utils", "bench"))
from air_rows_bench import AIR as ROWS_AIR  # noqa: E402

AIRC = os.path.join(BINARY_DIR, "bin", "unum-airc")

AIR = """
function mm(%a: f32[M, K], %b: f32[K, N]) {
    %0 = kernel(matmul, %a, %b)
    ret %0
}
function mm_bias_relu(%a: f64[M, K], %b: f64[K, N], %c: f64[N]) {
    %0 = kernel(matmul, %a, %b)
    %1 = kernel(add, %0, %c)
    %2 = kernel(max, %1, 0.0)
    ret %2
}
function conv(%x: f32[L, C], %w: f32[K, C, O]) {
    %0 = kernel(conv1d, %x, %w)
    ret %0
}
function conv_s2(%x: f32[L, C], %w: f32[K, C, O]) {
    %0 = kernel(conv1d, %x, %w, stride=2)
    ret %0
}
function conv_bias_relu(%x: f32[L, C], %w: f32[K, C, O], %b: f32[O]) {
    %0 = kernel(conv1d, %x, %w)
    %1 = kernel(add, %0, %b)
    %2 = kernel(max, %1, 0.0)
    ret %2
}
function conv_s2_scale(%x: f64[L, C], %w: f64[K, C, O]) {
    %0 = kernel(conv1d, %x, %w, stride=2)
    %1 = kernel(mul, %0, 0.5)
    ret %1
}
function conv_bias_relu_static(%x: f32[4096, 32], %w: f32[3, 32, 32], %b: f32[32]) {
    %0 = kernel(conv1d, %x, %w)
    %1 = kernel(add, %0, %b)
    %2 = kernel(max, %1, 0.0)
    ret %2
}
function ew(%a: f32[R, C], %b: f32[R, C]) {
    %0 = kernel(exp, %a)
    %1 = kernel(mul, %0, %b)
    %2 = kernel(add, %1, %a)
    ret %2
}
function ew_i32(%a: i32[R, C], %b: i32[C]) {
    %0 = kernel(mul, %a, %b)
    %1 = kernel(sub, %0, %a)
    ret %1
}
function colsum(%x: f32[R, C]) {
    %0 = kernel(sum, %x, axes=[0])
    ret %0
}
function colmax(%x: f32[R, C]) {
    %0 = kernel(max, %x, axes=[0])
    ret %0
}
function colmean_sq(%x: f64[R, C], %y: f64[R, C]) {
    %0 = kernel(sub, %x, %y)
    %1 = kernel(mul, %0, %0)
    %2 = kernel(mean, %1, axes=[0])
    ret %2
}
function colsum_i32(%x: i32[R, C]) {
    %0 = kernel(sum, %x, axes=[0])
    ret %0
}
function sum01(%x: f32[A, B, C]) {
    %0 = kernel(sum, %x, axes=[0, 1])
    ret %0
}
"""




def air_functions(text, names):
    """The functions called `names` in the AIR `text`."""
    blocks = ["function" + b for b in text.split("function")[1:]]
    return "".join(b for b in blocks if b.split("(")[0].split()[1] in names)


# The row kernels of the benchmark, and softmax with static sizes above the
# threshold (its loop over row blocks is parallel without a run-time test).
ROW_KERNELS = air_functions(ROWS_AIR, {"softmax", "layernorm", "logsumexp"})
AIR += ROW_KERNELS + air_functions(ROW_KERNELS, {"softmax"}).replace(
    "softmax(%x: f32[R, C])", "softmax_static(%x: f32[512, 300])")


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    if not os.path.exists(AIRC):
        pytest.skip("no %s" % AIRC)
    work = tmp_path_factory.mktemp("threads")
    return [compile_library(AIRC, AIR, work / ("k%d" % t), threads=t)
            for t in (1, 2)]


def rand(rng, shape, dtype):
    if np.dtype(dtype).kind == "i":
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 2).astype(dtype)


def run_both(libs, name, inputs, shape, dtype):
    """The kernel's result from both libraries; asserts they are
    bit-identical and returns one."""
    results = []
    for lib in libs:
        out = np.full(shape, 7, dtype=dtype)
        assert call_status(getattr(lib, name), inputs, [out]) == 0
        results.append(out)
    assert results[0].tobytes() == results[1].tobytes(), \
        "%s %s: 1 and 2 threads differ" % (name, [a.shape for a in inputs])
    return results[0]


def close(got, want, tol):
    scale = float(np.max(np.abs(want))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, scale))


# (m, k, n): tiny, odd, and above 2^20 multiply-adds (parallel); with few
# rows (fewer than two MR-row slivers per thread) the threads share N; with
# fewer than 512 rows they share each packed B block (MatmulNest.cpp's
# sharedPanelNest), over several k blocks (K > KC = 256: the two panel
# buffers in turn) in the last two.
MM = [(1, 1, 1), (3, 7, 5), (37, 37, 37), (6, 300, 17), (129, 100, 97),
      (300, 61, 301), (7, 1200, 131), (1, 2048, 700), (13, 700, 203),
      (100, 700, 70), (250, 530, 260)]


def test_matmul(libs):
    rng = np.random.default_rng(1)
    for m, k, n in MM:
        a, b = rand(rng, (m, k), np.float32), rand(rng, (k, n), np.float32)
        got = run_both(libs, "mm", [a, b], (m, n), np.float32)
        close(got, a.astype(np.float64) @ b, 1e-4)
        a, b = rand(rng, (m, k), np.float64), rand(rng, (k, n), np.float64)
        c = rand(rng, (n,), np.float64)
        got = run_both(libs, "mm_bias_relu", [a, b, c], (m, n), np.float64)
        close(got, np.maximum(a @ b + c, 0), 1e-10)


def conv_ref(x, w, s):
    taps = w.shape[0]
    lout = (x.shape[0] - taps) // s + 1
    y = np.zeros((lout, w.shape[2]))
    for k in range(taps):
        y += x[k:k + (lout - 1) * s + 1:s].astype(np.float64) @ w[k]
    return y


# (L, C, K, C_out): tiny, odd, and above 2^20 multiply-adds.
CONV = [(1, 1, 1, 1), (9, 3, 2, 5), (40, 7, 3, 17), (1000, 16, 5, 17),
        (2051, 32, 3, 33), (777, 9, 9, 37)]


@pytest.mark.parametrize("name,stride", [("conv", 1), ("conv_s2", 2)])
def test_conv1d(libs, name, stride):
    rng = np.random.default_rng(2)
    for length, c, taps, o in CONV:
        x, w = rand(rng, (length, c), np.float32), rand(rng, (taps, c, o), np.float32)
        lout = (length - taps) // stride + 1
        got = run_both(libs, name, [x, w], (lout, o), np.float32)
        close(got, conv_ref(x, w, stride), 1e-4)


# conv1d with an elementwise epilogue: air-fuse-rows blocks the rows, and
# the threads share those blocks, the epilogue included (one fork per call).
def test_conv1d_epilogue(libs):
    rng = np.random.default_rng(5)
    for length, c, taps, o in CONV + [(4100, 32, 9, 32)]:
        x, w = rand(rng, (length, c), np.float32), rand(rng, (taps, c, o), np.float32)
        b = rand(rng, (o,), np.float32)
        lout = length - taps + 1
        got = run_both(libs, "conv_bias_relu", [x, w, b], (lout, o), np.float32)
        close(got, np.maximum(conv_ref(x, w, 1) + b, 0), 1e-4)
        x, w = rand(rng, (length, c), np.float64), rand(rng, (taps, c, o), np.float64)
        lout = (length - taps) // 2 + 1
        got = run_both(libs, "conv_s2_scale", [x, w], (lout, o), np.float64)
        close(got, conv_ref(x, w, 2) * 0.5, 1e-12)
    # Static sizes above 2^20 multiply-adds: shared without a run-time test.
    x, w = rand(rng, (4096, 32), np.float32), rand(rng, (3, 32, 32), np.float32)
    b = rand(rng, (32,), np.float32)
    got = run_both(libs, "conv_bias_relu_static", [x, w, b], (4094, 32),
                   np.float32)
    close(got, np.maximum(conv_ref(x, w, 1) + b, 0), 1e-4)


# (rows, columns): tiny, odd, and above 2^17 elements.
ROWS = [(1, 1), (1, 7), (5, 33), (37, 300), (363, 365), (1001, 131),
        (3, 50000), (70000, 3)]


def test_elementwise_and_rows(libs):
    rng = np.random.default_rng(3)
    for r, c in ROWS:
        a, b = rand(rng, (r, c), np.float32), rand(rng, (r, c), np.float32)
        got = run_both(libs, "ew", [a, b], (r, c), np.float32)
        close(got, np.exp(a.astype(np.float64)) * b + a, 1e-5)
        ai, bi = rand(rng, (r, c), np.int32), rand(rng, (c,), np.int32)
        got = run_both(libs, "ew_i32", [ai, bi], (r, c), np.int32)
        np.testing.assert_array_equal(got, ai * bi - ai)
        got = run_both(libs, "softmax", [a], (r, c), np.float32)
        x = a.astype(np.float64)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        close(got, e / e.sum(axis=1, keepdims=True), 1e-5)
        got = run_both(libs, "layernorm", [a], (r, c), np.float32)
        d = x - x.mean(axis=1, keepdims=True)
        want = d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        got = run_both(libs, "logsumexp", [a], (r,), np.float32)
        m = x.max(axis=1)
        close(got, np.log(np.exp(x - m[:, None]).sum(axis=1)) + m, 1e-5)
    # Static sizes above the threshold: the row blocks' loop is parallel
    # without a run-time test.
    a = rand(rng, (512, 300), np.float32)
    got = run_both(libs, "softmax_static", [a], (512, 300), np.float32)
    e = np.exp(a - a.max(axis=1, keepdims=True).astype(np.float64))
    close(got, e / e.sum(axis=1, keepdims=True), 1e-5)


def test_axis0_reductions(libs):
    rng = np.random.default_rng(4)
    for r, c in ROWS + [(0, 5), (4, 0), (33, 31), (100, 4101)]:
        x = rand(rng, (r, c), np.float32)
        got = run_both(libs, "colsum", [x], (c,), np.float32)
        close(got, x.astype(np.float64).sum(axis=0), 1e-6)
        if r > 0:
            got = run_both(libs, "colmax", [x], (c,), np.float32)
            np.testing.assert_array_equal(got, x.max(axis=0))
        x64, y64 = rand(rng, (r, c), np.float64), rand(rng, (r, c), np.float64)
        if r > 0:
            got = run_both(libs, "colmean_sq", [x64, y64], (c,), np.float64)
            close(got, ((x64 - y64) ** 2).mean(axis=0), 1e-12)
        xi = rand(rng, (r, c), np.int32)
        got = run_both(libs, "colsum_i32", [xi], (c,), np.int32)
        np.testing.assert_array_equal(got, xi.sum(axis=0, dtype=np.int32))
    for shape in [(1, 1, 1), (3, 5, 7), (40, 50, 70), (2, 3, 30000)]:
        x = rand(rng, shape, np.float32)
        got = run_both(libs, "sum01", [x], shape[2:], np.float32)
        close(got, x.astype(np.float64).sum(axis=(0, 1)), 1e-6)
