"""Imported models end to end (issue 16): a PyTorch module, imported
directly (from_torch) and through ONNX (torch.onnx.export + from_onnx),

* runs on the CPU through convert-nn-to-air (unum.nn.compile_float) within
  1e-5 of PyTorch (float32 both);
* compiles to VHDL (unum.nn.to_vhdl), whose quantised reference
  (unum-nn-sim, the same arithmetic as the design) is bit-identical for the
  two imports and within the documented error bound (docs/NNQuantization.md,
  utils/nn/nnhw.py:error_bound) of PyTorch.

Both for a chain and for a graph (residual add, concat along channels and
length); random networks with pooling, residual adds and concats on the CPU
path (RandomNet); and a graph with pooling (PoolGraph) through GHDL."""
import io
import shutil
import os
import subprocess
import sys

import numpy as np
import pytest

import unum
from conftest import BINARY_DIR, SOURCE_DIR

torch = pytest.importorskip("torch", reason="PyTorch (Debian python3-torch) is not installed")
nn = torch.nn
sys.path.insert(0, os.path.join(SOURCE_DIR, "utils", "nn"))
import nnhw  # noqa: E402

from test_nn_torch import randomize_batchnorm  # noqa: E402

N, F = 16, 8  # Q16.8: range +-128, far from what these models reach


def chain():
    torch.manual_seed(1)
    return randomize_batchnorm(nn.Sequential(
        nn.Conv1d(3, 4, 3, padding=1), nn.BatchNorm1d(4), nn.ReLU(),
        nn.Conv1d(4, 6, 3, stride=2, groups=2), nn.Hardtanh(-0.5, 0.75),
        nn.Conv1d(6, 4, 1), nn.Hardsigmoid(),
        nn.Flatten(), nn.Linear(4 * 7, 5)))


class Graph(nn.Module):
    """A residual block, a fork into a channel concat, a length concat."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm1d(4)
        self.c2 = nn.Conv1d(4, 4, 3, padding=1)
        self.c3 = nn.Conv1d(8, 4, 3, stride=2)
        self.fc = nn.Linear(4 * (7 + 16), 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.c1(x)))
        z = torch.cat([nn.functional.hardtanh(self.c2(y)) + y, y], 1)
        w = torch.cat([self.c3(z), y], 2)
        return self.fc(torch.flatten(w, 1))


def graph():
    torch.manual_seed(3)
    return randomize_batchnorm(Graph())


MODELS = {"chain": chain, "graph": graph}


def imports(module, x):
    """The module's JSON from PyTorch and from its ONNX export."""
    models = {"torch": unum.nn.from_torch(module, x)}
    onnx = pytest.importorskip("onnx", reason="onnx (python3-onnx) is not installed")
    buf = io.BytesIO()
    torch.onnx.export(module, x, buf, opset_version=13)
    models["onnx"] = unum.nn.from_onnx(onnx.load_from_string(buf.getvalue()))
    return models


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_float_cpu_path_matches_pytorch(kind):
    module = MODELS[kind]()
    x = torch.rand(1, 3, 16) * 2 - 1
    with torch.no_grad():
        want = module(x).numpy()  # [1, 5]: the IR's [1, 5]
    for how, model in imports(module, x).items():
        compiled = unum.nn.compile_float(model)
        assert "air.conv1d" in compiled.air and "nn." not in compiled.air
        got = compiled(x[0].numpy().T)  # [N, C, L] -> [L, C]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=how)
        # a second input, same kernel
        x2 = torch.rand(1, 3, 16) * 2 - 1
        with torch.no_grad():
            np.testing.assert_allclose(compiled(x2[0].numpy().T), module(x2).numpy(),
                                       rtol=1e-5, atol=1e-5)


def test_float_cpu_path_in_ir_layout():
    """A model whose output stays [L, C]: [N, C, L] from PyTorch, transposed."""
    torch.manual_seed(2)
    module = randomize_batchnorm(nn.Sequential(
        nn.Conv1d(2, 3, 5, padding=2), nn.BatchNorm1d(3), nn.Hardsigmoid(),
        nn.Conv1d(3, 2, 3, stride=2, padding=1, bias=False), nn.ReLU6()))
    x = torch.randn(1, 2, 32)
    compiled = unum.nn.compile_float(unum.nn.from_torch(module, x))
    with torch.no_grad():
        want = module(x)[0].numpy().T
    np.testing.assert_allclose(compiled(x[0].numpy().T), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"expected \(32, 2\)"):
        compiled(np.zeros((2, 32), dtype=np.float32))


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_quantized_reference_agrees_with_pytorch_and_across_importers(kind, tmp_path):
    module = MODELS[kind]()
    x = torch.rand(1, 3, 16) * 2 - 1
    models = imports(module, x)
    rng = np.random.default_rng(0)
    # three inferences of raw Q16.8 inputs, position-major ([L, C] rows)
    raw = rng.integers(-(1 << F), 1 << F, size=(3, 16, 3))
    samples = tmp_path / "samples.txt"
    samples.write_text("\n".join(str(v) for v in raw.reshape(-1)) + "\n")
    with torch.no_grad():
        want = np.concatenate([module(torch.tensor(r.T[None] / 2.0 ** F,
                                                   dtype=torch.float32)).numpy()
                               for r in raw])
    outputs = {}
    for how, model in models.items():
        r = unum.nn.to_vhdl(model, tmp_path / how, total_bits=N, frac_bits=F)
        q = tmp_path / (how + ".mlir")
        q.write_text(r["quantized_ir"])
        sim = subprocess.run([os.path.join(BINARY_DIR, "bin", "unum-nn-sim"), str(q),
                              "--input", str(samples)], capture_output=True, text=True,
                             check=True)
        outputs[how] = np.array([int(v) for v in sim.stdout.split()]).reshape(want.shape)
        bound = nnhw.error_bound(model, N, F, "nearest")
        assert bound > 0
        err = np.abs(outputs[how] / 2.0 ** F - want).max()
        assert err <= bound, (how, err, bound)
        # the bound is the worst case over the whole input range; these inputs
        # are within +-1, where the hardware stays within a few LSBs
        assert err < 4 * 2.0 ** -F, (how, err)
        assert np.abs(want).max() < 100  # no saturation: the bound applies as is
    np.testing.assert_array_equal(outputs["torch"], outputs["onnx"])


class RandomNet(nn.Module):
    """A seeded random network of 2-4 blocks on [1, C, L]: conv1d (padding,
    stride, groups; perhaps a batch norm and an activation), maxpool1d and
    avgpool1d (kernel, stride, padding up to kernel / 2, count_include_pad
    either way), a residual block (`act(conv(x)) + x`), a channel concat of
    a conv and the input, a length concat of a pool and the input; perhaps
    a flatten and a linear at the end. Built from a plan that forward
    walks, so torch.fx and torch.onnx.export trace it as straight code."""

    BLOCKS = ["conv", "maxpool", "avgpool", "residual", "concat_channels",
              "concat_length"]

    def __init__(self, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        ch, length = int(rng.integers(1, 4)), int(rng.integers(8, 17))
        self.in_shape = (1, ch, length)
        self.plan, self.layers = [], nn.ModuleList()
        # every block kind comes up within a few seeds
        kinds = [self.BLOCKS[(seed + b) % len(self.BLOCKS)]
                 for b in range(int(rng.integers(2, 5)))]
        for kind in kinds:
            if kind in ("maxpool", "avgpool") or (kind == "concat_length" and length >= 3):
                k = int(rng.integers(1, min(4, length) + 1))
                pad = int(rng.integers(0, k // 2 + 1))
                stride = int(rng.integers(1, 4)) if rng.random() < 0.5 else None
                if kind == "maxpool":
                    pool = nn.MaxPool1d(k, stride=stride, padding=pad)
                else:
                    pool = nn.AvgPool1d(k, stride=stride, padding=pad,
                                        count_include_pad=bool(rng.random() < 0.5))
                out = (length + 2 * pad - k) // (stride or k) + 1
                self.add(kind, pool)
                length = length + out if kind == "concat_length" else out
            elif kind in ("conv", "concat_channels", "concat_length"):
                out_ch = int(rng.integers(1, 5))
                same = kind != "conv"
                # odd kernels, padding k // 2 keeps the length ("same": the
                # ONNX export of this PyTorch has no padding="same")
                k = int(rng.choice([1, 3])) if same else int(rng.integers(1, min(4, length) + 1))
                groups = 1
                if kind == "conv" and ch % 2 == 0 and out_ch % 2 == 0 and rng.random() < 0.5:
                    groups = 2
                conv = nn.Conv1d(ch, out_ch, k, groups=groups,
                                 padding=k // 2 if same else int(rng.integers(0, 2)),
                                 stride=1 if same else int(rng.integers(1, 3)),
                                 bias=bool(rng.random() < 0.8))
                seq = [conv] + self.tail(rng, out_ch)
                self.add("concat_channels" if kind != "conv" else "conv", nn.Sequential(*seq))
                if kind == "conv":
                    length = (length + 2 * conv.padding[0] - k) // conv.stride[0] + 1
                    ch = out_ch
                else:
                    ch += out_ch
            else:  # residual
                k = int(rng.choice([1, 3]))
                conv = nn.Conv1d(ch, ch, k, padding=k // 2)
                self.add("residual", nn.Sequential(conv, *self.tail(rng, ch)))
        if rng.random() < 0.5:
            self.add("head", nn.Sequential(nn.Flatten(),
                                           nn.Linear(ch * length, int(rng.integers(1, 5)))))
        torch.manual_seed(seed)
        for m in self.layers.modules():  # weights around 1 as a trained net's
            if isinstance(m, (nn.Conv1d, nn.Linear)):
                nn.init.uniform_(m.weight, -1, 1)
        randomize_batchnorm(self, seed)

    def add(self, kind, module):
        self.plan.append(kind)
        self.layers.append(module)

    @staticmethod
    def tail(rng, ch):
        tail = [nn.BatchNorm1d(ch)] if rng.random() < 0.3 else []
        act = int(rng.integers(0, 4))
        return tail + [[nn.ReLU(), nn.Hardtanh(-0.75, 1.0), nn.Hardsigmoid(),
                        nn.Identity()][act]]

    def forward(self, x):
        for kind, layer in zip(self.plan, self.layers):
            if kind == "residual":
                x = layer(x) + x
            elif kind == "concat_channels":
                x = torch.cat([layer(x), x], 1)
            elif kind == "concat_length":
                x = torch.cat([layer(x), x], 2)
            else:
                x = layer(x)
        return x


RANDOM_SEEDS = range(12)


@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_random_models_on_the_float_cpu_path_match_pytorch(seed):
    """Random networks with pooling, residual adds and concats, imported
    directly and through ONNX, JIT-compiled: within 1e-5 of PyTorch."""
    module = RandomNet(seed)
    x = torch.rand(*module.in_shape) * 4 - 2
    with torch.no_grad():
        y = module(x).numpy()
    want = y[0].T if y.ndim == 3 else y
    for how, model in imports(module, x).items():
        compiled = unum.nn.compile_float(model)
        assert "nn." not in compiled.air
        got = compiled(x[0].numpy().T)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5,
                                   err_msg="%s %s" % (how, module.plan))


def test_random_models_cover_every_block():
    covered = set()
    pools = set()
    for seed in RANDOM_SEEDS:
        module = RandomNet(seed)
        covered.update(module.plan)
        for m in module.modules():
            if isinstance(m, (nn.MaxPool1d, nn.AvgPool1d)):
                pools.add((type(m).__name__, int(np.max(m.padding)) > 0,
                           getattr(m, "count_include_pad", None)))
    assert set(RandomNet.BLOCKS) | {"head"} <= covered, covered
    assert {("MaxPool1d", True, None), ("AvgPool1d", True, True),
            ("AvgPool1d", True, False)} <= pools, pools


def test_pooling_on_the_float_cpu_path():
    """maxpool pads with -inf (a window of negative values beside the
    padding keeps its maximum), avgpool with 0 and divides by K or by the
    positions inside (count_include_pad)."""
    x = -torch.rand(1, 2, 9) - 1  # all negative: a 0 pad would win the max
    for pool in (nn.MaxPool1d(3, stride=2, padding=1), nn.MaxPool1d(4, 1, 2),
                 nn.AvgPool1d(3, stride=2, padding=1),
                 nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False),
                 nn.AvgPool1d(4, stride=3, padding=2, count_include_pad=False)):
        module = nn.Sequential(pool)
        compiled = unum.nn.compile_float(unum.nn.from_torch(module, x))
        assert "tensor.extract_slice" in compiled.air
        with torch.no_grad():
            want = module(x)[0].numpy().T
        np.testing.assert_allclose(compiled(x[0].numpy().T), want, rtol=1e-6, atol=1e-6,
                                   err_msg=repr(pool))



class PoolGraph(nn.Module):
    """What the hardware suite's graphs hold, written in PyTorch: a residual
    block, a channel concat, maxpool (padded), avgpool (padded, without
    count_include_pad), a length concat, a linear head."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm1d(3)
        self.c2 = nn.Conv1d(3, 3, 3, padding=1)
        self.c3 = nn.Conv1d(6, 2, 1)
        self.mp = nn.MaxPool1d(3, stride=2, padding=1)
        self.ap = nn.AvgPool1d(2, stride=1, padding=1, count_include_pad=False)
        self.fc = nn.Linear(2 * (5 + 4), 3)

    def forward(self, x):  # x: [1, 2, 8]
        y = torch.relu(self.bn(self.c1(x)))
        z = torch.cat([nn.functional.hardtanh(self.c2(y)) + y, y], 1)
        m = self.mp(self.c3(z))  # [1, 2, 4]
        return self.fc(torch.flatten(torch.cat([self.ap(m), m], 2), 1))


@pytest.mark.skipif(shutil.which("ghdl") is None, reason="GHDL is not installed")
def test_imported_models_run_bit_exact_under_ghdl(tmp_path):
    """PoolGraph imported from PyTorch and from its ONNX export, compiled to
    VHDL (Q16.8, P = 2) and simulated by GHDL: bit-exact with the CPU
    fixed-point reference (unum-nn-sim), the two imports give the same bits,
    and the output is within the documented error bound of PyTorch's."""
    torch.manual_seed(5)
    module = randomize_batchnorm(PoolGraph(), 5)
    x = torch.rand(1, 2, 8) * 2 - 1
    models = imports(module, x)
    for model in models.values():
        assert {"add", "concat", "maxpool1d", "avgpool1d"} <= {
            n["type"] for n in model["nodes"]}
    rng = np.random.default_rng(1)
    raw = rng.integers(-(1 << F), 1 << F, size=(3, 8, 2))  # [L, C] rows, within +-1
    samples = tmp_path / "samples.txt"
    samples.write_text("\n".join(str(v) for v in raw.reshape(-1)) + "\n")
    with torch.no_grad():
        want = np.concatenate([module(torch.tensor(r.T[None] / 2.0 ** F,
                                                   dtype=torch.float32)).numpy()
                               for r in raw]).reshape(-1)
    outputs = {}
    for how, model in models.items():
        r = unum.nn.to_vhdl(model, tmp_path / how, total_bits=N, frac_bits=F, parallelism=2)
        q = tmp_path / (how + ".mlir")
        q.write_text(r["quantized_ir"])
        sim = subprocess.run([os.path.join(BINARY_DIR, "bin", "unum-nn-sim"), str(q),
                              "--input", str(samples)], capture_output=True, text=True,
                             check=True)
        reference = [int(v) for v in sim.stdout.split()]
        hw, cycles, _ = nnhw.ghdl_dir(str(tmp_path / how), r["report"], str(samples),
                                      synth=False)
        assert len(cycles) == 3 and hw == reference, how
        outputs[how] = np.array(hw)
        bound = nnhw.error_bound(model, N, F, "nearest")
        err = np.abs(outputs[how] / 2.0 ** F - want).max()
        assert 0 < err <= bound, (how, err, bound)
        # the bound is the worst case over the whole Q16.8 range (weight
        # errors times 128); on inputs within +-1 the hardware is within a
        # few LSBs (measured: 0.0054, 1.4 LSB)
        assert err < 4 * 2.0 ** -F, (how, err)
    np.testing.assert_array_equal(outputs["torch"], outputs["onnx"])
