"""unum.nn.from_onnx: ONNX models (exported from PyTorch with
torch.onnx.export, or built with onnx.helper) -> the model JSON, checked
against PyTorch through the float64 JSON evaluator, and the refusals."""
import io

import numpy as np
import pytest

import unum
from nn_json_eval import evaluate

torch = pytest.importorskip("torch", reason="PyTorch (Debian python3-torch) is not installed")
onnx = pytest.importorskip("onnx", reason="onnx (Debian python3-onnx) is not installed")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from test_nn_torch import Residual, chain  # noqa: E402
from test_nn_torch import check as torch_check  # noqa: E402

nn = torch.nn


def export(module, shape):
    buf = io.BytesIO()
    torch.onnx.export(module, torch.randn(*shape), buf, opset_version=13)
    return buf.getvalue()


def check(module, shape, seed=0):
    # the export folds some constants in float32 (a batch norm into its conv)
    return torch_check(module, shape, seed, tol=1e-6, importer=lambda m, x: (
        unum.nn.from_onnx(export(m, x.shape))))


def test_exported_chain():
    model = check(chain(relu_first=True), (1, 3, 16))
    kinds = [n["type"] for n in model["nodes"]]
    assert kinds == ["input", "conv1d", "relu", "batchnorm1d", "conv1d", "hardtanh",
                     "conv1d", "hardsigmoid", "flatten", "linear", "hardtanh", "output"]


def test_exported_graph():
    check(Residual(), (1, 3, 16))


def test_exported_linear_on_features_and_avgpool_padding():
    check(nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 3)), (2, 6))
    check(nn.Sequential(nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False),
                        nn.AvgPool1d(2, padding=1)), (1, 2, 9))


def graph(nodes, inits, in_shape, out_name="y", opset=13):
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.asarray(v, dtype=np.float32), k)
         for k, v in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def test_matmul_plus_bias_clip_and_hardsigmoid_by_hand():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((6, 3)), rng.standard_normal(3)
    m = graph([helper.make_node("Flatten", ["x"], ["f"], axis=1, name="flat"),
               helper.make_node("MatMul", ["f", "w"], ["mm"], name="mm"),
               helper.make_node("Add", ["mm", "b"], ["lin"], name="bias"),
               helper.make_node("Clip", ["lin", "lo", "hi"], ["c"], name="clip"),
               helper.make_node("HardSigmoid", ["c"], ["y"], alpha=1 / 6, beta=0.5)],
              {"w": w, "b": b, "lo": -0.5, "hi": 2.0}, [1, 2, 3])
    model = unum.nn.from_onnx(m.SerializeToString())
    lin = [n for n in model["nodes"] if n["type"] == "linear"][0]
    assert len(lin["bias"]) == 3
    x = rng.standard_normal((1, 2, 3))
    w32, b32 = w.astype(np.float32).astype(np.float64), b.astype(np.float32)
    want = np.clip(np.clip(x.reshape(1, 6) @ w32 + b32, -0.5, 2.0) / 6 + 0.5, 0, 1)
    np.testing.assert_allclose(evaluate(model, x[0].T), want, atol=1e-7)


@pytest.mark.parametrize("node, inits, message", [
    (helper.make_node("Conv", ["x", "w"], ["y"], dilations=[2], name="c"),
     {"w": np.ones((2, 2, 3))}, r"node 'c' \(Conv\): dilations=\[2\]"),
    (helper.make_node("Conv", ["x", "w"], ["y"], pads=[0, 2], name="c"),
     {"w": np.ones((2, 2, 3))}, r"node 'c' \(Conv\): asymmetric pads \[0, 2\]"),
    (helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2], ceil_mode=1, name="p"),
     {}, r"node 'p' \(MaxPool\): ceil_mode=1"),
    (helper.make_node("Sigmoid", ["x"], ["y"], name="s"), {},
     r"node 's' \(Sigmoid\) is not supported"),
    (helper.make_node("Add", ["x", "k"], ["y"], name="a"), {"k": np.ones(2)},
     r"node 'a' \(Add\): adding a constant is supported only as the bias of a MatMul"),
    (helper.make_node("Concat", ["x", "x"], ["y"], axis=0, name="cat"), {},
     r"node 'cat' \(Concat\): concatenation along dimension 0"),
    (helper.make_node("Conv", ["x", "x"], ["y"], name="c"), {},
     r"node 'c' \(Conv\): its weight must be a constant"),
    (helper.make_node("HardSigmoid", ["x"], ["y"], name="h"), {},
     r"node 'h' \(HardSigmoid\): alpha=0.2"),
    (helper.make_node("Clip", ["x", "lo"], ["y"], name="c"), {"lo": -1.0},
     r"node 'c' \(Clip\): needs both bounds"),
    (helper.make_node("Flatten", ["x"], ["y"], axis=2, name="f"), {},
     r"node 'f' \(Flatten\): axis=2"),
])
def test_unsupported_nodes_are_named(node, inits, message):
    with pytest.raises(unum.nn.UnsupportedModel, match=message):
        unum.nn.from_onnx(graph([node], inits, [1, 2, 8]))


def test_model_level_refusals(tmp_path):
    relu = helper.make_node("Relu", ["x"], ["y"])
    with pytest.raises(unum.nn.UnsupportedModel, match=r"\[N, C, L\] or \[N, F\]"):
        unum.nn.from_onnx(graph([relu], {}, [1, 2, 3, 4]))
    with pytest.raises(unum.nn.UnsupportedModel, match="fixed C, L, F"):
        unum.nn.from_onnx(graph([relu], {}, [1, "C", 4]))
    # a path works too, and Clip with only min 0 is a relu
    path = tmp_path / "m.onnx"
    onnx.save(graph([helper.make_node("Clip", ["x", "z"], ["y"])], {"z": 0.0},
                    [1, 2, 4]), str(path))
    assert [n["type"] for n in unum.nn.from_onnx(str(path))["nodes"]] == \
        ["input", "relu", "output"]
