"""Parse and infer: a Python function's `ast`, evaluated abstractly at one
signature (dtypes and shapes), becomes one AIR function (docs/Air.md).

Every value the evaluation meets is known at compile time except the arrays:
those are AIR values with a dtype and a static shape. Python scalars,
tuples, shapes, dtypes and the numpy module are ordinary compile-time
values. Types follow numpy's promotion rules of the installed numpy
(np.result_type, with 0-d values standing in as "small" scalars), so a
jitted function gives numpy's dtypes; shapes follow numpy's broadcasting.
Anything outside the subset is a CompileError at the Python source's
file:line:col, never a silent fallback. Each AIR line remembers the Python
node it came from, so the AIR compiler's own errors are located in the
Python source too.
"""
import ast
import builtins
import math
import operator
import re

import numpy as np

from .errors import CompileError

# numpy dtype -> AIR dtype
AIR_DTYPES = {
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.bool_): "i1",
}


def air_type(dtype, shape):
    return "%s[%s]" % (AIR_DTYPES[np.dtype(dtype)], ",".join(str(d) for d in shape))


# --- Compile-time values ----------------------------------------------------

class Array:
    """An AIR value: `name` (%n), numpy dtype, static shape."""
    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, np.dtype(dtype), tuple(shape)


class Weak(Array):
    """A Python scalar argument: a 0-d array that promotes like a Python
    scalar (its kind counts, not its width)."""
    __slots__ = ("pytype",)

    def __init__(self, name, dtype, pytype):
        super().__init__(name, dtype, ())
        self.pytype = pytype


class Const:
    """A Python number known at compile time (literals, globals, shapes)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Tuple:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = list(items)


class Method:
    """`x.sum` and friends before the call."""
    __slots__ = ("array", "name")

    def __init__(self, array, name):
        self.array, self.name = array, name


class Opaque:
    """Another compile-time Python object: the numpy module, a numpy
    function, a dtype, a jitted function, a builtin."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


NUMPY_DTYPES = {np.float32, np.float64, np.int32, np.int64, np.bool_}

UNARY_FUNCS = {"exp": "exp", "log": "log", "sqrt": "sqrt", "tanh": "tanh"}
REDUCTIONS = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max",
              "min": "min", "amin": "min"}
NP_CONSTANTS = {"pi": math.pi, "e": math.e}


def _describe(v):
    if isinstance(v, Array):
        return "an array (%s%s)" % (v.dtype, list(v.shape))
    if isinstance(v, Const):
        return "the number %r" % (v.value,)
    if isinstance(v, Tuple):
        return "a tuple"
    if isinstance(v, Method):
        return "the method '.%s'" % v.name
    return "%r" % (v.obj,)


class Located(Exception):
    """An error at an AST node, turned into a CompileError by the caller."""

    def __init__(self, node, message):
        super().__init__(message)
        self.node, self.message = node, message


class Source:
    """Where a function's AST came from: lines and columns are the file's."""

    def __init__(self, filename, tree, line_offset, col_offset):
        self.filename, self.tree = filename, tree
        self.line_offset, self.col_offset = line_offset, col_offset

    def error(self, node, message):
        line = getattr(node, "lineno", 1) + self.line_offset
        col = getattr(node, "col_offset", 0) + self.col_offset + 1
        return CompileError(message, self.filename, line, col)


class Builder:
    """Writes one AIR function and maps its lines to Python nodes."""

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.origins = {}  # AIR line number (1-based) -> (Source, node)
        self.counter = 0
        self.params = []

    def fresh(self):
        self.counter += 1
        return "%%v%d" % self.counter

    def emit(self, source, node, rhs, dtype, shape):
        name = self.fresh()
        self.lines.append("  %s = %s" % (name, rhs))
        self.origins[len(self.lines) + 1] = (source, node)  # +1: the header line
        return Array(name, dtype, shape)

    def param_list(self, dynamic=False):
        """`%a0: f32[4,3], ...`; `dynamic` declares every parameter size but
        1 as `?` (sizes of 1 stay: they broadcast)."""
        return ", ".join("%s: %s" % (p.name, air_type(p.dtype, [
            "?" if dynamic and d != 1 else d for d in p.shape])) for p in self.params)

    def text(self, results, dynamic=False):
        head = "function %s(%s) {" % (self.name, self.param_list(dynamic))
        body = self.lines + ["  ret " + ", ".join(r.name for r in results)]
        return "\n".join([head] + body + ["}"]) + "\n"


def literal(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return None
    text = repr(float(value))
    return text


def normalize_axes(axis, ndim):
    """`axis` (None, int or tuple of ints) -> sorted list of axes."""
    if axis is None:
        return list(range(ndim))
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    out = []
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool):
            raise ValueError("an axis must be an integer, got %r" % (a,))
        if not -ndim <= a < ndim:
            raise ValueError("axis %d is out of range for an array of %d dimension%s"
                             % (a, ndim, "" if ndim == 1 else "s"))
        a = a + ndim if a < 0 else a
        if a in out:
            raise ValueError("axis %d is repeated" % a)
        out.append(a)
    return sorted(out)


def broadcast_shapes(shapes):
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(ndim):
        size = 1
        for s in shapes:
            d = s[i - ndim + len(s)] if i - ndim + len(s) >= 0 else 1
            if d != 1:
                if size != 1 and size != d:
                    raise ValueError("shapes %s do not broadcast"
                                     % " and ".join(str(list(x)) for x in shapes))
                size = d
        out.append(size)
    return tuple(out)


class Tracer:
    """Evaluates one function body at one signature."""

    def __init__(self, builder, jit_type, stack=()):
        self.b = builder
        self.jit_type = jit_type  # unum.jit's class, to recognise callees
        self.stack = list(stack)

    # -- entry ---------------------------------------------------------------

    def run(self, fn_info, args):
        """Binds `args` (compile-time values) to the parameters and evaluates
        the body; returns the returned value."""
        source, fdef, env = fn_info.source, fn_info.fdef, fn_info.env
        self.stack.append(fn_info.qualname)
        params = fdef.args
        if params.vararg or params.kwarg or params.kwonlyargs or params.posonlyargs \
                or params.defaults:
            raise source.error(fdef, "a jitted function takes plain positional "
                                     "parameters (no defaults, *args, **kwargs or "
                                     "keyword-only parameters)")
        if len(params.args) != len(args):
            raise Located(None, "'%s' takes %d argument%s, got %d" % (
                fdef.name, len(params.args), "" if len(params.args) == 1 else "s",
                len(args)))
        scope = {p.arg: a for p, a in zip(params.args, args)}
        result = None
        body = fdef.body
        for i, stmt in enumerate(body):
            if (i == 0 and isinstance(stmt, ast.Expr)
                    and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)):
                continue  # docstring
            if isinstance(stmt, ast.Return):
                if i != len(body) - 1:
                    raise source.error(stmt, "'return' must be the last statement")
                if stmt.value is None:
                    raise source.error(stmt, "a jitted function must return a value")
                result = self.expr(source, env, scope, stmt.value)
            elif isinstance(stmt, ast.Assign):
                value = self.expr(source, env, scope, stmt.value)
                for target in stmt.targets:
                    self.assign(source, scope, target, value)
            elif isinstance(stmt, ast.AugAssign):
                if not isinstance(stmt.target, ast.Name):
                    raise source.error(stmt.target, "only a local variable can be "
                                                    "updated in place")
                current = self.name(source, env, scope, stmt.target)
                right = self.expr(source, env, scope, stmt.value)
                value = self.binop(source, stmt, stmt.op, current, right)
                scope[stmt.target.id] = value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self.assign(source, scope, stmt.target,
                            self.expr(source, env, scope, stmt.value))
            elif isinstance(stmt, ast.Pass):
                continue
            else:
                raise source.error(stmt, "unsupported statement '%s' (a jitted "
                                         "function is assignments and one final "
                                         "'return')" % type(stmt).__name__)
        if result is None:
            raise source.error(fdef, "a jitted function must end with 'return'")
        self.stack.pop()
        return result

    def assign(self, source, scope, target, value):
        if isinstance(target, ast.Name):
            scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, Tuple):
                raise source.error(target, "cannot unpack %s" % _describe(value))
            if len(value.items) != len(target.elts):
                raise source.error(target, "cannot unpack %d values into %d names"
                                   % (len(value.items), len(target.elts)))
            for t, v in zip(target.elts, value.items):
                self.assign(source, scope, t, v)
        else:
            raise source.error(target, "unsupported assignment target '%s' (arrays "
                                       "are values: no item or attribute "
                                       "assignment)" % type(target).__name__)

    # -- expressions ---------------------------------------------------------

    def name(self, source, env, scope, node):
        if node.id in scope:
            return scope[node.id]
        if node.id in env.closure:
            return self.wrap_global(source, node, node.id, env.closure[node.id])
        if node.id in env.globals:
            return self.wrap_global(source, node, node.id, env.globals[node.id])
        if hasattr(builtins, node.id):
            return self.wrap_global(source, node, node.id, getattr(builtins, node.id))
        raise source.error(node, "name '%s' is not defined" % node.id)

    def wrap_global(self, source, node, name, obj):
        if isinstance(obj, (bool, int, float)) and not isinstance(obj, np.generic):
            return Const(obj)
        if isinstance(obj, np.generic) and obj.dtype in AIR_DTYPES:
            return Const(obj.item())
        if isinstance(obj, tuple) and all(isinstance(x, (int, float)) for x in obj):
            return Tuple([Const(x) for x in obj])
        if obj is np or isinstance(obj, self.jit_type) or _is_dtype(obj) \
                or any(obj is b for b in (float, int, bool, abs, len)) \
                or _is_numpy_callable(obj):
            return Opaque(obj)
        raise source.error(node, "cannot use the global '%s' in a jitted function "
                                 "(%s): only numbers, numpy, numpy dtypes and other "
                                 "jitted functions" % (name, type(obj).__name__))

    def expr(self, source, env, scope, node):
        ev = lambda n: self.expr(source, env, scope, n)  # noqa: E731
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float)):
                return Const(node.value)
            if isinstance(node.value, str) or node.value is None:
                return Opaque(node.value)  # dtype names for astype; axis=None
            raise source.error(node, "unsupported constant %r" % (node.value,))
        if isinstance(node, ast.Name):
            return self.name(source, env, scope, node)
        if isinstance(node, ast.Tuple):
            return Tuple([ev(e) for e in node.elts])
        if isinstance(node, ast.BinOp):
            return self.binop(source, node, node.op, ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp):
            return self.unary(source, node, ev(node.operand))
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                raise source.error(node, "chained comparisons are not supported "
                                         "(write 'a < b' and 'b < c' separately)")
            return self.compare(source, node, node.ops[0], ev(node.left),
                                ev(node.comparators[0]))
        if isinstance(node, ast.Attribute):
            return self.attribute(source, node, ev(node.value))
        if isinstance(node, ast.Subscript):
            return self.subscript(source, node, ev(node.value), node.slice, ev)
        if isinstance(node, ast.Call):
            return self.call(source, env, scope, node)
        raise source.error(node, "unsupported expression '%s'" % type(node).__name__)

    def subscript(self, source, node, value, index_node, ev):
        if isinstance(value, Tuple):
            index = ev(index_node)
            if isinstance(index, Const) and isinstance(index.value, int) \
                    and not isinstance(index.value, bool):
                if -len(value.items) <= index.value < len(value.items):
                    return value.items[index.value]
                raise source.error(index_node, "tuple index %d is out of range"
                                   % index.value)
            raise source.error(index_node, "a tuple index must be a constant integer")
        raise source.error(node, "indexing and slicing arrays are not supported "
                                 "(pass the slice as an argument instead)")

    def attribute(self, source, node, value):
        attr = node.attr
        if isinstance(value, Array):
            if attr == "T":
                return self.transpose(source, node, value, None)
            if attr == "shape":
                return Tuple([Const(d) for d in value.shape])
            if attr == "ndim":
                return Const(len(value.shape))
            if attr == "size":
                return Const(int(np.prod(value.shape, dtype=np.int64)))
            if attr == "dtype":
                return Opaque(value.dtype.type)
            if attr in ("sum", "mean", "max", "min", "reshape", "transpose", "astype"):
                return Method(value, attr)
            raise source.error(node, "unsupported array attribute '.%s'" % attr)
        if isinstance(value, Opaque) and value.obj is np:
            if attr in NP_CONSTANTS:
                return Const(NP_CONSTANTS[attr])
            obj = getattr(np, attr, None)
            if obj is not None and (_is_dtype(obj) or _is_numpy_callable(obj)):
                return Opaque(obj)
            raise source.error(node, "numpy.%s is not supported in a jitted function"
                               % attr)
        raise source.error(node, "unsupported attribute '.%s' of %s"
                           % (attr, _describe(value)))

    # -- emission helpers ----------------------------------------------------

    def kernel(self, source, node, op, operands, dtype, shape, attrs=""):
        parts = [op]
        for v in operands:
            if isinstance(v, Array):
                parts.append(v.name)
            else:
                parts.append(v)
        rhs = "kernel(%s%s)" % (", ".join(parts), (", " + attrs) if attrs else "")
        return self.b.emit(source, node, rhs, dtype, shape)

    def cast(self, source, node, v, dtype):
        dtype = np.dtype(dtype)
        if isinstance(v, Const):
            return self.materialize(source, node, v, dtype)
        if v.dtype == dtype:
            return v
        return self.kernel(source, node, "cast", [v], dtype, v.shape,
                           AIR_DTYPES[dtype])

    def materialize(self, source, node, c, dtype):
        """A compile-time number as a 0-d array of `dtype`."""
        dtype = np.dtype(dtype)
        value = c.value
        if dtype.kind in "iub":
            if isinstance(value, float) and value != int(value):
                raise source.error(node, "the number %r does not fit %s"
                                   % (value, dtype))
            value = int(value)
            lit = literal(value)
        else:
            lit = literal(float(value))
        if lit is None:
            raise source.error(node, "non-finite constants (%r) are not supported"
                               % (value,))
        if dtype in (np.dtype(np.float32), np.dtype(np.bool_)):
            return self.kernel(source, node, "cast", [lit], dtype, (), AIR_DTYPES[dtype])
        # A literal without a typed peer is an f32 (docs/Air.md): give it a
        # zero of the dtype as its peer, so it is read exactly.
        zero = self.kernel(source, node, "cast", ["0"], dtype, (), AIR_DTYPES[dtype])
        return self.kernel(source, node, "add", [zero, lit], dtype, ())

    def operand(self, source, node, v, dtype):
        """`v` converted to `dtype`: an Array, or a literal's text when `v`
        is a compile-time number (the AIR literal takes its peer's dtype)."""
        if isinstance(v, Const):
            if dtype.kind in "iub":
                if isinstance(v.value, float) and v.value != int(v.value):
                    return self.materialize(source, node, v, dtype)
                return literal(int(v.value))
            lit = literal(float(v.value))
            if lit is None:
                raise source.error(node, "non-finite constants (%r) are not "
                                         "supported" % (v.value,))
            return lit
        return self.cast(source, node, v, dtype)

    def need_array(self, source, node, v, what):
        if isinstance(v, (Array, Const)):
            return v
        raise source.error(node, "%s takes arrays or numbers, got %s"
                           % (what, _describe(v)))

    def promote_at(self, source, node, values, what):
        """promote(), with the errors located at `node`."""
        for v in values:
            self.need_array(source, node, v, what)
        try:
            return self.promote(values)
        except ValueError as e:
            raise source.error(node, str(e))

    def promote(self, values):
        reps = []
        for v in values:
            if isinstance(v, Const):
                reps.append(v.value)
            elif isinstance(v, Weak):
                reps.append(v.pytype(0))
            elif len(v.shape) == 0:
                reps.append(np.zeros((), v.dtype))
            else:
                reps.append(v.dtype)
        dtype = np.result_type(*reps)
        if dtype not in AIR_DTYPES:
            raise ValueError("the result type %s is not supported (float32, float64, "
                             "int32, int64 and bool are)" % dtype)
        return dtype

    def elementwise(self, source, node, op, values, dtype=None, result_dtype=None,
                    what=None):
        """Emits `op` over `values` (Arrays or Consts) converted to `dtype`
        (default: their promotion), broadcasting."""
        values = [self.need_array(source, node, v, what or op) for v in values]
        arrays = [v for v in values if isinstance(v, Array)]
        try:
            dtype = np.dtype(dtype) if dtype is not None else self.promote(values)
            shape = broadcast_shapes([v.shape for v in arrays]) if arrays else ()
        except ValueError as e:
            raise source.error(node, str(e))
        if not arrays:
            raise Located(node, "constant folding failed")  # callers fold first
        # A literal takes the dtype of the kernel's first value operand.
        ops = [self.operand(source, node, v, dtype) for v in values]
        return self.kernel(source, node, op, ops,
                           result_dtype if result_dtype is not None else dtype, shape)

    # -- operators -----------------------------------------------------------

    BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
              ast.Pow: "pow", ast.MatMult: "matmul"}
    PYOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
             ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
             ast.Pow: lambda a, b: a ** b, ast.FloorDiv: lambda a, b: a // b,
             ast.Mod: lambda a, b: a % b}

    def binop(self, source, node, op, left, right):
        if isinstance(left, Const) and isinstance(right, Const) and type(op) in self.PYOPS:
            try:
                return Const(self.PYOPS[type(op)](left.value, right.value))
            except (ArithmeticError, ValueError) as e:
                raise source.error(node, "constant expression: %s" % e)
        if isinstance(left, Tuple) and isinstance(right, Tuple) and isinstance(op, ast.Add):
            return Tuple(left.items + right.items)
        kind = type(op)
        if kind is ast.MatMult:
            return self.matmul(source, node, left, right)
        if kind not in self.BINOPS:
            raise source.error(node, "unsupported operator '%s' (supported: + - * / "
                                     "** @)" % _opname(op))
        dtype = self.promote_at(source, node, [left, right],
                                "operator '%s'" % _opname(op))
        if dtype.kind == "b" and kind in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow):
            if kind is not ast.Div:
                raise source.error(node, "arithmetic on booleans is not supported "
                                         "(use .astype first)")
        if kind is ast.Div and dtype.kind in "iub":
            dtype = np.dtype(np.float64)  # true division, as numpy
        if kind is ast.Pow:
            return self.power(source, node, left, right, dtype)
        return self.elementwise(source, node, self.BINOPS[kind], [left, right], dtype)

    def power(self, source, node, base, exponent, dtype):
        if isinstance(exponent, Const) and not isinstance(exponent.value, bool):
            e = exponent.value
            if isinstance(base, Array):
                b = self.cast(source, node, base, dtype)
                if e == 2:
                    return self.kernel(source, node, "mul", [b, b], dtype, b.shape)
                if e == 1:
                    return b if b is not base else self.kernel(
                        source, node, "mul", [b, "1"], dtype, b.shape)
                if dtype.kind in "iu":
                    if not (isinstance(e, int) and e >= 0):
                        raise source.error(node, "integers to negative or "
                                                 "non-integer powers are not "
                                                 "allowed (numpy raises too)")
                    if e == 0:  # ones, as numpy (0 ** 0 == 1)
                        zero = self.kernel(source, node, "mul", [b, "0"], dtype,
                                           b.shape)
                        return self.kernel(source, node, "add", [zero, "1"], dtype,
                                           b.shape)
                    result = b
                    for _ in range(e - 1):
                        result = self.kernel(source, node, "mul", [result, b], dtype,
                                             b.shape)
                    return result
                if e == 0.5:
                    return self.kernel(source, node, "sqrt", [b], dtype, b.shape)
        if dtype.kind in "iu":
            raise source.error(node, "an integer power needs a constant non-negative "
                                     "integer exponent")
        return self.elementwise(source, node, "pow", [base, exponent], dtype)

    def unary(self, source, node, v):
        if isinstance(v, Const):
            if isinstance(node.op, ast.USub):
                return Const(-v.value)
            if isinstance(node.op, ast.UAdd):
                return v
            if isinstance(node.op, ast.Not):
                return Const(not v.value)
        if isinstance(node.op, ast.UAdd) and isinstance(v, Array):
            return v
        if isinstance(node.op, ast.USub):
            self.need_array(source, node, v, "unary '-'")
            if v.dtype.kind == "b":
                raise source.error(node, "unary '-' on booleans is not supported")
            return self.kernel(source, node, "neg", [v], v.dtype, v.shape)
        raise source.error(node, "unsupported unary operator '%s'" % _opname(node.op))

    PYCMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
             ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
    CMPOPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le",
              ast.Gt: "gt", ast.GtE: "ge"}

    def compare(self, source, node, op, left, right):
        if type(op) not in self.CMPOPS:
            raise source.error(node, "unsupported comparison '%s'" % _opname(op))
        if isinstance(left, Const) and isinstance(right, Const):
            return Const(bool(self.PYCMP[type(op)](left.value, right.value)))
        dtype = self.promote_at(source, node, [left, right],
                                "comparison '%s'" % _opname(op))
        return self.elementwise(source, node, self.CMPOPS[type(op)], [left, right],
                                dtype, result_dtype=np.bool_)

    # -- array operations ----------------------------------------------------

    def unary_math(self, source, node, fn, v):
        v = self.need_array(source, node, v, "np." + fn)
        if isinstance(v, Const):
            try:
                return Const(float(getattr(np, fn)(np.float64(v.value))))
            except FloatingPointError as e:
                raise source.error(node, str(e))
        if v.dtype.kind == "b":
            raise source.error(node, "np.%s of booleans is not supported" % fn)
        if v.dtype.kind in "iu":
            v = self.cast(source, node, v, np.float64)
        return self.kernel(source, node, UNARY_FUNCS[fn], [v], v.dtype, v.shape)

    def absolute(self, source, node, v):
        v = self.need_array(source, node, v, "abs")
        if isinstance(v, Const):
            return Const(abs(v.value))
        if v.dtype.kind == "b":
            return v
        return self.kernel(source, node, "abs", [v], v.dtype, v.shape)

    def reduce(self, source, node, fn, v, axis, keepdims):
        v = self.need_array(source, node, v, "np." + fn)
        if isinstance(v, Const):
            v = self.materialize(source, node, v, self.promote([v]))
        try:
            axes = normalize_axes(axis, len(v.shape))
        except ValueError as e:
            raise source.error(node, str(e))
        kind = REDUCTIONS[fn]
        dtype = v.dtype
        if kind == "sum" and dtype.kind in "biu":
            dtype = np.result_type(v.dtype, np.int_)  # numpy sums ints as int_
            if dtype not in AIR_DTYPES:
                dtype = np.dtype(np.int64)
        elif kind == "mean" and dtype.kind in "biu":
            dtype = np.dtype(np.float64)
        elif kind in ("max", "min") and dtype.kind == "b":
            raise source.error(node, "np.%s of booleans is not supported" % fn)
        if kind in ("max", "min") and any(v.shape[a] == 0 for a in axes):
            raise source.error(node, "np.%s over an empty axis has no identity" % fn)
        x = self.cast(source, node, v, dtype)
        if not axes:
            result = x
        else:
            shape = tuple(d for i, d in enumerate(v.shape) if i not in axes)
            result = self.kernel(source, node, kind, [x], dtype, shape,
                                 "axes=[%s]" % ", ".join(str(a) for a in axes))
        if keepdims:
            kept = tuple(1 if i in axes else d for i, d in enumerate(v.shape))
            if kept != result.shape:
                result = self.reshape_to(source, node, result, kept)
        return result

    def reshape_to(self, source, node, v, shape):
        if tuple(shape) == v.shape:
            return v
        return self.kernel(source, node, "reshape", [v], v.dtype, shape,
                           "shape=[%s]" % ", ".join(str(d) for d in shape))

    def reshape(self, source, node, v, shape_values):
        v = self.need_array(source, node, v, "reshape")
        if isinstance(v, Const):
            v = self.materialize(source, node, v, self.promote([v]))
        dims = []
        for s in shape_values:
            if isinstance(s, Tuple):
                dims.extend(s.items)
            else:
                dims.append(s)
        shape = []
        for d in dims:
            if not (isinstance(d, Const) and isinstance(d.value, int)
                    and not isinstance(d.value, bool)):
                raise source.error(node, "reshape takes a shape of constant integers "
                                         "(numbers, or sizes from .shape)")
            shape.append(d.value)
        size = int(np.prod(v.shape, dtype=np.int64))
        if shape.count(-1) > 1:
            raise source.error(node, "reshape: at most one size may be -1")
        if any(d < -1 for d in shape):
            raise source.error(node, "reshape: negative size in %s" % shape)
        if -1 in shape:
            known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
            if known == 0 or size % known:
                raise source.error(node, "cannot reshape an array of size %d into "
                                         "shape %s" % (size, shape))
            shape[shape.index(-1)] = size // known
        if int(np.prod(shape, dtype=np.int64)) != size:
            raise source.error(node, "cannot reshape an array of size %d into shape %s"
                               % (size, shape))
        return self.reshape_to(source, node, v, tuple(shape))

    def transpose(self, source, node, v, perm_values):
        v = self.need_array(source, node, v, "transpose")
        if isinstance(v, Const):
            return v
        ndim = len(v.shape)
        if perm_values is None or perm_values == []:
            perm = list(range(ndim))[::-1]
        else:
            items = []
            for p in perm_values:
                items.extend(p.items if isinstance(p, Tuple) else [p])
            if not all(isinstance(p, Const) and isinstance(p.value, int) for p in items):
                raise source.error(node, "transpose takes constant integer axes")
            raw = [p.value for p in items]
            if len(raw) != ndim:
                raise source.error(node, "transpose: %d axes for an array of %d "
                                         "dimensions" % (len(raw), ndim))
            try:
                perm = [a + ndim if a < 0 else a for a in raw]
                if sorted(perm) != list(range(ndim)):
                    raise ValueError("axes %s are not a permutation" % raw)
            except ValueError as e:
                raise source.error(node, "transpose: %s" % e)
        if perm == list(range(ndim)):
            return v
        shape = tuple(v.shape[p] for p in perm)
        return self.kernel(source, node, "transpose", [v], v.dtype, shape,
                           "perm=[%s]" % ", ".join(str(p) for p in perm))

    def astype(self, source, node, v, dtype_value):
        dtype = self.dtype_of(source, node, dtype_value)
        if isinstance(v, Const):
            return self.materialize(source, node, v, dtype)
        v = self.need_array(source, node, v, "astype")
        return self.cast(source, node, v, dtype) if v.dtype != dtype else \
            self.kernel(source, node, "cast", [v], dtype, v.shape, AIR_DTYPES[dtype])

    def dtype_of(self, source, node, value):
        obj = value.obj if isinstance(value, Opaque) else None
        try:
            dtype = np.dtype(obj) if obj is not None else None
        except TypeError:
            dtype = None
        if dtype is None or dtype not in AIR_DTYPES:
            raise source.error(node, "astype takes float32, float64, int32, int64 or "
                                     "bool, got %s" % _describe(value))
        return dtype

    def matmul(self, source, node, a, b):
        for v in (a, b):
            if not isinstance(v, Array):
                raise source.error(node, "matmul takes arrays, got %s" % _describe(v))
        if len(a.shape) == 0 or len(b.shape) == 0:
            raise source.error(node, "matmul: scalar operands are not allowed (use *)")
        if len(a.shape) > 2 or len(b.shape) > 2:
            raise source.error(node, "matmul of arrays with more than 2 dimensions "
                                     "(batched) is not supported")
        dtype = self.promote_at(source, node, [a, b], "matmul")
        if dtype.kind == "b":
            raise source.error(node, "matmul of booleans is not supported")
        a2 = a if len(a.shape) == 2 else self.reshape_to(source, node, a, (1,) + a.shape)
        b2 = b if len(b.shape) == 2 else self.reshape_to(source, node, b, b.shape + (1,))
        if a2.shape[1] != b2.shape[0]:
            raise source.error(node, "matmul: inner sizes differ (%s @ %s)"
                               % (list(a.shape), list(b.shape)))
        a2 = self.cast(source, node, a2, dtype)
        b2 = self.cast(source, node, b2, dtype)
        r = self.kernel(source, node, "matmul", [a2, b2], dtype,
                        (a2.shape[0], b2.shape[1]))
        shape = tuple(([a.shape[0]] if len(a.shape) == 2 else [])
                      + ([b.shape[1]] if len(b.shape) == 2 else []))
        return self.reshape_to(source, node, r, shape)

    def where(self, source, node, cond, a, b):
        for v in (cond, a, b):
            self.need_array(source, node, v, "np.where")
        if isinstance(cond, Const):
            cond = self.materialize(source, node, Const(bool(cond.value)), np.bool_)
        if cond.dtype.kind != "b":
            cond = self.elementwise(source, node, "ne", [cond, Const(0)],
                                    result_dtype=np.bool_)
        try:
            dtype = self.promote([a, b]) if (isinstance(a, Array) or isinstance(b, Array)) \
                else np.result_type(a.value, b.value)
            if dtype not in AIR_DTYPES:
                raise ValueError("np.where: the result type %s is not supported" % dtype)
        except ValueError as e:
            raise source.error(node, str(e))
        a = self.cast(source, node, a, dtype)
        b = self.cast(source, node, b, dtype)
        try:
            shape = broadcast_shapes([cond.shape, a.shape, b.shape])
        except ValueError as e:
            raise source.error(node, str(e))
        return self.kernel(source, node, "select", [cond, a, b], dtype, shape)

    def minmax2(self, source, node, fn, a, b):
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(max(a.value, b.value) if fn == "max" else min(a.value, b.value))
        dtype = self.promote_at(source, node, [a, b], "np.maximum/np.minimum")
        if dtype.kind == "b":
            raise source.error(node, "np.maximum/np.minimum of booleans is not "
                                     "supported")
        return self.elementwise(source, node, fn, [a, b], dtype)

    # -- calls ---------------------------------------------------------------

    def call(self, source, env, scope, node):
        ev = lambda n: self.expr(source, env, scope, n)  # noqa: E731
        func = ev(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = ev(a.value)
                if not isinstance(v, Tuple):
                    raise source.error(a, "only a tuple can be unpacked with '*'")
                args.extend(v.items)
            else:
                args.append(ev(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                raise source.error(k, "'**' arguments are not supported")
            kwargs[k.arg] = (k, ev(k.value))

        def kw(name, default=None):
            if name in kwargs:
                return kwargs.pop(name)[1]
            return default

        def done():
            if kwargs:
                k = next(iter(kwargs.values()))[0]
                raise source.error(k, "unexpected keyword argument '%s'" % k.arg)

        def const_axis(v):
            if v is None or (isinstance(v, Opaque) and v.obj is None):
                return None
            if isinstance(v, Const):
                return v.value
            if isinstance(v, Tuple) and all(isinstance(x, Const) for x in v.items):
                return tuple(x.value for x in v.items)
            raise source.error(node, "axis must be a constant integer or a tuple of "
                                     "them")

        def const_bool(v):
            if v is None:
                return False
            if isinstance(v, Const):
                return bool(v.value)
            raise source.error(node, "keepdims must be a constant")

        def arity(n, name):
            if len(args) != n:
                raise source.error(node, "%s takes %d argument%s, got %d"
                                   % (name, n, "" if n == 1 else "s", len(args)))

        if isinstance(func, Method):
            a = func.array
            if func.name in ("sum", "mean", "max", "min"):
                axis = kw("axis", args[0] if args else None)
                keepdims = kw("keepdims")
                if len(args) > 1:
                    raise source.error(node, ".%s takes one positional argument "
                                             "(axis)" % func.name)
                done()
                return self.reduce(source, node, func.name, a, const_axis(axis),
                                   const_bool(keepdims))
            if func.name == "reshape":
                done()
                return self.reshape(source, node, a, args)
            if func.name == "transpose":
                done()
                return self.transpose(source, node, a, args)
            if func.name == "astype":
                done()
                arity(1, ".astype")
                return self.astype(source, node, a, args[0])
        if isinstance(func, Opaque):
            obj = func.obj
            if isinstance(obj, self.jit_type):
                done()
                return self.call_jit(source, node, obj, args)
            if obj is abs or obj is getattr(np, "abs") or obj is np.absolute:
                done()
                arity(1, "abs")
                return self.absolute(source, node, args[0])
            if any(obj is t for t in (float, int, bool)) or _is_dtype(obj):
                done()
                arity(1, getattr(obj, "__name__", "dtype"))
                v = args[0]
                if isinstance(v, Const):
                    return Const(obj(v.value)) if obj in (float, int, bool) \
                        else self.materialize(source, node, v, np.dtype(obj))
                if obj in (float, int, bool):
                    raise source.error(node, "%s() of an array is not supported (use "
                                             ".astype)" % obj.__name__)
                return self.astype(source, node, v, Opaque(obj))
            if obj is len:
                done()
                arity(1, "len")
                v = args[0]
                if isinstance(v, Tuple):
                    return Const(len(v.items))
                if isinstance(v, Array) and v.shape:
                    return Const(v.shape[0])
                raise source.error(node, "len() of %s" % _describe(v))
            name = getattr(obj, "__name__", None)
            if _is_numpy_callable(obj):
                if name in UNARY_FUNCS:
                    done()
                    arity(1, "np." + name)
                    return self.unary_math(source, node, name, args[0])
                if name in REDUCTIONS:
                    if not args:
                        raise source.error(node, "np.%s needs an array" % name)
                    axis = kw("axis", args[1] if len(args) > 1 else None)
                    keepdims = kw("keepdims")
                    done()
                    if len(args) > 2:
                        raise source.error(node, "np.%s takes an array and an axis"
                                           % name)
                    return self.reduce(source, node, name, args[0], const_axis(axis),
                                       const_bool(keepdims))
                if name in ("maximum", "minimum"):
                    done()
                    arity(2, "np." + name)
                    return self.minmax2(source, node, name[:3], args[0], args[1])
                if name == "where":
                    done()
                    arity(3, "np.where")
                    return self.where(source, node, *args)
                if name in ("matmul", "dot"):
                    done()
                    arity(2, "np." + name)
                    return self.matmul(source, node, args[0], args[1])
                if name == "transpose":
                    axes = kw("axes", args[1] if len(args) > 1 else None)
                    done()
                    return self.transpose(source, node, args[0],
                                          None if axes is None else [axes])
                if name == "reshape":
                    shape = kw("newshape", args[1] if len(args) > 1 else None)
                    done()
                    if shape is None:
                        raise source.error(node, "np.reshape needs a shape")
                    return self.reshape(source, node, args[0], [shape])
        raise source.error(node, "unsupported call of %s" % _describe(func))

    def call_jit(self, source, node, callee, args):
        info = callee._info()
        if info.qualname in self.stack:
            raise source.error(node, "recursive call of '%s' (jitted functions may "
                                     "not recurse)" % info.qualname)
        try:
            return Tracer(self.b, self.jit_type, self.stack).run(info, args)
        except Located as e:
            raise source.error(node, e.message)


def _is_dtype(obj):
    return any(obj is d for d in NUMPY_DTYPES)


def _is_numpy_callable(obj):
    name = getattr(obj, "__name__", None)
    if name is None or not callable(obj):
        return False
    return getattr(np, name, None) is obj and name in (
        set(UNARY_FUNCS) | set(REDUCTIONS) | {"maximum", "minimum", "where", "matmul",
                                               "dot", "transpose", "reshape", "abs",
                                               "absolute"})


def _opname(op):
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
            ast.MatMult: "@", ast.FloorDiv: "//", ast.Mod: "%", ast.BitAnd: "&",
            ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
            ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
            ast.NotIn: "not in", ast.USub: "-", ast.UAdd: "+", ast.Not: "not",
            ast.Invert: "~"}.get(type(op), type(op).__name__)


_AIR_DIAG = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): "
                       r"(?P<sev>error|warning|note): (?P<msg>.*)$")


def locate_air_errors(builder, air_name, message):
    """The AIR compiler's diagnostics -> CompileError at the first error's
    Python origin; every diagnostic's text is kept."""
    first = None
    texts = []
    for line in message.splitlines():
        m = _AIR_DIAG.match(line)
        if m and m.group("file") == air_name:
            origin = builder.origins.get(int(m.group("line")))
            if first is None and origin is not None and m.group("sev") == "error":
                first = (origin, m.group("msg"))
            texts.append(m.group("msg"))
        else:
            texts.append(line)
    if first is None:
        return CompileError("the AIR compiler failed: " + "\n".join(texts))
    (source, node), msg = first
    detail = "; ".join(t for t in texts if t != msg)
    return source.error(node, msg + (" (" + detail + ")" if detail else ""))
