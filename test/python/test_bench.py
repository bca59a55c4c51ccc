"""utils/bench/python_jit.py --quick runs and prints every figure (a smoke
run: the times of a shared test machine are not checked)."""
import os
import subprocess
import sys

import unum
from conftest import SOURCE_DIR


def test_bench_quick():
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(unum.__file__)))
    env = dict(os.environ, PYTHONPATH=package_dir)
    r = subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "utils", "bench",
                                                     "python_jit.py"), "--quick"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    for text in ["CPU: ", "one op  a + b", "four ops", "first call of a ten-op",
                 "E1 (a*b+c)*d", "E2 exp(a)*b + c/d", "E3 sum((a-b)^2)"]:
        assert text in r.stdout, r.stdout
