"""unum.nn.compile_float: a float model JSON -> fused CPU kernels.

The model is imported, dead nodes are removed and convert-nn-to-air lowers it
to one air function (libUnum's unum_nn_to_air), which the array compiler
JIT-compiles for this CPU like any AIR program (docs/NNImport.md)."""
import ctypes
import json
import os

import numpy as np

from . import _capi


def model_text(model):
    """(JSON text, name for diagnostics) of a dict, a JSON text or a path."""
    if isinstance(model, dict):
        return json.dumps(model), "<model>"
    if isinstance(model, (str, os.PathLike)) and os.path.exists(model):
        filename = os.fspath(model)
        with open(filename, "rb") as f:
            return f.read().decode("utf-8"), filename
    if isinstance(model, str):
        return model, "<model>"
    raise TypeError("unum.nn: model must be a dict, a JSON text or a path")


class FloatModel:
    """A float model compiled for this CPU: call it with the [L, C] input
    (float32; other dtypes are converted) to get the [L_out, C_out] output.
    `air` is the air module it was compiled from."""

    def __init__(self, air, handle):
        self.air = air
        self._handle = handle
        lib = _capi.lib
        k = 0  # convert-nn-to-air makes one function, named after the model
        assert lib.unum_kernels_count(handle) == 1
        self.name = lib.unum_kernel_name(handle, k).decode()

        def params(output):
            shapes = []
            for p in range(lib.unum_kernel_num_params(handle, k, output)):
                rank = lib.unum_kernel_param_rank(handle, k, output, p)
                shapes.append(tuple(lib.unum_kernel_param_size(handle, k, output, p, d)
                                    for d in range(rank)))
            return shapes

        self.input_shapes, (self.output_shape,) = params(0), params(1)

    def __del__(self):
        if getattr(self, "_handle", None) and _capi.lib is not None:
            _capi.lib.unum_kernels_destroy(self._handle)
            self._handle = None

    def __call__(self, *inputs):
        if len(inputs) != len(self.input_shapes):
            raise TypeError("model '%s' takes %d input(s), got %d"
                            % (self.name, len(self.input_shapes), len(inputs)))
        arrays = []
        for x, shape in zip(inputs, self.input_shapes):
            x = np.ascontiguousarray(x, dtype=np.float32)
            if x.shape != shape:
                raise ValueError("model '%s': input of shape %s, expected %s (the IR "
                                 "layout [L, C])" % (self.name, x.shape, shape))
            arrays.append(x)
        out = np.empty(self.output_shape, dtype=np.float32)
        descriptors = []
        for a in arrays + [out]:
            strides = [s // a.itemsize for s in a.strides]
            d = np.array([a.ctypes.data, a.ctypes.data, 0] + list(a.shape) + strides,
                         dtype=np.int64)
            descriptors.append(d)
        pointers = (ctypes.c_void_p * len(descriptors))(
            *[d.ctypes.data for d in descriptors])
        _capi.check(_capi.lib.unum_kernels_call(self._handle, self.name.encode(),
                                                pointers, len(descriptors)))
        return out


def compile_float(model, opt_level=3):
    """Compiles the float model (a dict, a JSON text or a path) for this CPU
    through convert-nn-to-air; returns a FloatModel."""
    text, filename = model_text(model)
    air = ctypes.c_void_p()
    _capi.check(_capi.lib.unum_nn_to_air(_capi.context().handle, text.encode(),
                                         filename.encode(), ctypes.byref(air)))
    air = _capi.take_string(air)
    handle = ctypes.c_void_p()
    options = _capi.AirOptions(None, None, None, opt_level)
    _capi.check(_capi.lib.unum_air_jit(_capi.context().handle, air.encode(),
                                       (filename + ".air.mlir").encode(),
                                       ctypes.byref(options), ctypes.byref(handle)))
    return FloatModel(air, handle)
