"""docs/Python.md: every example in it runs. The ```python blocks run as
scripts (each its own file, in a directory where `docs` and `build` lead to
the checkout's), the ```sh blocks through utils/run-doc-commands.sh, the ```c
block is compiled against libUnum and run."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import unum
from conftest import BINARY_DIR, SOURCE_DIR

DOC = os.path.join(SOURCE_DIR, "docs", "Python.md")


def blocks(lang):
    text = open(DOC, encoding="utf-8").read()
    return re.findall(r"^```%s\n(.*?)^```$" % re.escape(lang), text, re.S | re.M)


@pytest.fixture
def workdir(tmp_path):
    os.symlink(os.path.join(SOURCE_DIR, "docs"), tmp_path / "docs")
    os.symlink(BINARY_DIR, tmp_path / "build")
    return tmp_path


def env():
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(unum.__file__)))
    return dict(os.environ, PYTHONPATH=package_dir)


def test_the_doc_has_examples():
    assert len(blocks("python")) >= 5 and len(blocks("sh")) >= 2 and len(blocks("c")) == 1


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_block(index, workdir):
    path = workdir / ("example_%d.py" % index)
    path.write_text(blocks("python")[index])
    r = subprocess.run([sys.executable, str(path)], cwd=workdir, env=env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_sh_blocks(workdir):
    if not shutil.which("cmake"):
        pytest.skip("cmake is not installed")
    r = subprocess.run([os.path.join(SOURCE_DIR, "utils", "run-doc-commands.sh"), DOC,
                        str(workdir)], env=env(), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "unum 0." in r.stdout and "installed 0." in r.stdout


def test_c_block(workdir):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    (workdir / "example.c").write_text(blocks("c")[0])
    lib = os.path.join(BINARY_DIR, "lib")
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-o", str(workdir / "example"),
                    str(workdir / "example.c"), "-I", os.path.join(SOURCE_DIR, "include"),
                    "-L", lib, "-lUnum", "-Wl,-rpath," + lib], check=True)
    r = subprocess.run([str(workdir / "example")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "2 4 6 8" in r.stdout
    assert "bad.air:2:" in r.stdout and "error: use of undefined value '%y'" in r.stdout
