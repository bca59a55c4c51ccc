"""unum.workflow and unum.nn: the C API's workflow and NN paths from Python."""
import json
import os

import pytest

import unum
from conftest import SOURCE_DIR

ASL = {
    "StartAt": "Split",
    "States": {
        "Split": {"Type": "Task", "Resource": "Split", "Next": "Each"},
        "Each": {"Type": "Map", "ItemsPath": "$.items",
                 "Iterator": {"StartAt": "Square", "States": {
                     "Square": {"Type": "Task", "Resource": "Square", "End": True}}},
                 "Next": "Total"},
        "Total": {"Type": "Task", "Resource": "Total", "End": True},
    },
}


def test_compile_and_run_with_python_handlers(tmp_path):
    (tmp_path / "sm.asl.json").write_text(json.dumps(ASL))
    app = tmp_path / "app"
    unum.workflow.compile(tmp_path / "sm.asl.json", app)
    assert (app / "Square" / "unum_config.json").exists()
    handlers = {
        "Split": lambda v: {"items": list(range(v["n"]))},
        "Square": lambda v: v * v,
        "Total": lambda v: {"total": sum(v)},
    }
    for store in ["memory", "sqlite:%s" % (tmp_path / "store.db")]:
        out = unum.workflow.run(app, {"n": 5}, store=store, handlers=handlers)
        assert list(out.values()) == [{"total": 0 + 1 + 4 + 9 + 16}], out


def test_handler_failures_and_missing_handlers(tmp_path):
    (tmp_path / "sm.asl.json").write_text(json.dumps(ASL))
    app = tmp_path / "app"
    unum.workflow.compile(tmp_path / "sm.asl.json", app, format="yaml")
    assert (app / "Total" / "unum_config.yaml").exists()

    class Refused(Exception):
        error_name = "Orders.Refused"

    def split(v):
        raise Refused("no items today")

    with pytest.raises(unum.UnumError, match="Orders.Refused"):
        unum.workflow.run(app, {"n": 1}, handlers={"Split": split})
    with pytest.raises(unum.UnumError, match="handler"):
        unum.workflow.run(app, {"n": 1})  # no handlers: an error, not a crash


def test_compile_errors_are_located(tmp_path):
    bad = tmp_path / "bad.asl.json"
    bad.write_text('{"StartAt": "Nope",\n "States": {"A": {"Type": "Pass", "End": true}}}')
    with pytest.raises(unum.UnumError) as info:
        unum.workflow.compile(bad, tmp_path / "out")
    assert str(info.value).startswith(str(bad) + ":1:")
    assert not (tmp_path / "out").exists()


def test_example_app_with_executable_handlers(tmp_path):
    """docs/examples/order-batch: its handlers are executables (subprocesses)."""
    example = os.path.join(SOURCE_DIR, "docs", "examples", "order-batch")
    app = tmp_path / "app"
    unum.workflow.compile(os.path.join(example, "statemachine.asl.json"), app)
    for fn in os.listdir(os.path.join(example, "functions")):
        src = os.path.join(example, "functions", fn)
        for name in os.listdir(src):
            dst = app / fn / name
            dst.write_bytes(open(os.path.join(src, name), "rb").read())
            os.chmod(dst, os.stat(os.path.join(src, name)).st_mode)
    with open(os.path.join(example, "input.json")) as f:
        order = json.load(f)
    out = unum.workflow.run(app, order)
    assert out and all(isinstance(v, (dict, list)) for v in out.values())


def test_nn_to_vhdl(tmp_path):
    model = os.path.join(SOURCE_DIR, "docs", "examples", "nn-tiny", "model.json")
    r = unum.nn.to_vhdl(model, tmp_path / "out", total_bits=8, frac_bits=4,
                        parallelism=2)
    assert "!nn.fixed" in r["quantized_ir"]
    assert isinstance(r["report"], dict) and r["report"]
    assert any(n.endswith(".vhd") for n in os.listdir(tmp_path / "out"))
    with open(model) as f:
        as_dict = json.load(f)
    r2 = unum.nn.to_vhdl(as_dict, tmp_path / "out2")
    assert r2["report"]
    with pytest.raises(unum.UnumError, match="<model>:"):
        unum.nn.to_vhdl('{"nodes": [\n {"name": 3}]}', tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
    with pytest.raises(unum.UnumError):
        unum.nn.to_vhdl(model, tmp_path / "bad", total_bits=99)
