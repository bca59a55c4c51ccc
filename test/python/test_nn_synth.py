"""utils/nn-flow/synth.py: the Verilog names GHDL leaves unescaped are
escaped, and failures are reported (the flow itself runs on nn-tiny in
test_nn_docs.py, docs/NNImport.md's example)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

SCRIPT = os.path.join(SOURCE_DIR, "utils", "nn-flow", "synth.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
import synth  # noqa: E402


def test_keywords_are_escaped():
    v = "module small (input clk);\n  reg [7:0] buf [15:0];\n" \
        "  assign x = buf[3]; always @(posedge clk) y <= \\tri ;\nendmodule\n"
    out = synth.escape_keywords(v)
    assert "module \\small  (" in out and "\\buf  [15:0]" in out and "\\buf [3]" in out
    assert "posedge" in out and "endmodule" in out and "\\tri " in out
    assert "\\\\tri" not in out  # an escaped name stays as it is


@pytest.mark.skipif(not all(shutil.which(t) for t in ("ghdl", "yosys", "nextpnr-ice40")),
                    reason="ghdl, yosys or nextpnr-ice40 is not installed")
def test_errors_are_reported(tmp_path):
    (tmp_path / "report.json").write_text('{"top": "nope", "files": ["nope.vhd"]}')
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and "synth.py:" in r.stderr
