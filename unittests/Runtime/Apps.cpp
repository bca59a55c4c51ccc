//===- Apps.cpp - Small applications the runtime tests run ----------------===//

#include "Apps.h"
#include "TestUtil.h"

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace unum::runtime;
using namespace unum::runtime::test;

std::shared_ptr<Handler>
unum::runtime::test::pure(std::function<Value(const Value &)> f) {
  return makeFunctionHandler([f](const Value &in, Context &ctx) {
    ctx.effect(ctx.instance);
    return HandlerResult::success(f(in));
  });
}

static void set(App &app, const char *name,
                std::function<Value(const Value &)> f) {
  (void)app.setHandler(name, pure(std::move(f)));
}

static Value obj(std::vector<std::pair<std::string, Value>> members) {
  Value v = Value::object();
  for (auto &m : members)
    v.set(m.first, m.second);
  return v;
}

static int64_t sum(const Value &list) {
  int64_t s = 0;
  for (const Value &v : list.getArray())
    s += v.getInt();
  return s;
}

TestApp unum::runtime::test::chainApp() {
  TestApp t;
  t.name = "chain";
  t.app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Scalar"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "C", "InputType": "Scalar"},
          "Checkpoint": true})",
      R"({"Name": "C", "Checkpoint": true})"});
  set(t.app, "A", [](const Value &x) { return Value(x.getInt() + 1); });
  set(t.app, "B", [](const Value &x) { return Value(x.getInt() * 2); });
  set(t.app, "C", [](const Value &x) { return Value(x.getInt() - 3); });
  t.input = Value(int64_t(5));
  t.expected = obj({{"C", Value(int64_t(9))}});
  t.checkpointed = {"A", "B", "C"};
  return t;
}

TestApp unum::runtime::test::parallelApp() {
  TestApp t;
  t.name = "parallel";
  t.app = appFromJson({
      R"({"Name": "A", "Next": [{"Name": "B", "InputType": "Scalar"},
                                {"Name": "C", "InputType": "Scalar"}],
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "D", "InputType": {"Fan-in": {
            "Values": ["B-unumIndex-0", "C-unumIndex-1"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "C", "Next": {"Name": "D", "InputType": {"Fan-in": {
            "Values": ["B-unumIndex-0", "C-unumIndex-1"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "D", "Checkpoint": true})"});
  set(t.app, "A", [](const Value &x) { return x; });
  set(t.app, "B", [](const Value &x) { return Value(x.getInt() * 10); });
  set(t.app, "C", [](const Value &x) { return Value(x.getInt() + 100); });
  set(t.app, "D", [](const Value &x) {
    return obj({{"sum", Value(sum(x))}, {"inputs", x}});
  });
  t.input = Value(int64_t(7));
  Value inputs = Value::array();
  inputs.push(Value(int64_t(70)));
  inputs.push(Value(int64_t(107)));
  t.expected =
      obj({{"D", obj({{"sum", Value(int64_t(177))}, {"inputs", inputs}})}});
  t.checkpointed = {"A", "B-unumIndex-0", "C-unumIndex-1", "D"};
  return t;
}

static Value range(int n) {
  Value v = Value::array();
  for (int i = 1; i <= n; ++i)
    v.push(Value(int64_t(i)));
  return v;
}

TestApp unum::runtime::test::mapApp(int n) {
  TestApp t;
  t.name = "map";
  t.app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Checkpoint": true})"});
  set(t.app, "A", [](const Value &x) { return range(int(x.getInt())); });
  set(t.app, "B",
      [](const Value &x) { return Value(x.getInt() * x.getInt()); });
  t.input = Value(int64_t(n));
  t.expected = Value::object();
  t.checkpointed = {"A"};
  for (int i = 0; i < n; ++i) {
    std::string b = "B-unumIndex-" + std::to_string(i);
    t.expected.set(b, Value(int64_t((i + 1) * (i + 1))));
    t.checkpointed.push_back(b);
  }
  return t;
}

TestApp unum::runtime::test::fanInApp(int n) {
  TestApp t;
  t.name = "fanin";
  t.app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "C", "InputType": {"Fan-in": {
            "Values": ["B-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "C", "Checkpoint": true})"});
  set(t.app, "A", [](const Value &x) { return range(int(x.getInt())); });
  set(t.app, "B",
      [](const Value &x) { return Value(x.getInt() * x.getInt()); });
  set(t.app, "C", [](const Value &x) {
    return obj({{"sum", Value(sum(x))}, {"inputs", x}});
  });
  t.input = Value(int64_t(n));
  Value squares = Value::array();
  int64_t total = 0;
  t.checkpointed = {"A", "C"};
  for (int i = 1; i <= n; ++i) {
    squares.push(Value(int64_t(i * i)));
    total += i * i;
    t.checkpointed.push_back("B-unumIndex-" + std::to_string(i - 1));
  }
  t.expected = obj({{"C", obj({{"sum", Value(total)}, {"inputs", squares}})}});
  return t;
}

TestApp unum::runtime::test::mapInParallelApp(int n) {
  TestApp t;
  t.name = "map-in-parallel";
  t.app = appFromJson({
      R"({"Name": "S", "Next": [{"Name": "M", "InputType": "Scalar"},
                                {"Name": "Z", "InputType": "Scalar"}],
          "Checkpoint": true, "Start": true})",
      R"({"Name": "M", "Next": {"Name": "W", "InputType": "Map"},
          "Checkpoint": true})",
      R"({"Name": "W", "Next": {"Name": "SinkM", "InputType": {"Fan-in": {
            "Values": ["W-unumIndex-*.$1"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "SinkM", "Next": {"Name": "Join", "InputType": {"Fan-in": {
            "Values": ["SinkM-unumIndex-0", "Z-unumIndex-1"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "Z", "Next": {"Name": "Join", "InputType": {"Fan-in": {
            "Values": ["SinkM-unumIndex-0", "Z-unumIndex-1"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "Join", "Checkpoint": true})"});
  set(t.app, "S", [](const Value &x) { return x; });
  set(t.app, "M", [](const Value &x) { return range(int(x.getInt())); });
  set(t.app, "W", [](const Value &x) { return Value(x.getInt() + 1000); });
  set(t.app, "SinkM", [](const Value &x) { return x; });
  set(t.app, "Z", [](const Value &x) { return Value(x.getInt() * -1); });
  set(t.app, "Join", [](const Value &x) {
    return obj({{"mapped", x.getArray()[0]}, {"z", x.getArray()[1]}});
  });
  t.input = Value(int64_t(n));
  Value mapped = Value::array();
  t.checkpointed = {"S", "M-unumIndex-0", "Z-unumIndex-1", "SinkM-unumIndex-0",
                    "Join"};
  for (int i = 1; i <= n; ++i) {
    mapped.push(Value(int64_t(1000 + i)));
    t.checkpointed.push_back("W-unumIndex-" + std::to_string(i - 1) + ".0");
  }
  t.expected =
      obj({{"Join", obj({{"mapped", mapped}, {"z", Value(int64_t(-n))}})}});
  return t;
}

TestApp unum::runtime::test::mapInMapApp(int outer, int inner) {
  TestApp t;
  t.name = "map-in-map";
  t.app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Map"},
          "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "C", "InputType": "Map"},
          "Checkpoint": true})",
      R"({"Name": "C", "Next": {"Name": "SinkC", "InputType": {"Fan-in": {
            "Values": ["C-unumIndex-*.$1"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "SinkC", "Next": {"Name": "SinkB", "InputType": {"Fan-in": {
            "Values": ["SinkC-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "SinkB", "Checkpoint": true})"});
  set(t.app, "A", [](const Value &x) { return range(int(x.getInt())); });
  // B-i maps over `inner` items i*10+1 ...
  set(t.app, "B", [inner](const Value &x) {
    Value v = Value::array();
    for (int j = 1; j <= inner; ++j)
      v.push(Value(x.getInt() * 10 + j));
    return v;
  });
  set(t.app, "C", [](const Value &x) { return Value(x.getInt() * 2); });
  set(t.app, "SinkC", [](const Value &x) { return Value(sum(x)); });
  set(t.app, "SinkB", [](const Value &x) { return x; });
  t.input = Value(int64_t(outer));
  Value sums = Value::array();
  t.checkpointed = {"A", "SinkB"};
  for (int i = 1; i <= outer; ++i) {
    int64_t s = 0;
    for (int j = 1; j <= inner; ++j) {
      s += (i * 10 + j) * 2;
      t.checkpointed.push_back("C-unumIndex-" + std::to_string(j - 1) + "." +
                               std::to_string(i - 1));
    }
    sums.push(Value(s));
    t.checkpointed.push_back("B-unumIndex-" + std::to_string(i - 1));
    t.checkpointed.push_back("SinkC-unumIndex-" + std::to_string(i - 1));
  }
  t.expected = obj({{"SinkB", sums}});
  return t;
}

TestApp unum::runtime::test::mapResultPathApp(int n) {
  TestApp t;
  t.name = "map-result-path";
  t.app = appFromJson({
      R"({"Name": "Enter", "Start": true, "Checkpoint": true, "SaveInput": true,
          "DataFlow": {"InputPath": "$.order", "ItemsPath": "$.lines"},
          "Next": {"Name": "Square", "InputType": "Map"}})",
      R"({"Name": "Square", "Checkpoint": true,
          "Next": {"Name": "Collect", "InputType": {"Fan-in": {
            "Values": ["Square-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"]})",
      R"({"Name": "Collect", "Checkpoint": true, "StateInput": "Enter",
          "DataFlow": {"ResultSelector": {"squares.$": "$"},
                       "ResultPath": "$.order.result", "OutputPath": "$.order"}})"});
  set(t.app, "Enter", [](const Value &x) { return x; });
  set(t.app, "Square",
      [](const Value &x) { return Value(x.getInt() * x.getInt()); });
  set(t.app, "Collect", [](const Value &x) { return x; });
  // The state's input: ResultPath places the result in it, not in what
  // InputPath selected (the order) nor in the list Collect receives.
  t.input = Value::object();
  Value order = Value::object();
  order.set("id", Value(int64_t(7)));
  order.set("lines", range(n));
  t.input.set("order", order);
  t.input.set("other", Value("kept until OutputPath"));
  Value squares = Value::array();
  t.checkpointed = {"Enter", "Collect"};
  for (int i = 1; i <= n; ++i) {
    squares.push(Value(int64_t(i * i)));
    t.checkpointed.push_back("Square-unumIndex-" + std::to_string(i - 1));
  }
  order.set("result", obj({{"squares", squares}}));
  t.expected = obj({{"Collect", order}});
  t.saved = {"Enter"};
  return t;
}

TestApp unum::runtime::test::nestedResultPathApp(int orders) {
  TestApp t;
  t.name = "nested-result-path";
  t.app = appFromJson({
      R"({"Name": "Orders", "Start": true, "Checkpoint": true, "SaveInput": true,
          "DataFlow": {"ItemsPath": "$.orders"},
          "Next": {"Name": "Both", "InputType": "Map"}})",
      R"({"Name": "Both", "Checkpoint": true, "SaveInput": true,
          "Next": [{"Name": "Lines", "InputType": "Scalar"},
                   {"Name": "Tag", "InputType": "Scalar"}]})",
      R"({"Name": "Lines", "Checkpoint": true, "SaveInput": true,
          "DataFlow": {"ItemsPath": "$.lines"},
          "Next": {"Name": "Dbl", "InputType": "Map"}})",
      R"({"Name": "Dbl", "Checkpoint": true,
          "Next": {"Name": "LinesSink", "InputType": {"Fan-in": {
            "Values": ["Dbl-unumIndex-*.$1.$2"]}}},
          "Next Payload Modifiers": ["Pop"]})",
      R"({"Name": "LinesSink", "Checkpoint": true, "StateInput": "Lines",
          "DataFlow": {"ResultPath": "$.doubled"},
          "Next": {"Name": "BothSink", "InputType": {"Fan-in": {
            "Values": ["LinesSink-unumIndex-0.$1", "Tag-unumIndex-1.$1"]}}},
          "Next Payload Modifiers": ["Pop"]})",
      R"({"Name": "Tag", "Checkpoint": true,
          "Next": {"Name": "BothSink", "InputType": {"Fan-in": {
            "Values": ["LinesSink-unumIndex-0.$1", "Tag-unumIndex-1.$1"]}}},
          "Next Payload Modifiers": ["Pop"]})",
      R"({"Name": "BothSink", "Checkpoint": true, "StateInput": "Both",
          "DataFlow": {"ResultPath": "$.both"},
          "Next": {"Name": "OrdersSink", "InputType": {"Fan-in": {
            "Values": ["BothSink-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"]})",
      R"({"Name": "OrdersSink", "Checkpoint": true, "StateInput": "Orders",
          "DataFlow": {"ResultPath": "$.done"}})"});
  for (const char *identity :
       {"Orders", "Both", "Lines", "LinesSink", "BothSink", "OrdersSink"})
    set(t.app, identity, [](const Value &x) { return x; });
  set(t.app, "Dbl", [](const Value &x) { return Value(x.getInt() * 2); });
  set(t.app, "Tag", [](const Value &) { return Value("tagged"); });
  // Order i (from 0) has lines 1..i, so order 0 maps over [].
  t.input = Value::object();
  Value list = Value::array(), done = Value::array();
  t.checkpointed = {"Orders", "OrdersSink"};
  t.saved = {"Orders"};
  for (int i = 0; i < orders; ++i) {
    std::string at = std::to_string(i);
    Value order = obj({{"id", Value(int64_t(i))}, {"lines", range(i)}});
    list.push(order);
    Value lines = order, doubled = Value::array();
    for (int j = 1; j <= i; ++j)
      doubled.push(Value(int64_t(2 * j)));
    lines.set("doubled", doubled);
    Value both = Value::array();
    both.push(lines);
    both.push(Value("tagged"));
    order.set("both", both);
    done.push(order);
    for (const char *f : {"Both-unumIndex-", "BothSink-unumIndex-"})
      t.checkpointed.push_back(f + at);
    for (const char *f :
         {"Lines-unumIndex-0.", "LinesSink-unumIndex-0.", "Tag-unumIndex-1."})
      t.checkpointed.push_back(f + at);
    for (int j = 0; j < i; ++j)
      t.checkpointed.push_back("Dbl-unumIndex-" + std::to_string(j) + ".0." +
                               at);
    t.saved.push_back("Both-unumIndex-" + at);
    t.saved.push_back("Lines-unumIndex-0." + at);
  }
  t.input.set("orders", list);
  Value out = t.input;
  out.set("done", done);
  t.expected = obj({{"OrdersSink", out}});
  return t;
}

TestApp unum::runtime::test::mapRetryApp(bool recovers, int n, int bad) {
  TestApp t;
  t.name = recovers ? "map-retry" : "map-retry-then-catch";
  t.app = appFromJson({
      R"({"Name": "Enter", "Start": true, "Checkpoint": true, "SaveInput": true,
          "Loop": 1, "Next": {"Name": "Work", "InputType": "Map"}})",
      R"({"Name": "Work", "Checkpoint": true, "Loop": 1,
          "Next": [{"Name": "Tail", "InputType": "Scalar"},
                   {"Name": "Tail", "InputType": "Error", "Propagate": true}]})",
      R"({"Name": "Tail", "Checkpoint": true, "Loop": 1,
          "Next": {"Name": "Sink", "Propagate": true, "InputType": {"Fan-in": {
            "Values": ["Tail-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"]})",
      R"({"Name": "Sink", "Checkpoint": true, "StateInput": "Enter", "Loop": 1,
          "Retriers": [{"ErrorEquals": ["Boom"], "IntervalSeconds": 1,
                        "MaxAttempts": 1}],
          "Next": {"Name": "Handle", "InputType": "Error"}})",
      R"({"Name": "Handle", "Checkpoint": true})"});
  for (const char *identity : {"Enter", "Tail", "Sink", "Handle"})
    set(t.app, identity, [](const Value &x) { return x; });
  // Attempt 1's instances are named ...-unumVisit-1, attempt 2's
  // ...-unumVisit-3 (the sink in between advanced the counter to 2).
  (void)t.app.setHandler(
      "Work", makeFunctionHandler([=](const Value &in, Context &ctx) {
        if (in.getInt() == bad &&
            (!recovers ||
             ctx.instance.find("-unumVisit-1") != std::string_view::npos))
          return HandlerResult::failure("bad item", "Boom");
        ctx.effect(ctx.instance);
        return HandlerResult::success(Value(in.getInt() * 10));
      }));
  t.input = Value::array();
  Value out = Value::array();
  for (int i = 0; i < n; ++i) {
    t.input.push(Value(int64_t(i)));
    out.push(Value(int64_t(i * 10)));
  }
  t.checkpointed = {"Enter-unumVisit-1", "Enter-unumVisit-3"};
  for (int i = 0; i < n; ++i)
    for (const char *visit : {"1", "3"})
      if (i != bad || (recovers && visit == std::string("3")))
        for (const char *f : {"Work", "Tail"})
          t.checkpointed.push_back(std::string(f) + "-unumIndex-" +
                                   std::to_string(i) + "-unumVisit-" + visit);
  if (recovers) {
    t.checkpointed.push_back("Sink-unumVisit-4");
    t.expected = obj({{"Sink-unumVisit-4", out}});
  } else {
    t.checkpointed.push_back("Handle");
    t.expected =
        obj({{"Handle",
              obj({{"Error", Value("Boom")}, {"Cause", Value("bad item")}})}});
  }
  t.saved = {"Enter-unumVisit-1", "Enter-unumVisit-3"};
  return t;
}

TestApp unum::runtime::test::maxConcurrencyApp(int n, int k) {
  TestApp t;
  t.name = "max-concurrency-" + std::to_string(k);
  t.app = appFromJson({
      R"({"Name": "A", "Next": {"Name": "B", "InputType": "Map",
          "MaxConcurrency": )" +
          std::to_string(k) + R"(}, "Checkpoint": true, "Start": true})",
      R"({"Name": "B", "Next": {"Name": "C", "InputType": {"Fan-in": {
            "Values": ["B-unumIndex-*"]}}},
          "Next Payload Modifiers": ["Pop"], "Checkpoint": true})",
      R"({"Name": "C", "Checkpoint": true})"});
  set(t.app, "A", [](const Value &x) { return range(int(x.getInt())); });
  set(t.app, "B", [](const Value &x) { return Value(x.getInt() + 100); });
  set(t.app, "C", [](const Value &x) { return x; });
  t.input = Value(int64_t(n));
  Value out = Value::array();
  t.checkpointed = {"A", "C"};
  for (int i = 1; i <= n; ++i) {
    out.push(Value(int64_t(i + 100)));
    t.checkpointed.push_back("B-unumIndex-" + std::to_string(i - 1));
  }
  t.expected = obj({{"C", out}});
  return t;
}

std::vector<TestApp> unum::runtime::test::allApps() {
  std::vector<TestApp> apps;
  apps.push_back(chainApp());
  apps.push_back(parallelApp());
  apps.push_back(mapApp());
  apps.push_back(fanInApp());
  apps.push_back(mapInParallelApp());
  apps.push_back(mapInMapApp());
  // Empty maps continue with [] (as Step Functions does): the fan-in that
  // collects the map runs once, on no inputs.
  auto empty = [&](TestApp t, const char *name) {
    t.name = name;
    apps.push_back(std::move(t));
  };
  empty(fanInApp(0), "fanin-empty");                   // C sums []
  empty(mapInParallelApp(0), "map-in-parallel-empty"); // [] joins Z's output
  empty(mapInMapApp(0, 2), "map-in-map-empty-outer");
  empty(mapInMapApp(2, 0), "map-in-map-empty-inner"); // each SinkC gets []
  // Map and Parallel states whose sinks read the state's input.
  apps.push_back(mapResultPathApp());
  empty(mapResultPathApp(0), "map-result-path-empty");
  apps.push_back(nestedResultPathApp());
  return apps;
}

TestApp unum::runtime::test::subprocessApp(const std::string &dir, int n) {
  TestApp t = fanInApp(n);
  t.name = "subprocess-fanin";
  auto script = [&](const char *fn, const char *body) {
    std::string path = dir + "/" + fn;
    std::filesystem::create_directories(path);
    path += "/handler";
    // The effect is the instance name as a JSON string, as pure() stages it.
    std::ofstream(path) << "#!/bin/sh\n"
                        << R"(printf '"%s"\n' "$UNUM_INSTANCE" >&"$UNUM_EFFECTS_FD")"
                        << "\n"
                        << body;
    chmod(path.c_str(), 0755);
    (void)t.app.setHandler(fn, makeSubprocessHandler(path, dir));
  };
  // A: n -> [1, ..., n]; B: x -> x * x; C: list -> {"sum", "inputs"}.
  script("A", R"(read -r n
l=''; i=1
while [ "$i" -le "$n" ]; do l="$l${l:+,}$i"; i=$((i + 1)); done
echo "[$l]"
)");
  script("B", R"(read -r x
echo $((x * x))
)");
  script("C", R"(read -r l
terms=$(echo "$l" | tr -d '[]' | tr ',' '+')
echo "{\"sum\": $((${terms:-0})), \"inputs\": $l}"
)");
  return t;
}

TestApp unum::runtime::test::withDebug(TestApp t) {
  App app;
  for (const auto &[name, spec] : t.app.functions()) {
    unum::config::FunctionConfig c = spec.config;
    c.debug = true;
    (void)app.add(std::move(c), spec.handler, spec.dir);
  }
  t.app = std::move(app);
  t.name += "-debug";
  return t;
}
