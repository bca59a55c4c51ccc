"""Every way a function leaves the supported subset is a unum.CompileError at
the Python file:line:col of the construct, never a fallback or a crash.

Each case is a module source, the arguments of the call, the text the error
must point at (its first occurrence in the source: line and column are
checked exactly) and a fragment of the message.
"""
import numpy as np
import pytest

import unum
from unum._frontend import Builder, Source, locate_air_errors

X = np.arange(3, dtype=np.float64)
XI = np.arange(3, dtype=np.int32)
M = np.ones((2, 3))

CASES = [
    ("index", "def f(x):\n    return x[0] + 1\n", (X,), "x[0]", "indexing and slicing"),
    ("for", "def f(x):\n    for i in range(3):\n        x = x + i\n    return x\n", (X,),
     "for", "unsupported statement 'For'"),
    ("if", "def f(x):\n    if True:\n        x = x + 1\n    return x\n", (X,), "if",
     "unsupported statement 'If'"),
    ("while", "def f(x):\n    while False:\n        pass\n    return x\n", (X,), "while",
     "unsupported statement 'While'"),
    ("np_sin", "def f(x):\n    return np.sin(x)\n", (X,), "np.sin",
     "numpy.sin is not supported"),
    ("undefined", "def f(x):\n    return x + y\n", (X,), "y\n", "name 'y' is not defined"),
    ("floordiv", "def f(x):\n    return 1 + x // 2\n", (X,), "x // 2",
     "unsupported operator '//'"),
    ("broadcast", "def f(a, b):\n    return a * 2 + b\n", (X, np.ones(4)), "a * 2 + b",
     "do not broadcast"),
    ("axis", "def f(x):\n    return np.sum(x, axis=2)\n", (X,), "np.sum",
     "axis 2 is out of range"),
    ("axis_repeated", "def f(m):\n    return m.max(axis=(0, -2))\n", (M,), "m.max",
     "axis 0 is repeated"),
    ("reshape", "def f(x):\n    return x.reshape(5)\n", (X,), "x.reshape",
     "cannot reshape an array of size 3"),
    ("matmul", "def f(a, b):\n    return a @ b\n", (M, M), "a @ b", "inner sizes differ"),
    ("matmul_batched", "def f(a):\n    return a @ a\n", (np.ones((2, 2, 2)),), "a @ a",
     "batched"),
    ("global_list", "L = [1, 2]\n\n\ndef f(x):\n    return x + L\n", (X,), "L\n",
     "cannot use the global 'L'"),
    ("attribute", "def f(x):\n    return x.cumsum()\n", (X,), "x.cumsum",
     "unsupported array attribute '.cumsum'"),
    ("lambda", "def f(x):\n    return (lambda y: y)(x)\n", (X,), "lambda",
     "unsupported expression 'Lambda'"),
    ("recursion", "def f(x):\n    return f(x) + 1\n", (X,), "f(x) + 1", "recursive call of 'f'"),
    ("early_return", "def f(x):\n    return x\n    y = x\n", (X,), "return x",
     "'return' must be the last statement"),
    ("no_return", "def f(x):\n    y = x + 1\n", (X,), "def f", "must end with 'return'"),
    ("chained", "def f(x):\n    return np.where(0 < x < 1, x, 0.0)\n", (X,), "0 < x",
     "chained comparisons"),
    ("bool_arith", "def f(x):\n    return (x > 0) + (x > 1)\n", (X,), "(x > 0) +",
     "arithmetic on booleans"),
    ("int_neg_power", "def f(x):\n    return x ** -1\n", (XI,), "x ** -1",
     "negative or non-integer powers"),
    ("int_var_power", "def f(x, y):\n    return x ** y\n", (XI, XI), "x ** y",
     "constant non-negative integer exponent"),
    ("keyword", "def f(x):\n    return np.sum(x, dtype=np.float32)\n", (X,), "dtype=",
     "unexpected keyword argument 'dtype'"),
    ("default_param", "def f(x, y=1):\n    return x + y\n", (X,), "def f",
     "plain positional parameters"),
    ("astype_f16", "def f(x):\n    return x.astype(np.float16)\n", (X,), "np.float16",
     "numpy.float16 is not supported"),
    ("astype_str", "def f(x):\n    return x.astype('float16')\n", (X,), "x.astype",
     "astype takes float32"),
    ("tuple_index", "def f(t):\n    a = t[3]\n    return a\n", ((X, X),), "3]",
     "tuple index 3 is out of range"),
    ("unpack", "def f(x):\n    a, b = x, x, x\n    return a\n", (X,), "a, b",
     "cannot unpack 3 values into 2 names"),
    ("attr_assign", "def f(x):\n    x.y = 1\n    return x\n", (X,), "x.y",
     "unsupported assignment target"),
    ("where_arity", "def f(x):\n    return np.where(x)\n", (X,), "np.where",
     "np.where takes 3 arguments"),
    ("string_const", "def f(x):\n    return x + 'a'\n", (X,), "x + 'a'",
     "takes arrays or numbers"),
    ("non_finite", "def f(x):\n    return x + 1e400\n", (X,), "x + 1e400",
     "non-finite constants"),
    ("matmul_scalar", "def f(x):\n    return x @ 2\n", (X,), "x @ 2",
     "matmul takes arrays"),
    ("callee_error", "@unum.jit\ndef helper(x):\n    return x[1]\n\n\n"
     "def f(x):\n    return helper(x) + 1\n", (X,), "x[1]", "indexing and slicing"),
    ("method_call_args", "def f(x):\n    return x.sum(0, 1)\n", (X,), "x.sum",
     "takes one positional argument"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_error_is_located(case, module_from_source):
    name, body, args, at, fragment = case
    source = "import numpy as np\nimport unum\n\n\n" + body.replace(
        "def f(", "@unum.jit\ndef f(", 1)
    module, path = module_from_source("bad_" + name, source)
    with pytest.raises(unum.CompileError) as info:
        module.f(*args)
    e = info.value
    offset = source.index(at)
    line = source.count("\n", 0, offset) + 1
    col = offset - (source.rfind("\n", 0, offset) + 1) + 1
    assert (e.filename, e.lineno, e.col) == (path, line, col), (str(e), source)
    assert fragment in e.message, str(e)
    assert str(e).startswith("%s:%d:%d: error: " % (path, line, col))
    # Nothing was compiled, and the function still refuses the next call.
    assert module.f.signatures == []
    with pytest.raises(unum.CompileError):
        module.f(*args)


def test_air_compiler_errors_map_to_python():
    """An error the AIR compiler finds is reported at the Python node that
    wrote the AIR line."""
    import ast
    tree = ast.parse("x = a + b\n")
    node = tree.body[0].value
    builder = Builder("k")
    builder.emit(Source("user.py", tree, 9, 4), node, "kernel(add, %a0, %a1)", "f4", (3,))
    message = ("<unum:k>:2:8: error: kernel 'add': shapes f32[3] and f32[4] do not "
               "broadcast\n<unum:k>:2:8: note: see here")
    e = locate_air_errors(builder, "<unum:k>", message)
    assert (e.filename, e.lineno, e.col) == ("user.py", 10, 5 + node.col_offset)
    assert "do not broadcast" in e.message and "see here" in e.message
    e = locate_air_errors(builder, "<unum:k>", "error: something unlocated")
    assert e.filename is None and "something unlocated" in str(e)


def test_source_must_be_readable():
    ns = {}
    exec("import unum\ndef f(x):\n    return x\n", ns)
    g = unum.jit(ns["f"])
    with pytest.raises(unum.CompileError, match="cannot read the source"):
        g(X)


def test_unsupported_arguments_are_type_errors(module_from_source):
    module, _ = module_from_source(
        "args", "import unum\n\n\n@unum.jit\ndef f(x):\n    return x + 1\n")
    for bad in [np.ones(3, np.float16), np.ones(3, np.uint8), np.ones(3, complex),
                "text", {"a": 1}, None]:
        with pytest.raises(TypeError):
            module.f(bad)
    assert module.f.signatures == []
