//===- expr.cpp - Fuzz conditionals, fan-in patterns and modifiers --------===//
//
// Input: a selector byte (mod 3: a conditional, a fan-in name pattern, a
// payload modifier), the expression's text, and optionally a NUL and a JSON
// value for `$out`. The parser must not crash; what it accepts must spell
// back (canonically) to text that parses to the same canonical text, and
// the evaluator must give a value or an error on the sample fan-out levels,
// never crash or hang.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "unum/Config/Expr.h"
#include "unum/Runtime/Evaluator.h"

using namespace unum;
using namespace unum::config;

namespace {
template <typename T, typename Parse>
void checkSpelling(const T &parsed, Parse parse) {
  for (Spelling s : {Spelling::Canonical, Spelling::Json, Spelling::Yaml}) {
    std::string spelled = spell(parsed, s);
    ParseError again;
    auto back = parse(spelled, again);
    fuzz::fuzzCheck(bool(back), "a spelled expression does not parse again",
                    spelled + "\n" + again.message);
    fuzz::fuzzCheck(back->text == parsed.text,
                    "a spelled expression parses to another one",
                    parsed.text + "\n" + back->text);
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  unsigned kind = data[0] % 3;
  auto [text, outText] = fuzz::splitAtNul(fuzz::asText(data + 1, size - 1));

  runtime::Value output = runtime::Value::object();
  if (!outText.empty())
    if (auto v = runtime::parseJsonValue(outText, "out"))
      output = v.take();
  std::vector<runtime::FanOutLevel> fanout(2);
  fanout[0].index = 2;
  fanout[0].size = 5;
  fanout[1].type = "Parallel";
  fanout[1].index = 1;
  fanout[1].size = 3;
  runtime::EvalEnv env{&output, &fanout};

  ParseError error;
  switch (kind) {
  case 0:
    if (auto e = parseConditional(text, error)) {
      checkSpelling(*e, parseConditional);
      (void)runtime::evaluateCondition(*e, env);
      if (e->root)
        (void)runtime::evaluate(*e->root, env);
    }
    break;
  case 1:
    if (auto p = parseNamePattern(text, error)) {
      checkSpelling(*p, parseNamePattern);
      auto fanIn = runtime::resolveFanIn({*p}, env);
      // Expanding is the completer's job, bounded by kMaxFanInInstances; a
      // small one is expanded here to exercise it.
      if (fanIn && fanIn->count <= 4096) {
        std::vector<std::string> names = fanIn->expand();
        fuzz::fuzzCheck(names.size() == fanIn->count,
                        "a fan-in expands to another count", p->text);
        for (const std::string &n : names)
          fuzz::fuzzCheck(fanIn->contains(n),
                          "a fan-in does not contain its own instance", n);
      }
    }
    break;
  case 2:
    if (auto m = parseModifier(text, error)) {
      checkSpelling(*m, parseModifier);
      (void)runtime::applyModifiers({*m}, fanout, &output);
    }
    break;
  }
  return 0;
}
