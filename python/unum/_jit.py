"""@unum.jit: a Python function compiled per signature through AIR.

parse (ast) -> infer and specialise (unum._frontend, one AIR function per
signature of dtypes and shapes) -> compile (libUnum: air-optimize, fusion,
LLVM for this CPU) -> wrap (numpy arrays in and out, checked here before
the kernel runs). docs/Python.md describes the rules.
"""
import ast
import ctypes
import inspect
import sys
import textwrap
import threading

import numpy as np

from . import _capi
from ._frontend import (AIR_DTYPES, Array, Builder, Const, Located, Source, Tracer,
                        Tuple, Weak, locate_air_errors)
from .errors import CompileError, UnumError

try:  # the C call path (python/unum/_fastcall.c); ctypes when not built
    from . import _fastcall
    _fastcall.configure(np.ndarray, np.generic)
except ImportError:  # pragma: no cover - depends on the build
    _fastcall = None

_PY_SCALARS = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
               float: np.dtype(np.float64)}


class _Env:
    def __init__(self, fn):
        self.globals = fn.__globals__
        self.closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:  # an empty cell: defined later
                    pass


class _Info:
    """A function's parsed source."""

    def __init__(self, fn):
        self.qualname = fn.__qualname__
        try:
            lines, start = inspect.getsourcelines(fn)
            filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
        except (OSError, TypeError) as e:
            raise CompileError("unum.jit cannot read the source of '%s' (%s): define "
                               "it in a file" % (self.qualname, e)) from None
        text = "".join(lines)
        indent = len(lines[0]) - len(lines[0].lstrip())
        tree = ast.parse(textwrap.dedent(text))
        fdefs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not fdefs:
            raise CompileError("unum.jit needs a function defined with 'def' ('%s' is "
                               "not)" % self.qualname, filename, start, indent + 1)
        self.fdef = fdefs[0]
        self.source = Source(filename, tree, start - 1, indent)
        self.env = _Env(fn)


def _arg_key(a):
    """The part of a signature one argument contributes."""
    t = type(a)
    if t is np.ndarray:
        d = a.dtype
        if d not in AIR_DTYPES:
            native = d.newbyteorder("=")
            if native not in AIR_DTYPES:
                raise TypeError("unum.jit: arrays of %s are not supported (float32, "
                                "float64, int32, int64 and bool are)" % d)
            d = native
        return (d, a.shape)
    if t in _PY_SCALARS:
        return t
    if isinstance(a, np.generic):
        if a.dtype not in AIR_DTYPES:
            raise TypeError("unum.jit: scalars of %s are not supported" % a.dtype)
        return (a.dtype, ())
    if t is tuple:
        return ("tuple",) + tuple(_arg_key(x) for x in a)
    if isinstance(a, np.ndarray):
        # Subclasses change what operators mean (np.matrix's * is a matrix
        # product) or carry what a kernel would drop (a masked array's mask).
        raise TypeError("unum.jit: %s arguments are not supported (pass a plain "
                        "numpy array)" % t.__name__)
    if t is list:
        return _arg_key(np.asarray(a))
    raise TypeError("unum.jit: unsupported argument of type %s (arrays, numbers and "
                    "tuples of them are)" % t.__name__)


def _flatten(a, out):
    t = type(a)
    if t is tuple:
        for x in a:
            _flatten(x, out)
    elif t is list:
        out.append(np.asarray(a))
    else:
        out.append(a)


def _refused(status):
    raise UnumError("the kernel refused the call with status %d%s" % (
        status, " (sizes disagree; nothing was written)" if status == 1 else ""))


class _Specialization:
    """One compiled signature: the kernel and how to call it."""

    def __init__(self, kernels, fn_ptr, inputs, outputs, structure, air, key):
        self.kernels = kernels  # keeps the code alive
        self.fn_ptr = fn_ptr
        self.inputs = inputs  # [(dtype, shape)]
        self.outputs = outputs  # [(dtype, shape)]
        self.structure = structure  # how to rebuild the Python result
        self.air = air
        self.fn = ctypes.CFUNCTYPE(
            ctypes.c_int32 if _capi.KERNELS_RETURN_STATUS else None,
            *[ctypes.c_void_p] *
                                   (len(inputs) + len(outputs)))(fn_ptr)
        # One int64 block holds every descriptor: {allocated, aligned, offset,
        # sizes[r], strides[r]} (docs/AirABI.md); only the pointers change.
        words, self.slots, self.offsets = [], [], []
        for dtype, shape in inputs + outputs:
            self.slots.append(len(words))
            self.offsets.append(8 * len(words))
            strides, s = [], 1
            for d in reversed(shape):
                strides.append(s)
                s *= d
            words += [0, 0, 0] + list(shape) + strides[::-1]
        self.template = np.array(words, dtype=np.int64)
        self.n_in = len(inputs)
        self.fast_spec = self._fast_spec(key, words)
        self.single = isinstance(structure, int)

    def _fast_spec(self, key, template):
        """What unum._fastcall checks each argument against (its header
        comment), or None when this signature takes the general path
        (tuple arguments)."""
        if _fastcall is None:
            return None
        words = [len(self.inputs) + len(self.outputs), len(self.inputs),
                 _capi.KERNELS_RETURN_STATUS]
        for k in key:
            if k is float or k is int or k is bool:
                words += [{float: ord("F"), int: ord("I"), bool: ord("B")}[k],
                          8 if k is not bool else 1, 0]
            elif isinstance(k, tuple) and k and k[0] == "tuple":
                return None
            else:
                dtype, shape = k
                words += [ord(dtype.kind), dtype.itemsize, len(shape)] + list(shape)
        for dtype, shape in self.outputs:
            words += [ord(dtype.kind), dtype.itemsize, len(shape)] + list(shape)
        return np.array(words + list(template), dtype=np.int64).tobytes()

    def fast(self, args):
        """The kernel on `args` as they are, or None when one of them is not
        exactly what it was compiled for (then run() copies)."""
        results = [np.empty(shape, dtype) for dtype, shape in self.outputs]
        done = _fastcall.call(self.fast_spec, self.fn_ptr, args, results)
        if done is not True:
            if done is None:
                return None
            _refused(done)
        if self.single:
            r = results[0]
            return r[()] if r.ndim == 0 else r
        return self._rebuild(self.structure, results)

    def run(self, flat, out):
        arrays = []
        for a, (dtype, shape) in zip(flat, self.inputs):
            if type(a) is not np.ndarray or a.dtype != dtype \
                    or not a.flags.c_contiguous or not a.flags.aligned:
                # Copies what the kernel cannot read in place (other dtypes
                # and byte orders, strided or transposed views, scalars):
                # one pass over that argument.
                a = np.array(a, dtype=dtype, order="C")
            arrays.append(a)
        results = [np.empty(shape, dtype) for dtype, shape in self.outputs]
        copy_back = None
        if out is not None:
            results, copy_back = self._outputs(out, arrays, results)
        buf = self.template.copy()
        for slot, a in zip(self.slots, arrays + results):
            p = a.ctypes.data
            buf[slot] = p
            buf[slot + 1] = p
        base = buf.ctypes.data
        status = self.fn(*[base + o for o in self.offsets])
        if status:
            _refused(status)
        if out is not None:
            for target, r in copy_back:
                np.copyto(target, r)
            return out
        return self._rebuild(self.structure, results)

    def _outputs(self, out, inputs, fresh):
        outs = list(out) if isinstance(out, tuple) else [out]
        if len(outs) != len(self.outputs):
            raise ValueError("out= needs %d array%s, got %d" % (
                len(self.outputs), "" if len(self.outputs) == 1 else "s", len(outs)))
        results, copy_back = [], []
        for i, (o, (dtype, shape)) in enumerate(zip(outs, self.outputs)):
            if not isinstance(o, np.ndarray):
                raise TypeError("out=: result %d must be a numpy array" % i)
            if o.shape != shape:
                raise ValueError("out=: result %d has shape %s, the function gives %s"
                                 % (i, o.shape, shape))
            if o.dtype != dtype:
                raise TypeError("out=: result %d has dtype %s, the function gives %s"
                                % (i, o.dtype, dtype))
            if not o.flags.writeable:
                raise ValueError("out=: result %d is read-only" % i)
            overlaps = any(np.may_share_memory(o, a) for a in inputs) or any(
                np.may_share_memory(o, r) for r in results)
            if o.flags.c_contiguous and o.flags.aligned and not overlaps:
                results.append(o)
            else:
                # Outputs must not alias inputs (the kernel's noalias
                # promise) and are written contiguously: go through a
                # temporary, one extra pass.
                results.append(fresh[i])
                copy_back.append((o, fresh[i]))
        return results, copy_back

    def _rebuild(self, structure, results):
        if isinstance(structure, int):
            r = results[structure]
            return r[()] if r.ndim == 0 else r
        return tuple(self._rebuild(s, results) for s in structure)


class JitFunction:
    """A function compiled by unum.jit; call it like the original."""

    def __init__(self, fn, opt_level=3, dynamic=False, threads=1):
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", "f")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = getattr(fn, "__module__", None) or "__main__"
        self.opt_level = opt_level
        if isinstance(threads, bool) or not isinstance(threads, int) or not (
                1 <= threads <= 256):
            raise ValueError("unum.jit: threads must be an int in [1, 256], "
                             "got %r" % (threads,))
        self.threads = threads
        self.dynamic = dynamic
        self._cache = {}  # signature -> _Specialization
        self._by_text = {}  # AIR text -> (kernels, entry point): dynamic reuse
        self._lock = threading.Lock()
        self._parsed = None
        self._last = None  # the last signature called (the fast path's guess)
        self.compile_count = 0

    def _info(self):
        if self._parsed is None:
            self._parsed = _Info(self.__wrapped__)
        return self._parsed

    # Pickled by name when its module has it (pickle), else with its Python
    # function (cloudpickle pickles a __main__ function by value: dask ships
    # jitted functions to workers so). The receiver compiles its own kernels.
    def __reduce__(self):
        module = sys.modules.get(self.__module__)
        if self.__module__ != "__main__" and module is not None:
            obj = module
            for part in self.__qualname__.split("."):
                obj = getattr(obj, part, None)
            if obj is self:
                return self.__qualname__
        return (JitFunction, (self.__wrapped__, self.opt_level, self.dynamic,
                              self.threads))

    def __call__(self, *args, out=None):
        last = self._last
        if last is not None and out is None:
            # The common case: the same signature as the last call, arrays
            # that the kernel reads in place. unum._fastcall checks every
            # argument before anything runs.
            r = last.fast(args)
            if r is not None:
                return r
        try:
            key = tuple([_arg_key(a) for a in args])
        except TypeError as e:
            raise TypeError(str(e)) from None
        spec = self._cache.get(key)
        if spec is None:
            spec = self._specialize(key, args)
        if spec.fast_spec is not None:
            self._last = spec
            if out is None:
                r = spec.fast(args)
                if r is not None:
                    return r
        flat = []
        for a in args:
            _flatten(a, flat)
        return spec.run(flat, out)

    def air(self, *args):
        """The AIR text compiled for these arguments' signature."""
        return self._trace(tuple(_arg_key(a) for a in args), self.dynamic)[0]

    @property
    def signatures(self):
        """The signatures compiled so far."""
        return list(self._cache)

    def _trace(self, key, dynamic=False):
        info = self._info()
        builder = Builder("jit_" + self.__name__)
        inputs = []

        def param(k):
            if isinstance(k, tuple) and k and k[0] == "tuple":
                return Tuple([param(x) for x in k[1:]])
            name = "%%a%d" % len(inputs)
            if k in _PY_SCALARS:
                v = Weak(name, _PY_SCALARS[k], k)
            else:
                v = Array(name, k[0], k[1])
            inputs.append((v.dtype, v.shape))
            builder.params.append(v)
            return v

        args = [param(k) for k in key]
        tracer = Tracer(builder, JitFunction)
        try:
            result = tracer.run(info, args)
        except Located as e:
            raise CompileError(e.message) if e.node is None \
                else info.source.error(e.node, e.message)
        outputs = []

        def collect(v):
            if isinstance(v, Tuple):
                return tuple(collect(x) for x in v.items)
            if isinstance(v, Const):
                value = v.value
                dtype = np.result_type(value)
                if dtype not in AIR_DTYPES:
                    dtype = np.dtype(np.int64) if isinstance(value, int) else \
                        np.dtype(np.float64)
                v = tracer.materialize(info.source, info.fdef, v, dtype)
            if not isinstance(v, Array):
                raise info.source.error(info.fdef, "'%s' returns %s, not arrays, "
                                                   "numbers or tuples of them"
                                        % (self.__name__, type(v).__name__))
            outputs.append(v)
            return len(outputs) - 1

        structure = collect(result)
        # The ABI: outputs never alias inputs or each other. Returning a
        # parameter, or one value twice, copies it (x * 1 or a cast).
        seen = {p.name for p in builder.params}
        for i, v in enumerate(outputs):
            if v.name in seen:
                v = builder.emit(info.source, info.fdef, "kernel(cast, %s, %s)"
                                 % (v.name, AIR_DTYPES[v.dtype]), v.dtype, v.shape)
                outputs[i] = v
            seen.add(v.name)
        text = builder.text(outputs, dynamic=dynamic)
        return text, builder, inputs, [(v.dtype, v.shape) for v in outputs], structure

    def _specialize(self, key, args):
        with self._lock:
            spec = self._cache.get(key)
            if spec is not None:
                return spec
            text, builder, inputs, outputs, structure = self._trace(key, self.dynamic)
            compiled = self._by_text.get(text)
            if compiled is None:
                try:
                    compiled = self._compile(text, builder, inputs, outputs)
                except CompileError:
                    if not self.dynamic:
                        raise
                    # Dynamic sizes the AIR pipeline cannot lower yet (a
                    # reshape of a dynamic array, ...): this signature is
                    # compiled with static sizes instead.
                    text, builder, inputs, outputs, structure = self._trace(key)
                    compiled = self._by_text.get(text) or self._compile(
                        text, builder, inputs, outputs)
                self._by_text[text] = compiled
            kernels, fn_ptr = compiled
            spec = _Specialization(kernels, fn_ptr, inputs, outputs, structure, text,
                                   key)
            self._cache[key] = spec
            return spec

    def _compile(self, text, builder, inputs, outputs):
        air_name = "<unum:%s>" % self.__qualname__
        handle = ctypes.c_void_p()
        options = _capi.AirOptions(None, None, None, self.opt_level)
        err = _capi.lib.unum_air_jit_threads(
            _capi.context().handle, text.encode(), air_name.encode(),
            ctypes.byref(options), self.threads, ctypes.byref(handle))
        if err:
            message = _capi.lib.unum_error_message(err).decode()
            _capi.lib.unum_error_destroy(err)
            raise locate_air_errors(builder, air_name, message)
        kernels = _Kernels(handle)
        fn_ptr = self._check_signature(kernels, builder.name, inputs, outputs)
        self.compile_count += 1
        return kernels, fn_ptr

    def _check_signature(self, kernels, name, inputs, outputs):
        """The compiled kernel's signature must be the one inferred here:
        buffers are allocated from it."""
        lib, h = _capi.lib, kernels.handle
        for k in range(lib.unum_kernels_count(h)):
            if lib.unum_kernel_name(h, k).decode() != name:
                continue
            for is_out, expected in ((0, inputs), (1, outputs)):
                got = []
                for p in range(lib.unum_kernel_num_params(h, k, is_out)):
                    dtype = lib.unum_kernel_param_dtype(h, k, is_out, p).decode()
                    rank = lib.unum_kernel_param_rank(h, k, is_out, p)
                    shape = tuple(lib.unum_kernel_param_size(h, k, is_out, p, d)
                                  for d in range(rank))
                    got.append((dtype, shape))
                want = [(AIR_DTYPES[d], tuple(s)) for d, s in expected]
                # A dynamic size (-1) stands for the traced one.
                if len(got) != len(want) or any(
                        gd != wd or len(gs) != len(ws)
                        or any(g != -1 and g != w for g, w in zip(gs, ws))
                        for (gd, gs), (wd, ws) in zip(got, want)):
                    raise CompileError("internal error: kernel '%s' has %s %s, "
                                       "inferred %s" % (name, "outputs" if is_out
                                                        else "inputs", got, want))
            ptr = lib.unum_kernels_lookup(h, name.encode())
            if ptr:
                return ptr
        raise CompileError("internal error: no kernel '%s' was compiled" % name)


class _Kernels:
    def __init__(self, handle):
        self.handle = handle

    def __del__(self):
        if self.handle and _capi.lib is not None:
            _capi.lib.unum_kernels_destroy(self.handle)
            self.handle = None


def jit(fn=None, *, opt_level=3, dynamic=False, threads=1):
    """Compiles `fn` per signature (dtypes and shapes of its arguments):
    `@unum.jit` or `@unum.jit(opt_level=2, dynamic=True)`. With `dynamic`,
    parameter sizes other than 1 are compiled as run-time sizes, so
    signatures that trace to the same AIR (other sizes, same program) share
    one kernel. With `threads` > 1 the kernels' parallel loops (matmul,
    conv1d, elementwise and axis-0 reductions large enough to gain) run on
    that many OpenMP threads with results identical to one thread (libomp,
    docs/AirABI.md#threads); the default, 1, keeps every kernel on the
    calling thread."""
    if fn is None:
        return lambda f: JitFunction(f, opt_level, dynamic, threads)
    return JitFunction(fn, opt_level, dynamic, threads)

