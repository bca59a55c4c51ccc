"""Unum from Python: array functions compiled through AIR (unum.jit),
workflows (unum.workflow) and neural networks to VHDL (unum.nn), all over
libUnum's C API (include/unum-c/Unum.h). docs/Python.md is the guide.

    import numpy as np, unum

    @unum.jit
    def f(a, b):
        return np.sum(a * b + 1.0, axis=-1)

    f(np.ones((4, 3)), np.ones(3))   # compiled for (f64[4,3], f64[3]), cached
"""
from ._capi import version
from .errors import CompileError, UnumError
from ._jit import JitFunction, jit
from . import nn, workflow

# unum.grad / unum.value_and_grad (issue 13) will build on JitFunction: the
# AIR function traced for a signature, wrapped in AIR's
# `grad(f, wrt=[...])(...)` statement, compiled like any other.

__all__ = ["jit", "JitFunction", "CompileError", "UnumError", "version", "nn",
           "workflow"]
