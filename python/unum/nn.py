"""Neural networks from Python: the model JSON (docs/NNJson.md) to a VHDL
design, its testbench and report.json, without shelling out
(docs/Python.md). Importers from PyTorch and ONNX (issue 16) will produce
the same JSON and hand it to to_vhdl."""
import ctypes
import json
import os

from . import _capi
from .errors import UnumError


def to_vhdl(model, out_dir, total_bits=8, frac_bits=4, rounding="nearest",
            parallelism=1, quantize=None):
    """Compiles `model` (a dict, a JSON text, or a path to a .json file) to
    VHDL in `out_dir` (all files or none) and returns a dict with the
    report (`report`, report.json's content) and the quantised nn module
    (`quantized_ir`, what unum-nn-sim reads). `quantize`, when given, is
    nn-quantize's option string and replaces the three format arguments."""
    if isinstance(model, dict):
        text, filename = json.dumps(model), "<model>"
    elif isinstance(model, (str, os.PathLike)) and os.path.exists(model):
        filename = os.fspath(model)
        with open(filename, "rb") as f:
            text = f.read().decode("utf-8")
    elif isinstance(model, str):
        text, filename = model, "<model>"
    else:
        raise TypeError("unum.nn.to_vhdl: model must be a dict, a JSON text or a "
                        "path")
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


__all__ = ["to_vhdl", "UnumError"]
