"""The wrap rules: the signature cache, shapes and dtypes checked before a
kernel runs, views, out=, scalars, threads and pickling."""
import pickle
import sys
import threading

import numpy as np
import pytest

import unum

SOURCE = '''
import numpy as np
import unum


@unum.jit
def axpy(a, x, y):
    return a * x + y


@unum.jit
def stats(x):
    m = x.mean(axis=-1, keepdims=True)
    return x - m, np.max(x), x


@unum.jit
def weak(x, s):
    return x * s


@unum.jit
def compare(x, y):
    return x > y
'''


@pytest.fixture
def mod(module_from_source):
    module, _ = module_from_source("wrapmod", SOURCE)
    sys.modules["wrapmod"] = module
    yield module
    del sys.modules["wrapmod"]


def test_cache_per_signature(mod):
    x, y = np.ones(5, np.float32), np.arange(5, dtype=np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(mod.axpy(np.float32(2), x, y), 2 * x + y)
    assert mod.axpy.compile_count == 1
    mod.axpy(np.float32(2), np.ones(6, np.float32), np.ones(6, np.float32))  # shape
    mod.axpy(2.0, np.ones(6), np.ones(6))  # dtypes
    assert mod.axpy.compile_count == 3
    assert len(mod.axpy.signatures) == 3
    assert "function jit_axpy(" in mod.axpy.air(2.0, np.ones(6), np.ones(6))


def test_shape_mismatch_is_an_exception_not_a_read(mod):
    with pytest.raises(unum.CompileError, match="do not broadcast"):
        mod.axpy(1.0, np.ones(4), np.ones(5))


def test_views_are_read_correctly(mod):
    base = np.arange(40, dtype=np.float64).reshape(5, 8)
    for v in [base[:, ::2], base.T, base[1:, 3:], base[::-1], base[::2, ::-3]]:
        got = mod.axpy(3.0, v, v)
        np.testing.assert_array_equal(got, 3.0 * v + v)
        assert got.flags.c_contiguous
    big = np.arange(10, dtype=">f8")  # byte-swapped: copied, same signature
    np.testing.assert_array_equal(mod.axpy(1.0, big, big), 2 * big)


def test_out(mod):
    x = np.linspace(0, 1, 6)
    out = np.empty(6)
    r = mod.axpy(2.0, x, x, out=out)
    assert r is out
    np.testing.assert_allclose(out, 3 * x)
    # In place, as numpy's out= allows: the kernel writes a temporary first.
    y = x.copy()
    mod.axpy(2.0, x, y, out=y)
    np.testing.assert_allclose(y, 3 * x)
    # A strided output.
    big = np.zeros(12)
    mod.axpy(2.0, x, x, out=big[::2])
    np.testing.assert_allclose(big[::2], 3 * x)
    assert not big[1::2].any()
    with pytest.raises(ValueError, match="shape"):
        mod.axpy(2.0, x, x, out=np.empty(5))
    with pytest.raises(TypeError, match="dtype"):
        mod.axpy(2.0, x, x, out=np.empty(6, np.float32))
    ro = np.empty(6)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        mod.axpy(2.0, x, x, out=ro)
    with pytest.raises(ValueError, match="needs 1 array"):
        mod.axpy(2.0, x, x, out=(out, out))


def test_tuple_results_out_and_scalars(mod):
    x = np.random.default_rng(0).normal(size=(3, 4))
    centred, mx, same = mod.stats(x)
    np.testing.assert_allclose(centred, x - x.mean(axis=-1, keepdims=True))
    assert isinstance(mx, np.float64) and mx == x.max()  # 0-d: a numpy scalar
    np.testing.assert_array_equal(same, x)
    assert not np.shares_memory(same, x)  # an input returned is a copy
    outs = (np.empty((3, 4)), np.empty(()), np.empty((3, 4)))
    r = mod.stats(x, out=outs)
    assert r is outs and outs[1][()] == x.max()


def test_python_and_numpy_scalars_promote_as_in_numpy(mod):
    f32 = np.ones(3, np.float32)
    i32 = np.ones(3, np.int32)
    for x, s in [(f32, 2.5), (f32, 2), (i32, 2), (i32, 2.5), (f32, np.float64(2.5)),
                 (i32, np.int64(3)), (f32, True)]:
        got, want = mod.weak(x, s), x * s
        assert got.dtype == want.dtype, (x.dtype, type(s))
        np.testing.assert_array_equal(got, want)
    assert mod.compare(f32, i32).dtype == np.bool_
    np.testing.assert_array_equal(mod.weak([1.0, 2.0], 2.0), [2.0, 4.0])  # lists


def test_threads_compile_once(mod):
    x = np.arange(7, dtype=np.float64)
    results, errors = [], []

    def work():
        try:
            results.append(mod.axpy(1.5, x, x))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert mod.axpy.compile_count == 1
    for r in results:
        np.testing.assert_array_equal(r, 2.5 * x)


def test_pickle(mod):
    f = pickle.loads(pickle.dumps(mod.axpy))
    assert f is mod.axpy  # by name, when the module has it
    # Not reachable by name: cloudpickle (what dask uses) sends the Python
    # function by value and the receiver compiles it.
    cloudpickle = pytest.importorskip("cloudpickle", reason="python3-cloudpickle "
                                      "(comes with python3-distributed) is missing")
    g = cloudpickle.loads(cloudpickle.dumps(unum.JitFunction(mod.axpy.__wrapped__)))
    np.testing.assert_array_equal(g(2.0, np.ones(2), np.ones(2)), [3.0, 3.0])


def test_zero_size_and_zero_dim(mod):
    e = np.ones((0, 3))
    assert mod.axpy(2.0, e, e).shape == (0, 3)
    r = mod.axpy(2.0, np.float64(3), np.float64(1))
    assert isinstance(r, np.float64) and r == 7.0


def test_fast_path_checks_every_argument(mod):
    """The last signature is tried first, in C; any argument that differs
    (dtype, shape, layout, byte order, scalar type) falls back to the
    general path and never reaches the kernel compiled for another."""
    from unum import _jit as jitmod
    if jitmod._fastcall is None:
        pytest.skip("unum._fastcall is not built (python3-dev missing)")
    x = np.arange(6, dtype=np.float64)
    calls = [(2.0, x, x), (2, x, x), (True, x, x), (2.0, x[::2], x[::2]),
             (2.0, x.astype(np.float32), x.astype(np.float32)),
             (2.0, x.astype(">f8"), x), (2.0, x.reshape(2, 3), x.reshape(2, 3)),
             (np.float64(2.0), x, x), (2.0, x, x)]
    for a, u, v in calls * 2:
        got = mod.axpy(a, u, v)
        want = a * u + v
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want)
    spec = mod.axpy._last
    assert jitmod._fastcall.call(spec.fast_spec, spec.fn_ptr, (2.0, x), []) is None
    assert jitmod._fastcall.call(spec.fast_spec, spec.fn_ptr,
                                 (2.0, x, np.ones(5)), [np.empty(6)]) is None


def test_dynamic_sizes_share_kernels(module_from_source):
    module, _ = module_from_source("dyn", (
        "import numpy as np\nimport unum\n\n\n@unum.jit(dynamic=True)\n"
        "def f(a, b):\n    c = a * b + 1.0\n    return np.sum(c, axis=-1), c.T\n"))
    rng = np.random.default_rng(3)
    for m, n in [(3, 4), (5, 4), (7, 9), (2, 300)]:
        a, b = rng.normal(size=(m, n)), rng.normal(size=n)
        s, t = module.f(a, b)
        np.testing.assert_allclose(s, np.sum(a * b + 1.0, axis=-1))
        np.testing.assert_array_equal(t, (a * b + 1.0).T)
    assert module.f.compile_count == 1 and len(module.f.signatures) == 4
    assert "f64[?,?]" in module.f.air(a, b)
    # A size of 1 broadcasts, so it is compiled as such: a second kernel.
    s, _ = module.f(np.ones((1, 4)), np.ones(4))
    np.testing.assert_allclose(s, [8.0])
    assert module.f.compile_count == 2
    # Shapes are still checked before the kernel runs.
    with pytest.raises(unum.CompileError, match="do not broadcast"):
        module.f(np.ones((3, 4)), np.ones(5))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_array_subclasses_are_refused(mod):
    """np.matrix's * is a matrix product and a masked array has a mask: the
    kernel would compute something else, so they are TypeErrors, also when
    the last signature would match their buffer (the C path checks the
    type)."""
    a = np.arange(4.0).reshape(2, 2)
    mod.axpy(1.0, a, a)
    for bad in [np.matrix(a), np.ma.masked_array(a, mask=[[0, 1], [0, 0]])]:
        with pytest.raises(TypeError, match="not supported"):
            mod.axpy(1.0, bad, a)
        with pytest.raises(TypeError, match="not supported"):
            mod.axpy(1.0, a, bad)
