"""docs/NNImport.md: every example in it runs. The ```python blocks run as
scripts, the ```sh block through utils/run-doc-commands.sh, each in a
directory where `docs` and `build` lead to the checkout's."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR
from test_docs import env, workdir  # noqa: F401 (a fixture)

pytest.importorskip("torch", reason="PyTorch (Debian python3-torch) is not installed")
DOC = os.path.join(SOURCE_DIR, "docs", "NNImport.md")
TEXT = open(DOC, encoding="utf-8").read()
PYTHON = re.findall(r"^```python\n(.*?)^```$", TEXT, re.S | re.M)


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, text=True,
                          timeout=300)


def test_the_doc_has_examples():
    assert len(PYTHON) == 3 and "```sh\n" in TEXT


def test_python_blocks(workdir):
    """All three blocks, one after the other in one script (one start of
    Python and PyTorch instead of three)."""
    pytest.importorskip("onnx", reason="onnx (Debian python3-onnx) is not installed")
    (workdir / "example.py").write_text("\n".join(PYTHON))
    r = run([sys.executable, "example.py"], workdir)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (workdir / "net.json").exists() and (workdir / "net-vhdl").is_dir()
    assert "'add', 'concat'" in r.stdout and "dilation=(2,) is not supported" in r.stdout


@pytest.mark.skipif(not all(shutil.which(t) for t in ("ghdl", "yosys", "nextpnr-ice40")),
                    reason="the synthesis example needs ghdl, yosys and nextpnr-ice40")
def test_sh_blocks(workdir):
    os.symlink(os.path.join(SOURCE_DIR, "utils"), workdir / "utils")
    r = run([os.path.join(SOURCE_DIR, "utils", "run-doc-commands.sh"), DOC,
             str(workdir)], workdir)
    assert r.returncode == 0, r.stdout + r.stderr
    # grep -c air.fused: one loop nest. (sh -x traces the two sides of a
    # pipeline from two processes, so a trace line can leak into the output
    # unprefixed: look for the count's own line.)
    assert re.search(r"^1$", r.stdout, re.M), r.stdout
    assert (workdir / "tiny.o").stat().st_size > 0
    assert "tiny(" in (workdir / "tiny.h").read_text()
    for label in ("LUTs", "flip-flops", "DSP blocks", "RAM blocks", "Fmax"):
        assert "\n" + label + ":" in r.stdout
    f = json.loads((workdir / "tiny-synth.json").read_text())
    # two multipliers (parallelism=2) in DSP blocks; the design's registers,
    # not only the shell's, survive optimisation; it fits and has a clock
    assert f["dsp_blocks"] == 2
    assert f["luts"] > 50 and f["flip_flops"] > f["shell_flip_flops"] + 50
    assert 1 < f["fmax_mhz"] < 1000 and f["logic_cells"] > 0
