"""The pytest suite of the Python package (python/unum). ctest runs it with
PYTHONPATH=build/python; run by hand:

    PYTHONPATH=build/python /usr/bin/python3 -m pytest -q test/python
"""
import importlib.util
import os
import sys

import pytest

SOURCE_DIR = os.environ.get(
    "UNUM_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BINARY_DIR = os.environ.get("UNUM_BINARY_DIR", os.path.join(SOURCE_DIR, "build"))
if importlib.util.find_spec("unum") is None:
    sys.path.insert(0, os.path.join(BINARY_DIR, "python"))


def load_module(tmp_path, name, source):
    """Writes `source` to tmp_path/name.py and imports it (jitted functions
    read their source from the file, as users' do)."""
    path = tmp_path / (name + ".py")
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


@pytest.fixture
def module_from_source(tmp_path):
    return lambda name, source: load_module(tmp_path, name, source)
