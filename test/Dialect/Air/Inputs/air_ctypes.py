"""Calling unum-airc kernels from Python through ctypes (docs/AirABI.md).

Shared by the AIR program tests (grad_torch.py, differential.py, the pytest
AIR tests) and the rows bench: build one shared library from AIR files or text, describe numpy arrays -- any view, strides and
offset included -- as memref descriptors, call a kernel and get its status.
"""
import concurrent.futures
import ctypes
import subprocess

import numpy as np

_CTYPES = {np.dtype(np.float32): ctypes.c_float,
           np.dtype(np.float64): ctypes.c_double,
           np.dtype(np.int32): ctypes.c_int32,
           np.dtype(np.int64): ctypes.c_int64,
           np.dtype(np.bool_): ctypes.c_bool}
_desc_types = {}


def desc_type(rank, ctype):
    key = (rank, ctype)
    if key not in _desc_types:
        fields = [("allocated", ctypes.POINTER(ctype)),
                  ("aligned", ctypes.POINTER(ctype)), ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank),
                       ("strides", ctypes.c_int64 * rank)]
        _desc_types[key] = type("Desc%d" % rank, (ctypes.Structure,),
                                {"_fields_": fields})
    return _desc_types[key]


def _root(array):
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def descriptor(array):
    """The descriptor of `array`, a numpy array or any view of one: `aligned`
    is the start of the buffer the view lives in, `offset` and `strides` say
    where the view's elements are (so the offset field is exercised)."""
    ctype = _CTYPES[array.dtype]
    d = desc_type(array.ndim, ctype)()
    root = _root(array)
    base = root.ctypes.data if root.size else array.ctypes.data
    start = array.ctypes.data
    assert (start - base) % array.itemsize == 0
    d.allocated = d.aligned = ctypes.cast(base, ctypes.POINTER(ctype))
    d.offset = (start - base) // array.itemsize
    for i, (n, s) in enumerate(zip(array.shape, array.strides)):
        assert s % array.itemsize == 0
        d.sizes[i] = n
        d.strides[i] = s // array.itemsize
    return d


def call_status(fn, inputs, outputs):
    """Calls kernel `fn` on arrays (views allowed); returns its status."""
    descs = [descriptor(a) for a in inputs] + [descriptor(a) for a in outputs]
    fn.restype = ctypes.c_int32
    return fn(*[ctypes.byref(d) for d in descs])


def call(fn, inputs, out_shapes, dtype):
    """Calls `fn` with fresh contiguous outputs; raises on a non-zero status."""
    outs = [np.zeros(s, dtype=dtype) for s in out_shapes]
    status = call_status(fn, inputs, outs)
    if status != 0:
        raise RuntimeError("kernel status %d" % status)
    return outs


def build_library(airc, cc, files, lib, jobs=2):
    """Compiles AIR `files` with unum-airc (`jobs` at a time) and links one
    shared library `lib`; returns it loaded, or None when a compile failed."""
    objects = [f[:-4] + ".o" for f in files]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        codes = list(pool.map(lambda io: subprocess.run(
            [airc, io[0], "-o", io[1]]).returncode, zip(files, objects)))
    if any(codes):
        return None
    subprocess.run([cc, "-shared"] + objects + ["-o", lib, "-lm"], check=True)
    return ctypes.CDLL(lib)


def compile_library(airc, air, stem, flags=(), threads=1, cc="cc"):
    """Compiles the AIR text `air` with unum-airc (`flags`, `threads`) into
    `stem`.o, links `stem`.so (with libomp for more than one thread) and
    returns it loaded."""
    source, obj, lib = (str(stem) + e for e in (".air", ".o", ".so"))
    with open(source, "w") as f:
        f.write(air)
    if threads > 1:
        flags = list(flags) + ["--num-threads=%d" % threads]
    subprocess.run([airc, source, "-o", obj] + list(flags), check=True)
    omp = ["-L/usr/lib/llvm-22/lib", "-lomp"] if threads > 1 else []
    subprocess.run([cc, "-shared", obj, "-o", lib, "-lm"] + omp, check=True)
    return ctypes.CDLL(lib)


def parse_args(count, seed, chunk):
    """The program tests' command line: --airc --cc --workdir [--count
    --seed --chunk --jobs]."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--airc", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--count", type=int, default=count)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--chunk", type=int, default=chunk)
    ap.add_argument("--jobs", type=int, default=2)
    return ap.parse_args()
