"""ctypes bindings of libUnum's C API (include/unum-c/Unum.h).

The library is found, in order, at $UNUM_LIBRARY, next to the package in a
build tree (build/python/unum -> build/lib/libUnum.so) or an install
(PREFIX/lib/python/unum -> PREFIX/lib/libUnum.so), then by the dynamic
loader's search path.
"""
import ctypes
import ctypes.util
import os
import threading

from .errors import UnumError

API_MAJOR = 1  # the major number of UNUM_C_API_VERSION this package speaks

_here = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("UNUM_LIBRARY")
    if env:
        yield env
        return
    yield os.path.join(_here, "..", "..", "lib", "libUnum.so")  # build tree
    yield os.path.join(_here, "..", "..", "libUnum.so")  # PREFIX/lib/python
    found = ctypes.util.find_library("Unum")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("unum: cannot find libUnum.so; tried: %s (set UNUM_LIBRARY)"
                      % ", ".join(tried))


lib = _load()

c_p = ctypes.c_void_p
c_s = ctypes.c_char_p


class AirOptions(ctypes.Structure):
    _fields_ = [("entry", c_s), ("signature", c_s), ("cpu", c_s),
                ("opt_level", ctypes.c_uint)]


class WorkflowOptions(ctypes.Structure):
    _fields_ = [("format", c_s), ("name", c_s)]


HANDLER_FN = ctypes.CFUNCTYPE(None, c_p, c_s, c_s, c_p)


class WorkflowRunOptions(ctypes.Structure):
    _fields_ = [("store", c_s), ("workers", ctypes.c_uint),
                ("time_scale", ctypes.c_double), ("handler", HANDLER_FN),
                ("handler_data", c_p)]


class NNOptions(ctypes.Structure):
    _fields_ = [("quantize", c_s), ("parallelism", ctypes.c_uint)]


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_proto("unum_api_version", ctypes.c_uint32)
_proto("unum_version_string", c_s)
_proto("unum_error_message", c_s, c_p)
_proto("unum_error_destroy", None, c_p)
_proto("unum_string_free", None, c_p)
_proto("unum_context_create", c_p, ctypes.POINTER(c_p))
_proto("unum_context_destroy", None, c_p)
_proto("unum_air_jit", c_p, c_p, c_s, c_s, ctypes.POINTER(AirOptions),
       ctypes.POINTER(c_p))
_proto("unum_air_jit_threads", c_p, c_p, c_s, c_s, ctypes.POINTER(AirOptions),
       ctypes.c_uint, ctypes.POINTER(c_p))
_proto("unum_kernels_destroy", None, c_p)
_proto("unum_kernels_count", ctypes.c_size_t, c_p)
_proto("unum_kernel_name", c_s, c_p, ctypes.c_size_t)
_proto("unum_kernel_num_params", ctypes.c_size_t, c_p, ctypes.c_size_t, ctypes.c_int)
_proto("unum_kernel_param_name", c_s, c_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_size_t)
_proto("unum_kernel_param_dtype", c_s, c_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_size_t)
_proto("unum_kernel_param_rank", ctypes.c_size_t, c_p, ctypes.c_size_t, ctypes.c_int,
       ctypes.c_size_t)
_proto("unum_kernel_param_size", ctypes.c_int64, c_p, ctypes.c_size_t, ctypes.c_int,
       ctypes.c_size_t, ctypes.c_size_t)
_proto("unum_kernels_lookup", c_p, c_p, c_s)
_proto("unum_kernels_return_status", ctypes.c_int)
_proto("unum_kernels_call", c_p, c_p, c_s, ctypes.POINTER(c_p), ctypes.c_size_t)
_proto("unum_air_emit_object", c_p, c_p, c_s, c_s, ctypes.POINTER(AirOptions), c_s, c_s)
_proto("unum_air_print", c_p, c_p, c_s, c_s, ctypes.POINTER(AirOptions), c_s,
       ctypes.POINTER(c_p))
_proto("unum_workflow_compile", c_p, c_p, c_s, c_s, ctypes.POINTER(WorkflowOptions))
_proto("unum_handler_reply_output", None, c_p, c_s)
_proto("unum_handler_reply_error", None, c_p, c_s, c_s)
_proto("unum_workflow_run", c_p, c_p, c_s, c_s, ctypes.POINTER(WorkflowRunOptions),
       ctypes.POINTER(c_p))
_proto("unum_nn_to_vhdl", c_p, c_p, c_s, c_s, ctypes.POINTER(NNOptions), c_s,
       ctypes.POINTER(c_p))
_proto("unum_nn_to_air", c_p, c_p, c_s, c_s, ctypes.POINTER(c_p))

if lib.unum_api_version() >> 16 != API_MAJOR:
    raise ImportError("unum: libUnum speaks C API %d.%d, this package speaks %d.x"
                      % (lib.unum_api_version() >> 16,
                         lib.unum_api_version() & 0xFFFF, API_MAJOR))


# 1 when kernels return an int32_t status (the kernel ABI of issue 14).
KERNELS_RETURN_STATUS = lib.unum_kernels_return_status()


def check(error, exc=UnumError):
    """Raises `exc` with the error value's message (and frees it)."""
    if error:
        message = lib.unum_error_message(error).decode("utf-8", "replace")
        lib.unum_error_destroy(error)
        raise exc(message.rstrip("\n"))


def take_string(ptr):
    """The text of a char * the library returned; frees it."""
    if not ptr.value:
        return ""
    text = ctypes.string_at(ptr.value).decode("utf-8", "replace")
    lib.unum_string_free(ptr)
    return text


def encode(s):
    return None if s is None else os.fsencode(s) if isinstance(s, os.PathLike) \
        else s.encode("utf-8")


class Context:
    """One unum_context; compiles are serialised inside it."""

    def __init__(self):
        handle = c_p()
        check(lib.unum_context_create(ctypes.byref(handle)))
        self.handle = handle

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.unum_context_destroy(self.handle)
            self.handle = None


_context = None
_context_lock = threading.Lock()


def context():
    """The process's shared context, created on first use."""
    global _context
    if _context is None:
        with _context_lock:
            if _context is None:
                _context = Context()
    return _context


def version():
    return lib.unum_version_string().decode()
