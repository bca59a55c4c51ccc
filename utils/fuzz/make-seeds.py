#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into utils/fuzz/corpus/<target>/.

    utils/fuzz/make-seeds.py [SHARED_CONFORMANCE_DIR]

Seeds come from the repository's tests and docs, hand-written cases that
reach each evaluator, and (when it is there) a few files of the shared
conformance data. Files are named by a hash of their contents, so running
it again adds nothing twice. Each seed is small (the smoke run is short).
"""
import glob
import hashlib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "utils", "fuzz", "corpus")
MAX_SEED = 8192


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data or len(data) > MAX_SEED:
        return
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def files(*patterns):
    out = []
    for p in patterns:
        out += sorted(glob.glob(os.path.join(ROOT, p), recursive=True))
    return out


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "..", "shared", "conformance", "unum")
    configs_json = files("docs/examples/**/unum_config.json",
                         "test/**/unum_config.json")
    configs_yaml = files("docs/examples/**/unum_config.yaml",
                         "test/**/unum_config.yaml")
    if os.path.isdir(shared):
        configs_json += sorted(glob.glob(os.path.join(
            shared, "compile", "*", "expected", "*", "unum_config.json")))
    configs_json = configs_json[:60]

    # JSON and YAML documents.
    for p in configs_json[:30] + files("test/Runtime/Inputs/*.json"):
        put("json", read(p))
    for s in ['[1, -0.0, 1e308, 1e-320, 9007199254740993, "\\u00e9\\ud83d\\ude00"]',
              '{"a": {"b": [true, false, null]}} {"c": 1}', '"x"', '[]', '{}']:
        put("json", s)
    for p in configs_yaml:
        put("yaml", read(p))
    for s in ["a: 1\nb: [x, 'y', \"z\"]\nc: {d: .5, e: 0x1F, f: ~}\n",
              "--- 1\n--- [a, b]\n...\n", "k: |\n  line\n  two\n",
              "- 02\n- .inf\n- -.Inf\n- .nan\n- 1e3\n- true\n- yes\n"]:
        put("yaml", s)

    # Configs: '0' JSON, '1' YAML.
    for p in configs_json:
        put("config", "0" + read(p))
    for p in configs_yaml:
        put("config", "1" + read(p))

    # Conditionals ('0'), fan-in name patterns ('1'), modifiers ('2'), with
    # an optional NUL and $out.
    conds = ["$0 == $size - 1", "$0 < $size-1 and $0>0", "$ret == 'bye'",
             "not ($out.ok or $out.n >= 3.5)", "$out['a b'][0] % 2 == 1",
             "is_present($out.x) and matches($out.s, 'ab*c?')",
             "instant($out.t) < instant('2024-01-01T00:00:00Z')",
             "$1 * 2 + $0 / 3 - -1 != 7"]
    for c in conds:
        put("expr", "0" + c)
        put("expr", "0" + c + '\0{"ok": false, "n": 4, "x": 1, "s": "abbc", '
            '"t": "2023-05-01T10:00:00Z", "a b": [3]}')
    for p in ["B-unumIndex-*", "F3-unumIndex-($0-1)", "A-unumIndex-$1-*",
              "vpxenc-unumIndex-($0+1)", "X-unumIndex-2-$0"]:
        put("expr", "1" + p)
    for m in ["Pop", "$0 = $0 + 1", "$size = $out.n", "$1 = $size - $0"]:
        put("expr", "2" + m + '\0{"n": 3}')

    # JSONPath: a rules byte, the path, NUL, a document.
    doc = json.dumps({"store": {"book": [
        {"category": "ref", "price": 8.95, "title": "A"},
        {"category": "fic", "price": 12.99, "title": "B", "isbn": "1"}]},
        "a": {"b": [1, 2, 3]}, "x y": 1})
    for p in ["$", "$.store.book[*].title", "$..price", "$.a.b[-1:]",
              "$.a.b[0:3:2]", "$.store.book[?(@.price < 10)].title",
              "$['x y']", "$.store.book[0,1]", "$$.Map.Item.Value.a",
              "$$.Execution.Id", "$.a.b[1]", "$.new.path"]:
        put("jsonpath", "\x00" + p + "\0" + doc)
        put("jsonpath", "\x01" + p + "\0" + doc)
    put("jsonpath", "\x00States.Array($.a, 'x', 1)\0" + doc)

    # Data flow: '0' a field (path or intrinsic call), NUL, input; '1' a
    # config with DataFlow, its input and its result.
    calls = ["States.Format('{} and {}', $.a, $.b)", "States.StringToJson($.j)",
             "States.JsonToString($.o)", "States.Array($.a, $.b)",
             "States.ArrayPartition($.l, 2)", "States.ArrayContains($.l, 3)",
             "States.ArrayRange(1, 9, 2)", "States.ArrayGetItem($.l, 1)",
             "States.ArrayLength($.l)", "States.ArrayUnique($.l)",
             "States.Base64Encode($.a)", "States.Base64Decode('aGk=')",
             "States.Hash($.a, 'SHA-256')", "States.JsonMerge($.o, $.o, false)",
             "States.MathRandom(1, 10, 3)", "States.MathAdd($.n, -2)",
             "States.StringSplit($.s, ',;')", "States.UUID()",
             "States.Format('\\\\{\\\\}{}', States.ArrayLength($.l))",
             "$.l[1:]", "$$.Execution.Id", "$$.State.Name"]
    inp = json.dumps({"a": "x", "b": 2, "j": '{"k": [1]}', "o": {"p": 1},
                      "l": [1, 3, 3, 4], "n": 5, "s": "a,b;c"})
    for c in calls:
        put("dataflow", "0" + c + "\0" + inp)
    flows = [
        {"Config": {"Name": "F", "DataFlow": {
            "InputPath": "$.a", "Parameters": {"x.$": "$.b", "n.$": "States.ArrayLength($.b)",
                                               "fixed": [1, {"k": "v"}]},
            "ResultSelector": {"r.$": "$.v"}, "ResultPath": "$.out",
            "OutputPath": "$.out"}},
         "Input": {"a": {"b": [1, 2, 3]}}, "Result": {"v": 5}},
        {"Config": {"Name": "F", "Next": {"Name": "G", "InputType": "Map"},
                    "DataFlow": {"ItemsPath": "$.items", "ItemSelector": {
                        "i.$": "$$.Map.Item.Index", "v.$": "$$.Map.Item.Value",
                        "c.$": "$.c"}}},
         "Input": {"items": [1, {"z": 2}], "c": 0}},
        {"Config": {"Name": "P", "Builtin": "Pass", "DataFlow": {
            "Result": {"r": 1}, "ResultPath": "$.res"}}, "Input": {"k": 1}},
        {"Config": {"Name": "L", "DataFlow": {"LambdaInvoke": True,
                                              "Parameters": {"Payload.$": "$"},
                                              "ResultSelector": {"p.$": "$.Payload"}}},
         "Input": {"q": 1}, "Result": {"ok": True}},
        {"Config": {"Name": "N", "DataFlow": {"ResultPath": None}},
         "Input": {"keep": 1}, "Result": 2},
    ]
    for fl in flows:
        put("dataflow", "1" + json.dumps(fl))

    # ASL definitions.
    asl = files("test/ASL-differential/realworld/*/definition.asl.json",
                "test/Runtime/Inputs/*.asl.json", "docs/examples/**/*.asl.json",
                "examples/**/*.asl.json")
    if os.path.isdir(shared):
        asl += sorted(glob.glob(os.path.join(shared, "compile", "*",
                                             "statemachine.asl.json")))
    for p in asl:
        put("asl", read(p))

    # AIR programs: the docs' examples, and each function of the import test.
    for p in files("docs/examples/air/*.air", "utils/bench/kernels/*.air"):
        put("air", read(p))
    text = read(os.path.join(ROOT, "test/Target/AirText/import.test"))
    for chunk in text.split("\nfunction ")[1:]:
        body = "function " + chunk.split("\n}\n")[0] + "\n}\n"
        put("air", "\n".join(l for l in body.split("\n")
                             if not l.startswith("//")))

    # NN layer graphs.
    for p in files("test/Target/NNJson/*.json", "docs/examples/nn-*/*.json",
                   "test/Target/VHDL/*.json"):
        put("nnjson", read(p))
    doc = read(os.path.join(ROOT, "docs/NNJson.md"))
    for block in doc.split("```json\n")[1:]:
        put("nnjson", block.split("```")[0])


if __name__ == "__main__":
    main()
