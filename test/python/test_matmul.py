"""matmul's packed loop nest (air-vectorize, MatmulNest.cpp) against numpy:
awkward sizes (edge tiles on every side, k blocks, empty dimensions), static
and dynamic shapes, f32/f64/i32, strided and offset views, fused epilogues
(bias over columns or rows, relu, scale) and two OpenMP threads."""
import sys

import numpy as np
import pytest

import unum

SOURCE = '''
import numpy as np
import unum


@unum.jit(dynamic=True)
def mm(a, b):
    return a @ b


@unum.jit
def mm_static(a, b):
    return a @ b


@unum.jit(dynamic=True)
def dense(a, b, bias, scale):
    return np.maximum((a @ b + bias) * scale, 0)


@unum.jit(dynamic=True)
def rows(a, b, r):
    return (a @ b) * r - 1


@unum.jit(dynamic=True, threads=2)
def mm2(a, b):
    return a @ b


@unum.jit(dynamic=True, threads=2)
def dense2(a, b, bias):
    return np.maximum(a @ b + bias, 0)
'''

# (m, k, n): every edge (m % 6, n % 16, n % 32 != 0), one and several k
# blocks of 256 (k = 257, 600), sizes of 1.
SHAPES = [(1, 1, 1), (7, 7, 7), (37, 37, 37), (1, 37, 100), (100, 1, 7),
          (7, 257, 1), (257, 100, 37), (100, 600, 257), (13, 3, 300)]


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    from conftest import load_module
    module, _ = load_module(tmp_path_factory.mktemp("mm"), "mmmod", SOURCE)
    sys.modules["mmmod"] = module
    yield module
    del sys.modules["mmmod"]


def rand(rng, shape, dtype):
    if np.dtype(dtype).kind == "i":
        return rng.integers(-9, 10, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def close(got, want):
    if got.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        tol = 1e-4 if got.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_sizes(mod, dtype):
    rng = np.random.default_rng(1)
    for m, k, n in SHAPES:
        a, b = rand(rng, (m, k), dtype), rand(rng, (k, n), dtype)
        want = a.astype(np.float64) @ b.astype(np.float64)
        close(mod.mm(a, b), want.astype(dtype))
        close(mod.mm2(a, b), want.astype(dtype))
    a, b = rand(rng, (37, 257), dtype), rand(rng, (257, 100), dtype)
    close(mod.mm_static(a, b), (a.astype(np.float64) @ b).astype(dtype))


def test_empty(mod):
    a = np.ones((5, 0), np.float32)
    b = np.ones((0, 7), np.float32)
    np.testing.assert_array_equal(mod.mm(a, b), np.zeros((5, 7), np.float32))
    bias = np.arange(7, dtype=np.float32) - 3
    np.testing.assert_array_equal(mod.dense(a, b, bias, np.float32(2)),
                                  np.maximum(bias * 2, 0)[None].repeat(5, 0))
    np.testing.assert_array_equal(mod.mm(np.ones((0, 3), np.float32),
                                         np.ones((3, 4), np.float32)),
                                  np.zeros((0, 4), np.float32))


def test_views(mod):
    """Transposed, strided and offset inputs (the ABI entry copies what is
    not contiguous along its rows; the nest reads offset row views)."""
    rng = np.random.default_rng(2)
    big = rng.standard_normal((80, 300)).astype(np.float32)
    a = big[3:40, 5:262]            # offset, row stride 300
    b = big[10:72, 1:300:3].T       # transposed and strided: 100 x 62
    b = np.ascontiguousarray(b)[:, :37]
    close(mod.mm(a[:, :100], b), a[:, :100].astype(np.float64) @ b)
    close(mod.mm2(a[:, :100], b), a[:, :100].astype(np.float64) @ b)
    close(mod.mm(big[::2, :7], big[:7, ::5]),
          big[::2, :7].astype(np.float64) @ big[:7, ::5])


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (37, 37, 37), (100, 600, 257),
                                   (7, 300, 16)])
def test_epilogues(mod, m, k, n):
    rng = np.random.default_rng(3)
    a = rand(rng, (m, k), np.float32)
    b = rand(rng, (k, n), np.float32)
    bias = rand(rng, (n,), np.float32)
    r = rand(rng, (m, 1), np.float32)
    ab = a.astype(np.float64) @ b
    close(mod.dense(a, b, bias, np.float32(0.5)),
          np.maximum((ab + bias) * 0.5, 0))
    close(mod.rows(a, b, r), ab * r - 1)
    close(mod.dense2(a, b, bias), np.maximum(ab + bias, 0))


def test_threads_option():
    with pytest.raises(ValueError, match="threads"):
        unum.jit(lambda a: a, threads=0)
    with pytest.raises(ValueError, match="threads"):
        unum.jit(lambda a: a, threads=True)
