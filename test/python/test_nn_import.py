"""Imported models end to end (issue 16): a PyTorch module, imported
directly (from_torch) and through ONNX (torch.onnx.export + from_onnx),

* runs on the CPU through convert-nn-to-air (unum.nn.compile_float) within
  1e-5 of PyTorch (float32 both);
* compiles to VHDL (unum.nn.to_vhdl), whose quantised reference
  (unum-nn-sim, the same arithmetic as the design) is bit-identical for the
  two imports and within the documented error bound (docs/NNQuantization.md,
  utils/nn/nnhw.py:error_bound) of PyTorch.

The layer kinds the hardware path does not have yet (add, concat, pooling:
issue 16's other branch) are checked on the JSON level in test_nn_torch.py;
compile_float and to_vhdl refuse them with a located error until then."""
import io
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


def imports(module, x):
    """The module's JSON from PyTorch and from its ONNX export."""
    models = {"torch": unum.nn.from_torch(module, x)}
    onnx = pytest.importorskip("onnx", reason="onnx (python3-onnx) is not installed")
    buf = io.BytesIO()
    torch.onnx.export(module, x, buf, opset_version=13)
    models["onnx"] = unum.nn.from_onnx(onnx.load_from_string(buf.getvalue()))
    return models


def test_float_cpu_path_matches_pytorch():
    module = chain()
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


def test_quantized_reference_agrees_with_pytorch_and_across_importers(tmp_path):
    module = chain()
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


def test_layers_without_a_lowering_are_refused_with_a_location():
    """Until the nn dialect has add/concat/pooling, the JSON importer refuses
    them (located); an imported graph using them gets that error."""
    class Res(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv1d(2, 2, 3, padding=1)

        def forward(self, x):
            return self.c(x) + x

    module = Res()
    x = torch.randn(1, 2, 8)
    model = unum.nn.from_torch(module, x)
    try:
        compiled = unum.nn.compile_float(model)
    except unum.UnumError as e:
        assert str(e).startswith("<model>:") and "add" in str(e), e
        return
    with torch.no_grad():  # the nn dialect has add now: it must compute it
        want = module(x)[0].numpy().T
    np.testing.assert_allclose(compiled(x[0].numpy().T), want, rtol=1e-5, atol=1e-5)
