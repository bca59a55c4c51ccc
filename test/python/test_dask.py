"""docs/examples/python/dask_blocks.py: a jitted function as the block
function of dask.array.map_blocks on a dask.distributed LocalCluster
(worker processes on 127.0.0.1) equals numpy."""
import os
import subprocess
import sys

import pytest

import unum
from conftest import SOURCE_DIR

pytest.importorskip("dask.array", reason="python3-dask is not installed "
                    "(utils/bootstrap.sh installs it)")
pytest.importorskip("distributed", reason="python3-distributed is not installed "
                    "(utils/bootstrap.sh installs it)")


def test_map_blocks_on_a_local_cluster(tmp_path):
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(unum.__file__)))
    env = dict(os.environ, PYTHONPATH=package_dir)
    example = os.path.join(SOURCE_DIR, "docs", "examples", "python", "dask_blocks.py")
    r = subprocess.run([sys.executable, example], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 workers, 4 blocks, equal to numpy" in r.stdout
