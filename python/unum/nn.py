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


def set_precision(model, precision):
    """Returns a copy of `model` (a dict, a JSON text or a path) whose nodes
    named in `precision` carry that per-layer precision (docs/NNJson.md):
    `{"conv1": {"result": "ap_fixed<10, 4>", "weight": "ap_fixed<8, 1>",
    "accum": 24, "rounding": "half_even", "overflow": "wrap"}}`, like the
    per-name entries of hls4ml's `config_from_pytorch_model(...,
    granularity='name')`. An unknown node name raises KeyError; the values
    are checked (with located errors) when the model is compiled."""
    text, _ = model_text(model)
    result = json.loads(text)
    names = {node.get("name") for node in result.get("nodes", [])}
    unknown = sorted(set(precision) - names)
    if unknown:
        raise KeyError("unum.nn.set_precision: no node named %s" % ", ".join(
            repr(n) for n in unknown))
    for node in result["nodes"]:
        if node.get("name") in precision:
            node["precision"] = dict(precision[node["name"]])
    return result


def to_vhdl(model, out_dir, total_bits=8, frac_bits=4, rounding="nearest",
            parallelism=1, quantize=None, overflow="saturate", policy="uniform",
            precision=None):
    """Compiles `model` (a dict, a JSON text, or a path to a .json file) to
    VHDL in `out_dir` (all files or none) and returns a dict with the
    report (`report`, report.json's content) and the quantised nn module
    (`quantized_ir`, what unum-nn-sim reads). The format arguments are the
    model-wide default (nn-quantize's options: `rounding` truncate, nearest
    or half_even, `overflow` saturate or wrap, `policy` uniform or weights);
    `precision` maps node names to per-layer precision (set_precision).
    `quantize`, when given, is nn-quantize's option string and replaces the
    format arguments."""
    if precision:
        model = set_precision(model, precision)
    text, filename = model_text(model)
    if quantize is None:
        quantize = ("total-bits=%d frac-bits=%d rounding=%s overflow=%s "
                    "policy=%s" % (total_bits, frac_bits, rounding, overflow,
                                   policy))
    options = _capi.NNOptions(quantize.encode(), parallelism)
    ir = ctypes.c_void_p()
    _capi.check(_capi.lib.unum_nn_to_vhdl(
        _capi.context().handle, text.encode(), filename.encode(),
        ctypes.byref(options), _capi.encode(os.fspath(out_dir)), ctypes.byref(ir)))
    quantized = _capi.take_string(ir)
    with open(os.path.join(out_dir, "report.json")) as f:
        report = json.load(f)
    return {"report": report, "quantized_ir": quantized}


__all__ = ["to_vhdl", "set_precision", "compile_float", "FloatModel", "from_torch", "from_onnx",
           "torch_order", "UnsupportedModel", "UnumError"]
