"""unum.nn per-layer precision: set_precision and to_vhdl's precision,
overflow and policy arguments (docs/NNJson.md, docs/NNQuantization.md)."""
import json
import os

import pytest

import unum
from conftest import SOURCE_DIR

MODEL = os.path.join(SOURCE_DIR, "docs", "examples", "nn-tiny", "model.json")


def test_set_precision_names_nodes():
    m = unum.nn.set_precision(MODEL, {"c1": {"result": "ap_fixed<10, 4>"}})
    c1 = next(n for n in m["nodes"] if n["name"] == "c1")
    assert c1["precision"] == {"result": "ap_fixed<10, 4>"}
    with open(MODEL) as f:  # the file is untouched
        assert "precision" not in f.read()
    with pytest.raises(KeyError, match="'nope'"):
        unum.nn.set_precision(MODEL, {"nope": {}})


def test_per_layer_formats_reach_the_hardware(tmp_path):
    r = unum.nn.to_vhdl(MODEL, tmp_path / "out", total_bits=8, frac_bits=4,
                        rounding="half_even", overflow="wrap", precision={
                            "x": {"result": "ap_fixed<6, 3>"},
                            "c1": {"weight": "ap_fixed<8, 2>",
                                   "result": "ap_fixed<12, 5, AP_TRN, AP_SAT>",
                                   "accum": 30},
                            "act": {"result": "ap_fixed<7, 3>"}})
    ir = r["quantized_ir"]
    assert "tensor<8x2x!nn.fixed<6, 3>>" in ir  # the input's format
    assert "weight_format = !nn.fixed<8, 6>" in ir
    assert "acc_bits = 30" in ir
    assert 'rounding = "truncate"' in ir  # the conv's own
    assert 'rounding = "half_even"' in ir  # the default, where it matters
    assert 'overflow = "wrap"' in ir
    assert r["report"]["data_bits"] == 12  # the widest format


def test_weights_policy_picks_integer_bits(tmp_path):
    uniform = unum.nn.to_vhdl(MODEL, tmp_path / "u", total_bits=8, frac_bits=4)
    weights = unum.nn.to_vhdl(MODEL, tmp_path / "w", total_bits=8, frac_bits=4,
                              policy="weights")
    assert "weight_format" not in uniform["quantized_ir"]
    assert "weight_format = !nn.fixed<8," in weights["quantized_ir"]


def test_bad_precision_is_a_located_error(tmp_path):
    with pytest.raises(unum.UnumError, match=r"<model>:\d+:\d+: .*18 bits"):
        unum.nn.to_vhdl(MODEL, tmp_path / "bad",
                        precision={"act": {"result": "ap_fixed<18, 4>"}})
    assert not (tmp_path / "bad").exists()
    with pytest.raises(unum.UnumError, match="overflow must be saturate or wrap"):
        unum.nn.to_vhdl(MODEL, tmp_path / "bad", overflow="clip")
