"""unum.nn.from_torch: PyTorch modules -> the model JSON, checked against
PyTorch through an independent float64 evaluator of the JSON
(nn_json_eval.py), and the refusals, each naming the layer."""
import json

import numpy as np
import pytest

import unum
from nn_json_eval import evaluate

torch = pytest.importorskip("torch", reason="PyTorch (Debian python3-torch) is not installed")
nn = torch.nn


def randomize_batchnorm(module, seed=0):
    """Running statistics and affine parameters that are not the identity."""
    g = torch.Generator().manual_seed(seed)
    for m in module.modules():
        if isinstance(m, nn.BatchNorm1d):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.rand(n, generator=g) - 0.5)
                m.running_var.copy_(torch.rand(n, generator=g) + 0.5)
                if m.weight is not None:
                    m.weight.copy_(torch.rand(n, generator=g) + 0.5)
                    m.bias.copy_(torch.rand(n, generator=g) - 0.5)
    return module.eval()


def torch_out(module, x):
    """PyTorch's output in the IR layout: [N=1, C, L] -> [L, C]; [1, F] -> [1, F]."""
    with torch.no_grad():
        y = module.double()(torch.as_tensor(x, dtype=torch.float64)).numpy()
    return y[0].T if y.ndim == 3 else y


def check(module, shape, seed=0, tol=1e-9, importer=unum.nn.from_torch):
    """The imported JSON (importer(module, x)) evaluates to PyTorch's
    output (float64)."""
    torch.manual_seed(seed)
    module = randomize_batchnorm(module, seed)
    x = torch.randn(*shape, dtype=torch.float64)
    model = importer(module, x)
    json.dumps(model)  # plain JSON
    got = evaluate(model, x[0].numpy().T if x.ndim == 3 else x[:1].numpy())
    want = torch_out(module, x if x.ndim == 3 else x[:1])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)
    return model


def chain(relu_first=False):
    """Every chain layer kind; a batch norm right after a conv (or after
    the relu: an ONNX export folds it into the conv then)."""
    norm = [nn.ReLU(), nn.BatchNorm1d(4)] if relu_first else [nn.BatchNorm1d(4), nn.ReLU()]
    return nn.Sequential(
        nn.Conv1d(3, 4, 3, padding=1), *norm,
        nn.Conv1d(4, 6, 3, stride=2, groups=2), nn.Hardtanh(-0.5, 0.75),
        nn.Conv1d(6, 4, 1), nn.Hardsigmoid(), nn.Dropout(0.5),
        nn.Flatten(), nn.Linear(4 * 7, 5), nn.ReLU6())


class Residual(nn.Module):
    """conv -> bn -> relu, a residual `+`, a channel concat, pooling, flatten,
    linear: the graph features in one module."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm1d(4)
        self.c2 = nn.Conv1d(4, 4, 3, padding=1, bias=False)
        self.pool = nn.MaxPool1d(3, stride=2, padding=1)
        self.avg = nn.AvgPool1d(2)
        self.fc = nn.Linear(8 * 4, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.c1(x)))
        z = self.c2(y) + y
        z = torch.cat([z, y], dim=1)
        return self.fc(torch.flatten(self.avg(self.pool(z)), 1))


def test_sequential_chain():
    model = check(chain(), (1, 3, 16))
    kinds = [n["type"] for n in model["nodes"]]
    assert kinds == ["input", "conv1d", "batchnorm1d", "relu", "conv1d", "hardtanh",
                     "conv1d", "hardsigmoid", "flatten", "linear", "hardtanh", "output"]
    assert model["nodes"][0]["shape"] == [16, 3]  # [L, C]
    assert model["nodes"][4]["groups"] == 2 and model["nodes"][4]["stride"] == 2


def test_graph_with_residual_concat_and_pooling():
    model = check(Residual(), (1, 3, 16))
    kinds = sorted(n["type"] for n in model["nodes"])
    assert {"add", "concat", "maxpool1d", "avgpool1d"} <= set(kinds)
    # relu feeds c2, the add and the concat: one node, three consumers
    relu = [n["name"] for n in model["nodes"] if n["type"] == "relu"][0]
    assert sum(e["src"] == relu for e in model["edges"]) == 3


def test_concat_along_length_and_pool_options():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Conv1d(2, 3, 3)
            self.b = nn.Conv1d(2, 3, 5, padding="same", padding_mode="zeros")
            self.pool = nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False)

        def forward(self, x):
            return self.pool(torch.cat((self.a(x), self.b(x)), 2))

    model = check(M(), (1, 2, 11))
    cat = [n for n in model["nodes"] if n["type"] == "concat"][0]
    assert cat["axis"] == "length"
    # the operand order is the order of the concat's incoming edges
    assert [e["src"] for e in model["edges"] if e["dst"] == cat["name"]] == ["a", "b"]


def test_flatten_orders_features_for_the_linear_and_batchnorm():
    """PyTorch flattens [C, L] channel-major, the IR position-major: the
    weights that read flattened features are permuted."""
    m = nn.Sequential(nn.Conv1d(2, 3, 2), nn.Flatten(), nn.BatchNorm1d(3 * 5),
                      nn.ReLU(), nn.Linear(15, 4))
    check(m, (1, 2, 6))
    # and concat of flattened features keeps each part's order
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv1d(2, 3, 2)
            self.fc = nn.Linear(15 + 12, 2)

        def forward(self, x):
            return self.fc(torch.cat([torch.flatten(self.c(x), 1), x.flatten(1)], 1))

    check(M(), (1, 2, 6))


def test_flattened_output_is_position_major():
    m = nn.Sequential(nn.Conv1d(2, 3, 2), nn.Flatten())
    x = torch.randn(1, 2, 5, dtype=torch.float64)
    model = unum.nn.from_torch(m, x)
    got = evaluate(model, x[0].numpy().T)[0]
    want = torch_out(m, x)[0]
    np.testing.assert_allclose(unum.nn.torch_order(got, 4, 3), want, atol=1e-12)


def test_linear_only_model_on_features():
    m = nn.Sequential(nn.Linear(6, 4), nn.Hardsigmoid(), nn.Linear(4, 2))
    model = check(m, (3, 6))
    assert model["nodes"][0]["shape"] == [1, 6]


@pytest.mark.parametrize("module, shape, message", [
    (nn.Sequential(nn.Conv1d(2, 2, 3, dilation=2)), (1, 2, 8),
     r"layer '0' \(Conv1d\): dilation=\(2,\) is not supported"),
    (nn.Sequential(nn.ReLU(), nn.Conv1d(2, 2, 3, padding=1, padding_mode="reflect")),
     (1, 2, 8), r"layer '1' \(Conv1d\): padding_mode='reflect'"),
    (nn.Sequential(nn.MaxPool1d(2, ceil_mode=True)), (1, 2, 8),
     r"layer '0' \(MaxPool1d\): ceil_mode=True"),
    (nn.Sequential(nn.MaxPool1d(3, dilation=2)), (1, 2, 8),
     r"layer '0' \(MaxPool1d\): dilation=2"),
    (nn.Sequential(nn.Sigmoid()), (1, 2, 8), r"layer '0' \(Sigmoid\) is not supported"),
    (nn.Sequential(nn.Linear(8, 2)), (1, 2, 8), r"layer '0' \(Linear\): .*flatten first"),
    (nn.Sequential(nn.BatchNorm1d(2, track_running_stats=False)), (1, 2, 8),
     r"layer '0' \(BatchNorm1d\): track_running_stats=False"),
    (nn.Sequential(nn.Flatten(0)), (1, 2, 8), r"layer '0' \(Flatten\): only start_dim=1"),
    (nn.Sequential(nn.Flatten(), nn.Conv1d(16, 2, 1)), (1, 2, 8),
     r"layer '1' \(Conv1d\): needs a \[N, C, L\] input"),
    (nn.Sequential(nn.Conv1d(3, 2, 1)), (1, 2, 8),
     r"layer '0' \(Conv1d\): expects 3 input channels, gets 2"),
])
def test_unsupported_layers_are_named(module, shape, message):
    with pytest.raises(unum.nn.UnsupportedModel, match=message):
        unum.nn.from_torch(module, torch.randn(*shape))


def test_unsupported_operations_are_named():
    class Scaled(nn.Module):
        def forward(self, x):
            return x + 1.0

    class Cat0(nn.Module):
        def forward(self, x):
            return torch.cat([x, x], 0)

    class Mul(nn.Module):
        def forward(self, x):
            return x * x

    class Pair(nn.Module):
        def forward(self, x):
            return x, x

    for module, message in [(Scaled(), "'add' .*only the sum of two layer outputs"),
                            (Cat0(), "'cat' .*dimension 0 is not supported"),
                            (Mul(), "operation 'mul' .*is not supported"),
                            (Pair(), "must return one tensor")]:
        with pytest.raises(unum.nn.UnsupportedModel, match=message):
            unum.nn.from_torch(module, torch.randn(1, 2, 8))
    with pytest.raises(unum.nn.UnsupportedModel, match=r"\[N, C, L\]"):
        unum.nn.from_torch(nn.ReLU(), torch.randn(8))
    with pytest.raises(unum.UnumError):  # UnsupportedModel is an UnumError
        unum.nn.from_torch(Mul(), torch.randn(1, 2, 8))
