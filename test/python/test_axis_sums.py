"""Accuracy of f32 sums over a non-last axis (docs/Air.md, "Reductions"):
the rows are added in chunks of RB rows in f32 (RB = 32 KB / row bytes,
8 to 32, from +0), the chunks' partial sums in f64, and the result rounded
once, so each output is within (RB - 1) 2^-24 sum |x| + one rounding of
the exact sum. Checked against float64 sums and against numpy's own f32
sum over axis 0 (a plain f32 accumulator over all the rows), on kernels
built by unum-airc with dynamic sizes; f64 sums stay f64 throughout.

Sums over the last axis of a 2-D array (softmax's and layernorm's row
statistics) are two levels too: each row's chunks of 128 columns added in
f32 from +0 (in any order: vectorised), the chunks' sums and the leftover
columns (cols % 128) in f64, so each output is within 127 2^-24 sum|x| of
the row + one rounding: see the test_row_* tests.

Also max and min over those axes, which must be exact (NaN-propagating,
-0 below +0, like arith.maximumf/minimumf): see test_axis0_extrema_exact."""
import os
import sys

import numpy as np
import pytest

from conftest import BINARY_DIR, SOURCE_DIR

sys.path.insert(0, os.path.join(SOURCE_DIR, "test", "Dialect", "Air", "Inputs"))
from air_ctypes import call_status, compile_library  # noqa: E402

AIRC = os.path.join(BINARY_DIR, "bin", "unum-airc")

AIR = """
function colsum(%x: f32[R, C]) {
    %0 = kernel(sum, %x, axes=[0])
    ret %0
}
function colmean(%x: f32[R, C]) {
    %0 = kernel(mean, %x, axes=[0])
    ret %0
}
function midsum(%x: f32[A, R, C]) {
    %0 = kernel(sum, %x, axes=[1])
    ret %0
}
function colsum64(%x: f64[R, C]) {
    %0 = kernel(sum, %x, axes=[0])
    ret %0
}
function colmax(%x: f32[R, C]) {
    %0 = kernel(max, %x, axes=[0])
    ret %0
}
function colmin(%x: f32[R, C]) {
    %0 = kernel(min, %x, axes=[0])
    ret %0
}
function colmax64(%x: f64[R, C]) {
    %0 = kernel(max, %x, axes=[0])
    ret %0
}
function midmin(%x: f32[A, R, C]) {
    %0 = kernel(min, %x, axes=[1])
    ret %0
}
function rowsum(%x: f32[R, C]) {
    %0 = kernel(sum, %x, axes=[1])
    ret %0
}
function rowmean(%x: f32[R, C]) {
    %0 = kernel(mean, %x, axes=[1])
    ret %0
}
function rowmax(%x: f32[R, C]) {
    %0 = kernel(max, %x, axes=[1])
    ret %0
}
function rowmin64(%x: f64[R, C]) {
    %0 = kernel(min, %x, axes=[1])
    ret %0
}
function lastmax(%x: f32[A, R, C]) {
    %0 = kernel(max, %x, axes=[2])
    ret %0
}
function lastsum(%x: f32[A, R, C]) {
    %0 = kernel(sum, %x, axes=[2])
    ret %0
}
function lastmean(%x: f32[A, R, C]) {
    %0 = kernel(mean, %x, axes=[2])
    ret %0
}
"""

U32 = 2.0 ** -24


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    if not os.path.exists(AIRC):
        pytest.skip("no %s" % AIRC)
    return compile_library(AIRC, AIR, tmp_path_factory.mktemp("axis_sums") / "k")


def run(lib, name, x, axis):
    out = np.full(x.shape[:axis] + x.shape[axis + 1:], np.nan, x.dtype)
    assert call_status(getattr(lib, name), [x], [out]) == 0
    return out


def chunk_rows(cols):
    return max(8, min(32, 8192 // max(cols, 1)))


@pytest.mark.parametrize("rows,cols", [(100, 5), (100, 256), (20, 2000),
                                       (7, 3), (36, 1031)])
def test_chunks_are_exact_as_documented(lib, rows, cols):
    # 1 then rows - 1 terms of 2^-25 (a quarter of 1's ulp): in the first
    # chunk each is lost against the 1, every later chunk sums them exactly
    # (in f32) and adds them to the f64 sum exactly.
    rb = chunk_rows(cols)
    x = np.full((rows, cols), 2.0 ** -25, np.float32)
    x[0] = 1
    kept = max(0, rows - rb)
    want = np.float32(1 + kept * 2.0 ** -25)
    assert want == 1 + kept * 2.0 ** -25  # exact in f32 here (kept % 4 == 0)
    got = run(lib, "colsum", x, 0)
    np.testing.assert_array_equal(got, np.full(cols, want, np.float32))
    # The same values transposed in memory: the same result.
    np.testing.assert_array_equal(run(lib, "colsum", np.asfortranarray(x), 0),
                                  got)
    if kept:
        # numpy's f32 loop loses them all; a float64 sum keeps them all.
        assert x.sum(axis=0)[0] == 1
        assert got[0] > 1


def bound(x, axis, count=1):
    x64 = x.astype(np.float64)
    rb = chunk_rows(x.shape[-1])
    return ((rb - 1) * np.abs(x64).sum(axis=axis) / count +
            np.abs(x64.sum(axis=axis) / count)) * U32 * (1 + 1e-6)


@pytest.mark.parametrize("shape", [(4096, 64), (1000, 1031), (9, 4097),
                                   (1, 17), (0, 5)])
def test_random_sums_within_bound_and_better_than_numpy(lib, shape):
    rng = np.random.default_rng(11)
    # A positive bias: the partial sums grow, as do the rounding errors.
    x = (rng.standard_normal(shape) * 4 + 3).astype(np.float32)
    exact = x.astype(np.float64).sum(axis=0)
    got = run(lib, "colsum", x, 0)
    assert np.all(np.abs(got - exact) <= bound(x, 0))
    rows = max(shape[0], 1)
    mean = run(lib, "colmean", x, 0)
    if shape[0]:
        assert np.all(np.abs(mean - exact / rows) <= bound(x, 0, rows))
    if shape[0] >= 1000:
        # Many rows: numpy's plain f32 accumulator is far off, we are not.
        ours = np.max(np.abs(got - exact))
        numpys = np.max(np.abs(x.sum(axis=0) - exact))
        assert ours * 8 < numpys, (ours, numpys)


@pytest.mark.parametrize("shape", [(3, 777, 130), (2, 5, 3), (4, 64, 2049)])
def test_middle_axis(lib, shape):
    rng = np.random.default_rng(12)
    x = (rng.standard_normal(shape) * 4 + 3).astype(np.float32)
    got = run(lib, "midsum", x, 1)
    exact = x.astype(np.float64).sum(axis=1)
    assert np.all(np.abs(got - exact) <= bound(x, 1))
    # A strided view (every other element of the last axis): same result.
    wide = np.repeat(x, 2, axis=2)[:, :, ::2]
    np.testing.assert_array_equal(run(lib, "midsum", wide, 1), got)


def test_f64_sums_stay_f64(lib):
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3000, 37)) * 4 + 3
    got = run(lib, "colsum64", x, 0)
    exact = np.array([sum(map(float, np.sort(c))) for c in x.T])  # ~exact
    err = np.abs(got - exact) / np.abs(x).sum(axis=0)
    assert np.all(err <= 3000 * 2.0 ** -53)
    # The 2^-25 test above, in f64: nothing is lost.
    y = np.full((100, 5), 2.0 ** -25)
    y[0] = 1
    np.testing.assert_array_equal(run(lib, "colsum64", y, 0),
                                  np.full(5, 1 + 99 * 2.0 ** -25))


# max and min: the vector code takes a fast path per chunk of rows (a plain
# compare-select and a running sum of the terms) and combines the chunk
# again exactly when a sum is NaN or a result is zero (Reductions.cpp).
# These inputs put NaN, infinities of both signs and zeros of both signs
# all over the chunks, so that both paths and the switch between them are
# checked bit for bit against an exact reference.


def exact(x, axis, is_max):
    """maximum/minimum over `axis` as IEEE 754-2019 defines them: NaN if any
    term is NaN; a zero result is +0 (max) / -0 (min) if any zero has that
    sign."""
    x = np.moveaxis(x, axis, 0)
    m = x.max(axis=0) if is_max else x.min(axis=0)
    nan = np.isnan(x).any(axis=0)
    zeros = x == 0
    want_sign = not is_max  # max: +0 wins, min: -0 wins
    has = (zeros & (np.signbit(x) == want_sign)).any(axis=0)
    m = np.where(m == 0, np.where(has, -0.0 if want_sign else 0.0,
                                  0.0 if want_sign else -0.0), m)
    return np.where(nan, np.nan, m).astype(x.dtype)


def same(a, b):
    """Equal bit for bit but for NaN payloads: NaN at the same places,
    equal values and signs (of zeros too) elsewhere."""
    nan = np.isnan(a)
    return (np.array_equal(nan, np.isnan(b)) and
            np.array_equal(a[~nan], b[~nan]) and
            np.array_equal(np.signbit(a[~nan]), np.signbit(b[~nan])))


def spiked(rng, shape, dtype):
    """Normal values; then in some columns a NaN, an inf or -inf, or only
    zeros (of one sign, or both) and negatives, at rows all over."""
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    cols = shape[-1]
    flat = x.reshape(-1, shape[-2], cols)
    for s in flat:
        rows = s.shape[0]
        for c in range(0, cols, 3):
            kind = c // 3 % 7
            r = rng.integers(rows)
            if kind == 0:
                s[r, c] = np.nan
            elif kind == 1:
                s[r, c] = np.inf
                s[rng.integers(rows), c] = -np.inf
            elif kind == 2:  # zeros of both signs, the rest negative
                s[:, c] = -np.abs(s[:, c]) - 1
                s[r, c] = 0.0
                s[rng.integers(rows), c] = -0.0
            elif kind == 3:  # zeros of both signs, the rest positive
                s[:, c] = np.abs(s[:, c]) + 1
                s[r, c] = -0.0
                s[rng.integers(rows), c] = 0.0
            elif kind == 4:  # only -0 (max: -0) or only +0 (min: +0)
                s[:, c] = -0.0 if c % 2 else 0.0
            elif kind == 5:  # NaN in the first and last rows
                s[0, c] = np.nan
                s[rows - 1, c - 1] = np.nan
    return x


@pytest.mark.parametrize("rows,cols", [(1, 7), (5, 33), (37, 300),
                                       (100, 1031), (64, 4100)])
@pytest.mark.parametrize("name,dtype,is_max", [
    ("colmax", np.float32, True), ("colmin", np.float32, False),
    ("colmax64", np.float64, True)])
def test_axis0_extrema_exact(lib, rows, cols, name, dtype, is_max):
    rng = np.random.default_rng(rows * 7919 + cols)
    x = spiked(rng, (rows, cols), dtype)
    out = np.full(cols, 7.0, dtype)
    assert call_status(getattr(lib, name), [x], [out]) == 0
    assert same(out, exact(x, 0, is_max))
    # Plain data (the fast path only) agrees with numpy.
    y = (rng.standard_normal((rows, cols)) * 4).astype(dtype)
    assert call_status(getattr(lib, name), [y], [out]) == 0
    assert np.array_equal(out, y.max(axis=0) if is_max else y.min(axis=0))


def test_middle_axis_min_exact(lib):
    rng = np.random.default_rng(3)
    x = spiked(rng, (3, 45, 70), np.float32)
    out = np.full((3, 70), 7.0, np.float32)
    assert call_status(lib.midmin, [x], [out]) == 0
    assert same(out, exact(x, 1, False))


CHUNK = 128  # columns per f32 chunk of a row sum


def run_rows(lib, name, x):
    out = np.full(x.shape[:1], np.nan, x.dtype)
    assert call_status(getattr(lib, name), [x], [out]) == 0
    return out


@pytest.mark.parametrize("cols", [CHUNK, 3 * CHUNK, 2 * CHUNK + 40, 100])
def test_row_chunks_are_exact_as_documented(lib, cols):
    # 1 then cols - 1 terms of 2^-25 (a quarter of 1's ulp). Every chunk but
    # the first sums them exactly (in f32) and adds them to the f64 sum
    # exactly, as the leftover columns (f64) are: a plain f32 sum loses them
    # all. In the first chunk those added in the 1's vector lane are lost
    # (how many depends on the vector width): between none and all of its.
    x = np.full((3, cols), 2.0 ** -25, np.float32)
    x[:, 0] = 1
    later = cols - CHUNK if cols >= CHUNK else cols - 1
    lo = np.float32(1 + later * 2.0 ** -25)
    hi = np.float32(1 + (cols - 1) * 2.0 ** -25)
    got = run_rows(lib, "rowsum", x)
    assert np.all(got >= lo) and np.all(got <= hi), (got, lo, hi)
    if cols < CHUNK:
        np.testing.assert_array_equal(got, np.full(3, hi))


def row_bound(x, count=1):
    x64 = x.astype(np.float64)
    return ((CHUNK - 1) * np.abs(x64).sum(axis=1) / count +
            np.abs(x64.sum(axis=1) / count)) * U32 * (1 + 1e-6)


@pytest.mark.parametrize("shape", [(64, 16384), (300, 1031), (5, 127),
                                   (2, 1), (0, 7), (4, 0)])
def test_row_sums_within_bound(lib, shape):
    rng = np.random.default_rng(5)
    # A positive bias: the partial sums grow, as do the rounding errors.
    x = (rng.standard_normal(shape) * 4 + 3).astype(np.float32)
    exact = x.astype(np.float64).sum(axis=1)
    got = run_rows(lib, "rowsum", x)
    assert np.all(np.abs(got - exact) <= row_bound(x))
    if shape[1]:
        mean = run_rows(lib, "rowmean", x)
        assert np.all(np.abs(mean - exact / shape[1]) <=
                      row_bound(x, shape[1]))


def run_last(lib, name, x):
    out = np.full(x.shape[:-1], np.nan, x.dtype)
    assert call_status(getattr(lib, name), [x], [out]) == 0
    return out


@pytest.mark.parametrize("cols", [CHUNK, 2 * CHUNK + 40, 100])
def test_last_axis_chunks_of_3d_are_exact_as_documented(lib, cols):
    # The row sums of a 3-D array over its last axis are two levels too (they
    # added every term in f64 before): the same chunks as a 2-D row sum.
    x = np.full((2, 3, cols), 2.0 ** -25, np.float32)
    x[..., 0] = 1
    later = cols - CHUNK if cols >= CHUNK else cols - 1
    lo = np.float32(1 + later * 2.0 ** -25)
    hi = np.float32(1 + (cols - 1) * 2.0 ** -25)
    got = run_last(lib, "lastsum", x)
    assert np.all(got >= lo) and np.all(got <= hi), (got, lo, hi)
    np.testing.assert_array_equal(got, run_rows(lib, "rowsum",
                                                x.reshape(6, cols)).reshape(2, 3))
    if cols >= CHUNK:
        # Each chunk's vector lanes lose at most the terms of the 1's lane.
        assert np.all(got > 1)


@pytest.mark.parametrize("shape", [(3, 40, 1031), (2, 5, 127), (4, 1, 300),
                                   (0, 3, 5), (2, 3, 0)])
def test_last_axis_sums_of_3d_within_bound(lib, shape):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(shape) * 4 + 3).astype(np.float32)
    exact = x.astype(np.float64).sum(axis=2)
    got = run_last(lib, "lastsum", x)
    flat = x.reshape(shape[0] * shape[1], shape[2])
    assert np.all(np.abs(got - exact).reshape(-1) <= row_bound(flat))
    # A strided input (every other column): the same values.
    big = np.zeros(shape[:2] + (2 * shape[2],), np.float32)
    big[..., ::2] = x
    np.testing.assert_array_equal(run_last(lib, "lastsum", big[..., ::2]), got)
    if shape[2]:
        mean = run_last(lib, "lastmean", x)
        assert np.all(np.abs(mean - exact / shape[2]).reshape(-1) <=
                      row_bound(flat, shape[2]))


@pytest.mark.parametrize("rows,cols", [(60, 1), (30, 7), (9, 64), (5, 100),
                                       (4, 1031), (3, 0)])
def test_row_max_min_exact(lib, rows, cols):
    # Row max/min over the last axis are vector code (4 accumulators, then
    # single vectors, then single columns): NaN, infinities and zeros of
    # both signs placed all over the rows give exactly maximumf/minimumf's
    # result. The transposed problem puts the spikes along the rows.
    rng = np.random.default_rng(rows * 31 + cols)
    if cols == 0:
        x = np.zeros((rows, 0), np.float32)
        np.testing.assert_array_equal(run_rows(lib, "rowmax", x),
                                      np.full(rows, -np.inf, np.float32))
        return
    x = np.ascontiguousarray(spiked(rng, (cols, rows), np.float32).T)
    assert same(run_rows(lib, "rowmax", x), exact(x, 1, True))
    x64 = np.ascontiguousarray(spiked(rng, (cols, rows), np.float64).T)
    assert same(run_rows(lib, "rowmin64", x64), exact(x64, 1, False))
    x3 = np.stack([x, x[::-1]])
    out = np.full(x3.shape[:2], np.nan, np.float32)
    assert call_status(lib.lastmax, [x3], [out]) == 0
    assert same(out, exact(x3, 2, True))
