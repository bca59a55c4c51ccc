"""unum.grad and unum.value_and_grad: seeded random f64 functions whose
gradients agree with central finite differences, a comparison with PyTorch
autograd when it is installed, and the errors."""
import random

import numpy as np
import pytest

import unum
from test_random import Gen

N_GRAD = 24


def build(seed):
    rng = random.Random(1000 + seed)
    g = Gen(rng, "float64")
    m, n = rng.randint(2, 4), rng.randint(2, 4)
    form = seed % 3
    if form == 0:
        shapes = [(m, n), (m, n)]
        body = "return np.sum(%s)" % g.expr(["a", "b"], 2)
    elif form == 1:
        shapes = [(m, n), (n,)]
        body = "return np.mean((%s) * a, axis=%d).sum()" % (g.expr(["a", "b"], 2),
                                                             rng.choice([0, 1, -1]))
    else:
        k = rng.randint(2, 4)
        shapes = [(m, k), (k, n)]
        body = "return np.sum(np.tanh(a @ b) * %s)" % g.const()
    source = ("import numpy as np\nimport unum\n\n\n@unum.jit\ndef f(a, b):\n    %s\n"
              % body)
    return source, shapes


def central_difference(f, args, i, h=1e-6):
    x = args[i]
    out = np.zeros_like(x)
    for j in range(x.size):
        e = np.zeros_like(x)
        e.flat[j] = h
        plus = list(args)
        minus = list(args)
        plus[i], minus[i] = x + e, x - e
        out.flat[j] = (f(*plus) - f(*minus)) / (2 * h)
    return out


@pytest.mark.parametrize("seed", range(N_GRAD))
def test_random_gradient(seed, module_from_source):
    source, shapes = build(seed)
    module, _ = module_from_source("grad_%d" % seed, source)
    rng = np.random.default_rng(seed)
    args = [rng.uniform(-1.5, 1.5, size=s) for s in shapes]
    value, (ga, gb) = unum.value_and_grad(module.f, argnums=(0, 1))(*args)
    want = module.f.__wrapped__(*args)
    np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12)
    for i, got in enumerate([ga, gb]):
        assert got.shape == args[i].shape and got.dtype == np.float64
        numeric = central_difference(module.f.__wrapped__, args, i)
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=source)
    if seed % 4 == 0:  # grad alone gives value_and_grad's gradient
        gb_only = unum.grad(module.f, argnums=-1)(*args)
        np.testing.assert_allclose(gb_only, gb, rtol=1e-12, atol=1e-14)


def test_against_pytorch(module_from_source):
    torch = pytest.importorskip("torch", reason="python3-torch is not installed")
    module, _ = module_from_source("grad_torch", (
        "import numpy as np\nimport unum\n\n\n@unum.jit\ndef f(a, b, c, d):\n"
        "    return np.sum(np.exp(a) * b + c / d)\n"))
    rng = np.random.default_rng(7)
    a, b, c = (rng.normal(size=100) for _ in range(3))
    d = rng.uniform(1, 2, size=100)
    grads = unum.grad(module.f, argnums=(0, 1, 2, 3))(a, b, c, d)
    ts = [torch.tensor(x, requires_grad=True) for x in (a, b, c, d)]
    torch.sum(torch.exp(ts[0]) * ts[1] + ts[2] / ts[3]).backward()
    for got, t in zip(grads, ts):
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_f32_and_python_scalars(module_from_source):
    module, _ = module_from_source("grad_f32", (
        "import numpy as np\nimport unum\n\n\n@unum.jit\ndef f(x, s):\n"
        "    return np.sum(x * x * s)\n"))
    x = np.arange(4, dtype=np.float32)
    gx, gs = unum.grad(module.f, argnums=(0, 1))(x, 3.0)
    assert gx.dtype == np.float32
    np.testing.assert_allclose(gx, 6 * x)
    assert isinstance(gs, np.float64) and gs == np.sum(x * x)


def test_errors(module_from_source):
    module, path = module_from_source("grad_bad", (
        "import numpy as np\nimport unum\n\n\n@unum.jit\ndef f(x, n):\n"
        "    return x * n\n"))
    x, n = np.ones(3), np.ones(3, np.int32)
    with pytest.raises(unum.CompileError, match="returns one floating-point scalar") as e:
        unum.grad(module.f)(x, n)
    assert (e.value.filename, e.value.lineno) == (path, 6)
    module2, path2 = module_from_source("grad_bad2", (
        "import numpy as np\nimport unum\n\n\n@unum.jit\ndef f(x, n):\n"
        "    return np.sum(x * n)\n"))
    with pytest.raises(unum.CompileError, match="parameter 'n' is int32") as e:
        unum.grad(module2.f, argnums=1)(x, n)
    assert (e.value.lineno, e.value.col) == (6, 10)
    with pytest.raises(unum.CompileError, match="out of range"):
        unum.grad(module2.f, argnums=2)(x, n)
    with pytest.raises(TypeError):
        unum.grad(unum.grad(module2.f))
    with pytest.raises(TypeError):
        unum.grad(module2.f, argnums="x")
