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
from ._grad import GradFunction, grad, value_and_grad
from . import nn, workflow

__all__ = ["jit", "JitFunction", "grad", "value_and_grad", "GradFunction",
           "CompileError", "UnumError", "version", "nn", "workflow"]
