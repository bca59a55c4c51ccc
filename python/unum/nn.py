"""Neural networks from Python: the model JSON (docs/NNJson.md) to a VHDL
design, its testbench and report.json, without shelling out
(docs/Python.md); the importers from PyTorch (from_torch) and ONNX
(from_onnx) produce that JSON (docs/NNImport.md)."""
import ctypes
import json
import os

from . import _capi
from .errors import UnumError
from .nn_layout import UnsupportedModel, torch_order
from .nn_float import FloatModel, compile_float, model_text
from .nn_onnx import from_onnx
from .nn_torch import from_torch


def to_vhdl(model, out_dir, total_bits=8, frac_bits=4, rounding="nearest",
            parallelism=1, quantize=None):
    """Compiles `model` (a dict, a JSON text, or a path to a .json file) to
    VHDL in `out_dir` (all files or none) and returns a dict with the
    report (`report`, report.json's content) and the quantised nn module
    (`quantized_ir`, what unum-nn-sim reads). `quantize`, when given, is
    nn-quantize's option string and replaces the three format arguments."""
    text, filename = model_text(model)
    if quantize is None:
        quantize = "total-bits=%d frac-bits=%d rounding=%s" % (
            total_bits, frac_bits, rounding)
    options = _capi.NNOptions(quantize.encode(), parallelism)
    ir = ctypes.c_void_p()
    _capi.check(_capi.lib.unum_nn_to_vhdl(
        _capi.context().handle, text.encode(), filename.encode(),
        ctypes.byref(options), _capi.encode(os.fspath(out_dir)), ctypes.byref(ir)))
    quantized = _capi.take_string(ir)
    with open(os.path.join(out_dir, "report.json")) as f:
        report = json.load(f)
    return {"report": report, "quantized_ir": quantized}


__all__ = ["to_vhdl", "compile_float", "FloatModel", "from_torch", "from_onnx",
           "torch_order", "UnsupportedModel", "UnumError"]
