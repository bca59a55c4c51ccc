//===- FunctionConfig.cpp - One function's unum_config --------------------===//

#include "unum/Config/FunctionConfig.h"
#include "unum/Config/Limits.h"

#include "Text.h"

#include <algorithm>
#include <cctype>
#include <charconv>

using namespace unum::config;
using namespace unum::config::detail;

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

namespace {

/// "a string", "an object", ... for "must be X, not Y" messages.
std::string withArticle(Node::Kind kind) {
  switch (kind) {
  case Node::Kind::Null:
    return "null";
  case Node::Kind::Array:
  case Node::Kind::Object:
    return std::string("an ") + Node::kindName(kind);
  default:
    return std::string("a ") + Node::kindName(kind);
  }
}

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower((unsigned char)a[i]) != std::tolower((unsigned char)b[i]))
      return false;
  return true;
}

enum class Where { Config, Edge };

class Decoder {
public:
  Decoder(Format format, DiagnosticSink &diags)
      : format(format), diags(diags) {}

  std::optional<FunctionConfig> decode(const Node &node);

private:
  bool json() const { return format == Format::Json; }
  const char *modifiersKey() const {
    return json() ? "Next Payload Modifiers" : "Payload Modifiers";
  }
  const char *typeKey() const { return json() ? "InputType" : "Type"; }

  void error(SourceLoc loc, std::string message) {
    diags.error(loc, std::move(message));
    failed = true;
  }
  bool expectKind(const Node &value, Node::Kind kind, const std::string &key) {
    if (value.kind == kind)
      return true;
    error(value.loc, "'" + key + "' must be " + withArticle(kind) + ", not " +
                         withArticle(value.kind));
    return false;
  }

  bool legacyKey(const Node::Member &member);
  void unknownKey(const Node::Member &member, Where where);
  bool functionName(const Node &value, const char *key, std::string &out);
  void decodeNext(const Node &value, FunctionConfig &config);
  void decodeEdge(const Node &node, FunctionConfig &config);
  void decodeInputType(const Node &value, Edge &edge);
  void decodeValues(const Node &value, Edge &edge);
  void decodeModifiers(const Node &value, FunctionConfig &config);
  std::optional<int64_t> decodeCount(const Node &value, const char *key,
                                     int64_t min, int64_t max = INT64_MAX);
  void decodeRetriers(const Node &value, FunctionConfig &config);

  Format format;
  DiagnosticSink &diags;
  bool failed = false;
  /// The config uses the 2021 `NextInput`; its edges lack input types, which
  /// is already explained by the error on `NextInput`.
  bool legacyNextInput = false;
};

} // namespace

bool Decoder::legacyKey(const Node::Member &member) {
  const std::string &key = member.key;
  std::string message;
  if (key == "NextInput") {
    message = std::string("'NextInput' is from the obsolete 2021 config "
                          "format; each 'Next' entry now has its own '") +
              typeKey() + "'";
  } else if (key == "Fan-out Modifiers") {
    message = std::string("'Fan-out Modifiers' is from the obsolete 2021 "
                          "config format; it is now '") +
              modifiersKey() + "'";
  } else if (key == "WaitFor") {
    message = "'WaitFor' is from an obsolete early config format; a fan-in is "
              "now a 'Next' entry with a Fan-in input type";
  } else if (key == "type" || key == "next" || key == "invokeeReturnStore") {
    message = "'" + key +
              "' is from the obsolete v0 config format, which cannot be "
              "converted";
  } else {
    return false;
  }
  error(member.keyLoc, message);
  return true;
}

void Decoder::unknownKey(const Node::Member &member, Where where) {
  const std::string &key = member.key;
  std::string message =
      "unknown key '" + key + "' in " +
      (where == Where::Config ? "a config" : "a 'Next' entry");
  std::string other;
  if (where == Where::Config) {
    if (json() && key == "Payload Modifiers")
      other = "; 'Payload Modifiers' belongs to the YAML format, JSON uses "
              "'Next Payload Modifiers'";
    else if (!json() && key == "Next Payload Modifiers")
      other = "; 'Next Payload Modifiers' belongs to the JSON format, YAML "
              "uses 'Payload Modifiers'";
    else if (!json() && key == "Remove")
      other = "; 'Remove' belongs to the JSON format (a compiler leftover)";
  } else {
    if (json() && key == "Type")
      other = "; 'Type' belongs to the YAML format, JSON uses 'InputType'";
    else if (json() && key == "Values")
      other = "; 'Values' belongs to the YAML format, JSON writes "
              "\"InputType\": {\"Fan-in\": {\"Values\": [...]}}";
    else if (!json() && key == "InputType")
      other = "; 'InputType' belongs to the JSON format, YAML uses 'Type' "
              "(and 'Values' for a fan-in)";
  }
  if (other.empty()) {
    static const char *const configKeysJson[] = {
        "Name",       "Next",      "Next Payload Modifiers",
        "Checkpoint", "Start",     "Debug",
        "Retry",      "Handler",   "Builtin",
        "DataFlow",   "SaveInput", "StateInput",
        "Loop",       "Retriers",  "TimeoutSeconds"};
    static const char *const configKeysYaml[] = {
        "Name",       "Next",      "Payload Modifiers",
        "Checkpoint", "Start",     "Debug",
        "Retry",      "Handler",   "Builtin",
        "DataFlow",   "SaveInput", "StateInput",
        "Loop",       "Retriers",  "TimeoutSeconds"};
    static const char *const edgeKeysJson[] = {"Name",        "InputType",
                                               "Conditional", "ResultPath",
                                               "Propagate",   "MaxConcurrency"};
    static const char *const edgeKeysYaml[] = {
        "Name",       "Type",      "Values",        "Conditional",
        "ResultPath", "Propagate", "MaxConcurrency"};
    auto suggest = [&](auto &keys) {
      for (const char *known : keys)
        if (equalsIgnoringCase(key, known))
          other = std::string("; did you mean '") + known + "'?";
    };
    if (where == Where::Config)
      json() ? suggest(configKeysJson) : suggest(configKeysYaml);
    else
      json() ? suggest(edgeKeysJson) : suggest(edgeKeysYaml);
  }
  error(member.keyLoc, message + other);
}

static size_t findIndexInfix(std::string_view name) {
  return std::min(name.find("-unumIndex-"), name.find("-UnumIndex-"));
}

bool Decoder::functionName(const Node &value, const char *key,
                           std::string &out) {
  if (!expectKind(value, Node::Kind::String, key))
    return false;
  const std::string &name = value.text;
  if (name.empty()) {
    error(value.loc, std::string("'") + key + "' must not be empty");
    return false;
  }
  // Function names become instance names and directory names, so they are
  // restricted to what Lambda and Cloud Functions allow.
  for (size_t i = 0; i < name.size(); ++i) {
    if (!std::isalnum((unsigned char)name[i]) && name[i] != '_' &&
        name[i] != '-') {
      error(value.contentLoc.shifted(i),
            "unexpected " + describeChar(name, i) + " in function name '" +
                name + "'; only letters, digits, '_' and '-' are allowed");
      return false;
    }
  }
  size_t infix = findIndexInfix(name);
  if (infix != std::string::npos) {
    error(value.contentLoc.shifted(infix),
          "function name '" + name + "' must not contain '-unumIndex-'");
    return false;
  }
  out = name;
  return true;
}

std::optional<FunctionConfig> Decoder::decode(const Node &node) {
  if (node.kind != Node::Kind::Object) {
    error(node.loc,
          "a config must be an object, not " + withArticle(node.kind));
    return std::nullopt;
  }
  FunctionConfig config;
  config.loc = node.loc;
  legacyNextInput = node.find("NextInput") != nullptr;
  bool haveName = false;
  for (const Node::Member &member : node.members) {
    const std::string &key = member.key;
    const Node &value = member.value;
    if (legacyKey(member))
      continue;
    if (key == "Name") {
      haveName = true;
      config.nameLoc = value.loc;
      functionName(value, "Name", config.name);
    } else if (key == "Next") {
      decodeNext(value, config);
    } else if (key == modifiersKey()) {
      decodeModifiers(value, config);
    } else if (key == "Checkpoint") {
      if (expectKind(value, Node::Kind::Bool, key))
        config.checkpoint = value.boolValue;
    } else if (key == "Start") {
      if (expectKind(value, Node::Kind::Bool, key))
        config.start = value.boolValue;
    } else if (key == "Debug") {
      if (expectKind(value, Node::Kind::Bool, key))
        config.debug = value.boolValue;
    } else if (key == "Retry") {
      if (auto n = decodeCount(value, "Retry", 0))
        config.retry = *n;
    } else if (key == "Retriers") {
      decodeRetriers(value, config);
    } else if (key == "TimeoutSeconds") {
      if (auto n = decodeCount(value, "TimeoutSeconds", 1))
        config.timeoutSeconds = *n;
    } else if (key == "Loop") {
      if (auto n = decodeCount(value, "Loop", 1))
        config.loop = *n;
    } else if (key == "Handler") {
      std::string handler;
      if (functionName(value, "Handler", handler))
        config.handler = handler;
    } else if (key == "Builtin") {
      if (expectKind(value, Node::Kind::String, key)) {
        if (std::find_if(std::begin(kBuiltins), std::end(kBuiltins),
                         [&](const char *b) { return value.text == b; }) ==
            std::end(kBuiltins))
          error(value.loc, "unknown 'Builtin' '" + value.text +
                               "'; expected Pass, Wait, Succeed or Fail");
        else
          config.builtin = value.text;
      }
    } else if (key == "DataFlow") {
      if (expectKind(value, Node::Kind::Object, key)) {
        for (const Node::Member &field : value.members)
          if (std::find_if(std::begin(kDataFlowFields),
                           std::end(kDataFlowFields), [&](const char *f) {
                             return field.key == f;
                           }) == std::end(kDataFlowFields))
            error(field.keyLoc, "unknown 'DataFlow' field '" + field.key + "'");
        // A Wait's Seconds: what the ASL importer accepts, and no more than
        // the runtime waits.
        if (const Node *seconds = value.find("Seconds"))
          decodeCount(*seconds, "Seconds", 0, unum::limits::kMaxWaitSeconds);
        config.dataFlow = value;
      }
    } else if (key == "SaveInput") {
      if (expectKind(value, Node::Kind::Bool, key))
        config.saveInput = value.boolValue;
    } else if (key == "StateInput") {
      std::string from;
      if (functionName(value, "StateInput", from)) {
        config.stateInput = from;
        config.stateInputLoc = value.loc;
      }
    } else if (json() && key == "Remove") {
      // Left by the original compiler's trim pass; carries no meaning.
    } else {
      unknownKey(member, Where::Config);
    }
  }
  if (!haveName)
    error(node.loc, node.members.empty()
                        ? "config has no 'Name' (an empty '{}' config is from "
                          "an obsolete format)"
                        : "config has no 'Name'");
  if (failed)
    return std::nullopt;
  return config;
}

void Decoder::decodeNext(const Node &value, FunctionConfig &config) {
  if (value.kind == Node::Kind::Object) {
    decodeEdge(value, config);
    return;
  }
  if (value.kind == Node::Kind::Array) {
    // An empty list means no continuation; it is not a zero-branch fan-out.
    config.nextIsList = !value.items.empty();
    for (const Node &item : value.items)
      decodeEdge(item, config);
    return;
  }
  std::string message =
      "'Next' must be an object or a list, not " + withArticle(value.kind);
  if (value.kind == Node::Kind::String)
    message += "; 'Next' naming a function is from an obsolete early config "
               "format";
  error(value.loc, message);
}

void Decoder::decodeEdge(const Node &node, FunctionConfig &config) {
  if (node.kind != Node::Kind::Object) {
    std::string message =
        "a 'Next' entry must be an object, not " + withArticle(node.kind);
    if (node.kind == Node::Kind::String)
      message += "; a list of function names is from an obsolete early "
                 "config format";
    error(node.loc, message);
    return;
  }
  Edge edge;
  edge.loc = node.loc;
  bool haveName = false, haveType = false;
  // YAML: the Type was understood, so Values can be checked against it.
  bool typeKnown = false;
  const Node *values = nullptr;
  SourceLoc valuesKeyLoc;
  std::optional<SourceLoc> resultPathLoc, propagateLoc, concurrencyLoc;
  for (const Node::Member &member : node.members) {
    const std::string &key = member.key;
    const Node &value = member.value;
    if (key == "Name") {
      haveName = true;
      edge.targetLoc = value.loc;
      functionName(value, "Name", edge.target);
    } else if (key == "Conditional") {
      if (!expectKind(value, Node::Kind::String, key))
        continue;
      edge.conditionalLoc = value.contentLoc;
      ParseError parseError;
      edge.conditional = parseConditional(value.text, parseError);
      if (!edge.conditional)
        error(value.contentLoc.shifted(parseError.offset), parseError.message);
    } else if (json() && key == "InputType") {
      haveType = true;
      decodeInputType(value, edge);
    } else if (!json() && key == "Type") {
      haveType = true;
      if (!expectKind(value, Node::Kind::String, key))
        continue;
      typeKnown = true;
      if (value.text == "Scalar")
        edge.kind = EdgeKind::Scalar;
      else if (value.text == "Map")
        edge.kind = EdgeKind::Map;
      else if (value.text == "Fan-in")
        edge.kind = EdgeKind::FanIn;
      else if (value.text == "Error")
        edge.kind = EdgeKind::Error;
      else {
        typeKnown = false;
        error(value.loc, "unknown 'Type' '" + value.text +
                             "'; expected Scalar, Map, Fan-in or Error");
      }
    } else if (!json() && key == "Values") {
      values = &value;
      valuesKeyLoc = member.keyLoc;
    } else if (key == "ResultPath") {
      if (value.kind != Node::Kind::Null &&
          (value.kind != Node::Kind::String || value.text.empty() ||
           value.text[0] != '$'))
        error(value.loc, "'ResultPath' must be a path ($...) or null");
      else
        edge.resultPath = value;
      resultPathLoc = member.keyLoc;
    } else if (key == "Propagate") {
      if (expectKind(value, Node::Kind::Bool, key))
        edge.propagate = value.boolValue;
      propagateLoc = member.keyLoc;
    } else if (key == "MaxConcurrency") {
      if (auto n = decodeCount(value, "MaxConcurrency", 1))
        edge.maxConcurrency = *n;
      concurrencyLoc = member.keyLoc;
    } else {
      unknownKey(member, Where::Edge);
    }
  }
  if (!haveName)
    error(node.loc, "'Next' entry has no 'Name'");
  if (!haveType && !legacyNextInput)
    error(node.loc, std::string("'Next' entry has no '") + typeKey() + "'");
  if (typeKnown) {
    if (edge.kind == EdgeKind::FanIn && !values)
      error(node.loc, "a 'Type: Fan-in' entry needs 'Values'");
    else if (edge.kind != EdgeKind::FanIn && values)
      error(valuesKeyLoc, "'Values' is only allowed with 'Type: Fan-in'");
    else if (values)
      decodeValues(*values, edge);
  }
  if (resultPathLoc && edge.kind != EdgeKind::Error)
    error(*resultPathLoc, "'ResultPath' is only allowed on an Error edge");
  if (concurrencyLoc && edge.kind != EdgeKind::Map)
    error(*concurrencyLoc, "'MaxConcurrency' is only allowed on a Map edge");
  if (propagateLoc && edge.kind != EdgeKind::Error &&
      edge.kind != EdgeKind::FanIn)
    error(*propagateLoc,
          "'Propagate' is only allowed on an Error or Fan-in edge");
  if (edge.propagate && edge.resultPath)
    error(*resultPathLoc, "a 'Propagate' edge passes the error on unchanged: "
                          "it has no 'ResultPath'");
  config.next.push_back(std::move(edge));
}

void Decoder::decodeInputType(const Node &value, Edge &edge) {
  const char *expected = "expected \"Scalar\", \"Map\", \"Error\" or "
                         "{\"Fan-in\": {\"Values\": [...]}}";
  if (value.kind == Node::Kind::String) {
    if (value.text == "Scalar")
      edge.kind = EdgeKind::Scalar;
    else if (value.text == "Map")
      edge.kind = EdgeKind::Map;
    else if (value.text == "Error")
      edge.kind = EdgeKind::Error;
    else if (value.text == "Fan-in")
      error(value.loc, "a Fan-in 'InputType' needs its values: write "
                       "{\"Fan-in\": {\"Values\": [...]}}");
    else
      error(value.loc,
            "unknown 'InputType' \"" + value.text + "\"; " + expected);
    return;
  }
  if (value.kind != Node::Kind::Object) {
    error(value.loc, "'InputType' must be a string or an object, not " +
                         withArticle(value.kind));
    return;
  }
  edge.kind = EdgeKind::FanIn;
  const Node *fanIn = nullptr;
  for (const Node::Member &member : value.members) {
    if (member.key == "Fan-in")
      fanIn = &member.value;
    else
      error(member.keyLoc, "unknown key '" + member.key +
                               "' in 'InputType'; expected only 'Fan-in'");
  }
  if (!fanIn) {
    if (value.members.empty())
      error(value.loc, std::string("empty 'InputType' object; ") + expected);
    return;
  }
  if (!expectKind(*fanIn, Node::Kind::Object, "Fan-in"))
    return;
  const Node *values = nullptr;
  for (const Node::Member &member : fanIn->members) {
    if (member.key == "Values")
      values = &member.value;
    else if (member.key == "Wait")
      error(member.keyLoc, "'Wait' is from the obsolete 2021 config format "
                           "and is not supported");
    else
      error(member.keyLoc, "unknown key '" + member.key +
                               "' in 'Fan-in'; expected only 'Values'");
  }
  if (!values) {
    error(fanIn->loc, "'Fan-in' has no 'Values'");
    return;
  }
  decodeValues(*values, edge);
}

void Decoder::decodeValues(const Node &value, Edge &edge) {
  if (!expectKind(value, Node::Kind::Array, "Values"))
    return;
  if (value.items.empty()) {
    error(value.loc, "'Values' must name at least one instance");
    return;
  }
  for (const Node &item : value.items) {
    if (item.kind != Node::Kind::String) {
      error(item.loc,
            "a 'Values' entry must be a string, not " + withArticle(item.kind));
      continue;
    }
    ParseError parseError;
    std::optional<NamePattern> pattern =
        parseNamePattern(item.text, parseError);
    if (!pattern) {
      error(item.contentLoc.shifted(parseError.offset), parseError.message);
      continue;
    }
    edge.values.push_back(std::move(*pattern));
    edge.valueLocs.push_back(item.contentLoc);
  }
}

void Decoder::decodeModifiers(const Node &value, FunctionConfig &config) {
  std::string key = modifiersKey();
  if (!expectKind(value, Node::Kind::Array, key))
    return;
  for (const Node &item : value.items) {
    if (item.kind != Node::Kind::String) {
      error(item.loc, "a '" + key + "' entry must be a string, not " +
                          withArticle(item.kind));
      continue;
    }
    ParseError parseError;
    std::optional<Modifier> modifier = parseModifier(item.text, parseError);
    if (!modifier) {
      error(item.contentLoc.shifted(parseError.offset), parseError.message);
      continue;
    }
    config.modifiers.push_back(std::move(*modifier));
    config.modifierLocs.push_back(item.contentLoc);
  }
}

/// An integer from `min` to `max` (Retry, Loop).
std::optional<int64_t> Decoder::decodeCount(const Node &value, const char *key,
                                            int64_t min, int64_t max) {
  if (value.kind != Node::Kind::Number) {
    error(value.loc, std::string("'") + key + "' must be an integer, not " +
                         withArticle(value.kind));
    return std::nullopt;
  }
  int64_t n = -1;
  if (value.isInteger() && value.text[0] != '-') {
    auto [end, ec] = std::from_chars(value.text.data(),
                                     value.text.data() + value.text.size(), n);
    if (ec != std::errc() || n > max) {
      error(value.loc,
            std::string("'") + key + "' is too large" +
                (max < INT64_MAX ? " (at most " + std::to_string(max) + ")"
                                 : std::string()));
      return std::nullopt;
    }
  }
  if (n < min) {
    error(value.loc, std::string("'") + key + "' must be " +
                         (min == 0 ? "a non-negative" : "a positive") +
                         " integer, not " + value.text);
    return std::nullopt;
  }
  return n;
}

const char *const unum::config::kRetrierFields[6] = {
    "ErrorEquals", "IntervalSeconds", "MaxAttempts",
    "BackoffRate", "MaxDelaySeconds", "JitterStrategy"};

/// "Retriers": the config's retrier list, checked by decodeRetriers.
void Decoder::decodeRetriers(const Node &value, FunctionConfig &config) {
  if (!expectKind(value, Node::Kind::Array, "Retriers"))
    return;
  auto retriers = unum::config::decodeRetriers(
      value, [&](SourceLoc loc, std::string message) {
        error(loc, std::move(message));
      });
  if (!retriers)
    return;
  config.retriers = std::move(*retriers);
  config.retriersNode = value;
}

std::optional<std::vector<Retrier>> unum::config::decodeRetriers(
    const Node &value,
    const std::function<void(SourceLoc, std::string)> &error) {
  std::vector<Retrier> out;
  bool ok = true;
  auto bad = [&](const Node &at, const std::string &message) {
    error(at.loc, message);
    ok = false;
  };
  auto number = [&](const Node &n, const char *key, bool integer,
                    double min) -> std::optional<double> {
    double v = 0;
    if (n.kind == Node::Kind::Number && (!integer || n.isInteger())) {
      auto [end, ec] =
          std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
      if (ec == std::errc() && v >= min)
        return v;
    }
    bad(n, std::string("retrier '") + key + "' must be " +
               (integer ? (min > 0 ? "a positive integer"
                                   : "a non-negative integer")
                        : "a number >= 1") +
               ", not " +
               (n.kind == Node::Kind::Number ? n.text : withArticle(n.kind)));
    return std::nullopt;
  };
  for (size_t i = 0; i < value.items.size(); ++i) {
    const Node &item = value.items[i];
    if (item.kind != Node::Kind::Object) {
      bad(item, "a retrier must be an object, not " + withArticle(item.kind));
      continue;
    }
    Retrier r;
    bool hasErrors = false;
    for (const Node::Member &m : item.members) {
      const Node &v = m.value;
      if (m.key == "ErrorEquals") {
        hasErrors = true;
        if (v.kind != Node::Kind::Array || v.items.empty()) {
          bad(v, "retrier 'ErrorEquals' must be a non-empty list of error "
                 "names");
          continue;
        }
        for (const Node &e : v.items) {
          if (e.kind != Node::Kind::String) {
            bad(e,
                "an error name must be a string, not " + withArticle(e.kind));
            continue;
          }
          if (e.text == "States.ALL" &&
              (v.items.size() != 1 || i + 1 != value.items.size()))
            bad(e, "States.ALL must appear alone, in the last retrier");
          r.errorEquals.push_back(e.text);
        }
      } else if (m.key == "IntervalSeconds") {
        if (auto n = number(v, "IntervalSeconds", true, 1))
          r.intervalSeconds = *n;
      } else if (m.key == "MaxAttempts") {
        if (auto n = number(v, "MaxAttempts", true, 0))
          // A double past INT64_MAX does not convert (UB): any count that
          // large never runs out anyway.
          r.maxAttempts = *n < 0x1p62 ? int64_t(*n) : int64_t(1) << 62;
      } else if (m.key == "BackoffRate") {
        if (auto n = number(v, "BackoffRate", false, 1))
          r.backoffRate = *n;
      } else if (m.key == "MaxDelaySeconds") {
        if (auto n = number(v, "MaxDelaySeconds", true, 1))
          r.maxDelaySeconds = *n;
      } else if (m.key == "Comment") {
        // As in ASL: a string, otherwise ignored.
        if (v.kind != Node::Kind::String)
          bad(v,
              "retrier 'Comment' must be a string, not " + withArticle(v.kind));
      } else if (m.key == "JitterStrategy") {
        if (v.kind != Node::Kind::String ||
            (v.text != "FULL" && v.text != "NONE"))
          bad(v, "retrier 'JitterStrategy' must be FULL or NONE");
        else
          r.fullJitter = v.text == "FULL";
      } else {
        error(m.keyLoc, "unknown retrier field '" + m.key + "'");
        ok = false;
      }
    }
    if (!hasErrors)
      bad(item, "a retrier needs 'ErrorEquals'");
    out.push_back(std::move(r));
  }
  if (!ok)
    return std::nullopt;
  return out;
}

const char *const unum::config::kDataFlowFields[20] = {
    "InputPath",    "Parameters", "ResultSelector",     "ResultPath",
    "OutputPath",   "ItemsPath",  "ItemSelector",       "Result",
    "Seconds",      "Timestamp",  "SecondsPath",        "TimestampPath",
    "Error",        "Cause",      "ErrorPath",          "CausePath",
    "LambdaInvoke", "StateName",  "TimeoutSecondsPath", "ExecutionContext"};
const char *const unum::config::kBuiltins[4] = {"Pass", "Wait", "Succeed",
                                                "Fail"};

std::optional<FunctionConfig>
unum::config::decodeConfig(const Node &node, Format format,
                           DiagnosticSink &diags) {
  return Decoder(format, diags).decode(node);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

const char *unum::config::configFileName(Format format) {
  return format == Format::Json ? "unum_config.json" : "unum_config.yaml";
}

static const char *edgeKindName(EdgeKind kind) {
  switch (kind) {
  case EdgeKind::Scalar:
    return "Scalar";
  case EdgeKind::Map:
    return "Map";
  case EdgeKind::FanIn:
    return "Fan-in";
  case EdgeKind::Error:
    return "Error";
  }
  return "Scalar";
}

static const char *boolText(bool value) { return value ? "true" : "false"; }

namespace {

/// JSON in the layout of Python's json.dump(indent=4), which produced the
/// original configs.
class JsonWriter {
public:
  std::string write(const FunctionConfig &config);

private:
  static std::string indent(unsigned level) {
    return std::string(4 * level, ' ');
  }
  static std::string object(const std::vector<std::string> &fields,
                            unsigned level);
  static std::string stringList(const std::vector<std::string> &items,
                                unsigned level);
  static std::string edge(const Edge &edge, unsigned level);
};

} // namespace

std::string JsonWriter::object(const std::vector<std::string> &fields,
                               unsigned level) {
  if (fields.empty())
    return "{}";
  std::string out = "{\n";
  for (size_t i = 0; i < fields.size(); ++i) {
    out += indent(level + 1) + fields[i];
    out += i + 1 < fields.size() ? ",\n" : "\n";
  }
  return out + indent(level) + "}";
}

std::string JsonWriter::stringList(const std::vector<std::string> &items,
                                   unsigned level) {
  if (items.empty())
    return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < items.size(); ++i) {
    out += indent(level + 1) + quoteJson(items[i]);
    out += i + 1 < items.size() ? ",\n" : "\n";
  }
  return out + indent(level) + "]";
}

std::string JsonWriter::edge(const Edge &edge, unsigned level) {
  std::vector<std::string> fields;
  fields.push_back("\"Name\": " + quoteJson(edge.target));
  if (edge.kind == EdgeKind::FanIn) {
    std::vector<std::string> values;
    for (const NamePattern &pattern : edge.values)
      values.push_back(spell(pattern, Spelling::Json));
    std::string valuesField = "\"Values\": " + stringList(values, level + 3);
    std::string fanIn = "\"Fan-in\": " + object({valuesField}, level + 2);
    fields.push_back("\"InputType\": " + object({fanIn}, level + 1));
  } else {
    fields.push_back(std::string("\"InputType\": \"") +
                     edgeKindName(edge.kind) + "\"");
  }
  if (edge.conditional)
    fields.push_back("\"Conditional\": " +
                     quoteJson(spell(*edge.conditional, Spelling::Json)));
  if (edge.resultPath)
    fields.push_back("\"ResultPath\": " + writeJsonValue(*edge.resultPath));
  if (edge.propagate)
    fields.push_back("\"Propagate\": true");
  if (edge.maxConcurrency)
    fields.push_back("\"MaxConcurrency\": " +
                     std::to_string(*edge.maxConcurrency));
  return object(fields, level);
}

std::string JsonWriter::write(const FunctionConfig &config) {
  std::vector<std::string> fields;
  fields.push_back("\"Name\": " + quoteJson(config.name));
  if (!config.next.empty()) {
    if (!config.nextIsList && config.next.size() == 1) {
      fields.push_back("\"Next\": " + edge(config.next[0], 1));
    } else {
      std::string list = "\"Next\": [\n";
      for (size_t i = 0; i < config.next.size(); ++i) {
        list += indent(2) + edge(config.next[i], 2);
        list += i + 1 < config.next.size() ? ",\n" : "\n";
      }
      fields.push_back(list + indent(1) + "]");
    }
  }
  if (!config.modifiers.empty()) {
    std::vector<std::string> modifiers;
    for (const Modifier &modifier : config.modifiers)
      modifiers.push_back(spell(modifier, Spelling::Json));
    fields.push_back("\"Next Payload Modifiers\": " + stringList(modifiers, 1));
  }
  fields.push_back(std::string("\"Checkpoint\": ") +
                   boolText(config.checkpoint));
  if (config.debug)
    fields.push_back(std::string("\"Debug\": ") + boolText(*config.debug));
  if (config.retry)
    fields.push_back("\"Retry\": " + std::to_string(*config.retry));
  if (config.retriersNode)
    fields.push_back("\"Retriers\": " + writeJsonValue(*config.retriersNode));
  if (config.handler)
    fields.push_back("\"Handler\": " + quoteJson(*config.handler));
  if (config.builtin)
    fields.push_back("\"Builtin\": " + quoteJson(*config.builtin));
  if (config.dataFlow)
    fields.push_back("\"DataFlow\": " + writeJsonValue(*config.dataFlow));
  if (config.saveInput)
    fields.push_back("\"SaveInput\": true");
  if (config.stateInput)
    fields.push_back("\"StateInput\": " + quoteJson(*config.stateInput));
  if (config.loop)
    fields.push_back("\"Loop\": " + std::to_string(*config.loop));
  if (config.timeoutSeconds)
    fields.push_back("\"TimeoutSeconds\": " +
                     std::to_string(*config.timeoutSeconds));
  if (config.start)
    fields.push_back("\"Start\": true");
  return object(fields, 0) + "\n";
}

/// `s` as a YAML double-quoted scalar.
static std::string quoteYaml(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\x";
      out += hexDigit(c >> 4);
      out += hexDigit(c);
    } else if (c == 0xC2 && i + 1 < s.size() &&
               (unsigned char)s[i + 1] == 0x85) {
      // NEL, LS and PS are line breaks to YAML 1.1 readers. (yaml-cpp 0.7
      // decodes \N, \L and \P wrongly, so spell them as \u escapes.)
      out += "\\u0085";
      ++i;
    } else if (c == 0xE2 && i + 2 < s.size() &&
               (unsigned char)s[i + 1] == 0x80 &&
               ((unsigned char)s[i + 2] == 0xA8 ||
                (unsigned char)s[i + 2] == 0xA9)) {
      out += (unsigned char)s[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

/// Plain when it reads back as the same string under YAML 1.1 and 1.2 (an
/// identifier that is not a null/bool word), double-quoted otherwise.
static std::string yamlScalar(std::string_view s) {
  bool plain = !s.empty() && (std::isalpha((unsigned char)s[0]) || s[0] == '_');
  for (char c : s)
    plain = plain && (std::isalnum((unsigned char)c) || c == '_' || c == '-');
  static const char *const reserved[] = {"null", "true", "false", "yes", "no",
                                         "on",   "off",  "y",     "n"};
  for (const char *word : reserved)
    if (equalsIgnoringCase(s, word))
      plain = false;
  return plain ? std::string(s) : quoteYaml(s);
}

static std::vector<std::string> yamlEdge(const Edge &edge) {
  std::vector<std::string> lines;
  lines.push_back("Name: " + yamlScalar(edge.target));
  lines.push_back(std::string("Type: ") + edgeKindName(edge.kind));
  if (edge.kind == EdgeKind::FanIn) {
    if (edge.values.empty())
      lines.push_back("Values: []");
    else
      lines.push_back("Values:");
    for (const NamePattern &pattern : edge.values)
      lines.push_back("  - " + quoteYaml(spell(pattern, Spelling::Yaml)));
  }
  if (edge.conditional)
    lines.push_back("Conditional: " +
                    quoteYaml(spell(*edge.conditional, Spelling::Yaml)));
  if (edge.resultPath)
    lines.push_back("ResultPath: " + writeJsonValue(*edge.resultPath, true));
  if (edge.propagate)
    lines.push_back("Propagate: true");
  if (edge.maxConcurrency)
    lines.push_back("MaxConcurrency: " + std::to_string(*edge.maxConcurrency));
  return lines;
}

static std::string writeYaml(const FunctionConfig &config) {
  std::string out = "Name: " + yamlScalar(config.name) + "\n";
  if (!config.next.empty()) {
    out += "Next:\n";
    bool list = config.nextIsList || config.next.size() != 1;
    for (const Edge &edge : config.next) {
      std::vector<std::string> lines = yamlEdge(edge);
      for (size_t i = 0; i < lines.size(); ++i) {
        if (!list)
          out += "  ";
        else
          out += i == 0 ? "  - " : "    ";
        out += lines[i] + "\n";
      }
    }
  }
  if (!config.modifiers.empty()) {
    out += "Payload Modifiers:\n";
    for (const Modifier &modifier : config.modifiers)
      out += "  - " + quoteYaml(spell(modifier, Spelling::Yaml)) + "\n";
  }
  out += std::string("Checkpoint: ") + boolText(config.checkpoint) + "\n";
  if (config.debug)
    out += std::string("Debug: ") + boolText(*config.debug) + "\n";
  if (config.retry)
    out += "Retry: " + std::to_string(*config.retry) + "\n";
  if (config.retriersNode)
    out += "Retriers: " + writeJsonValue(*config.retriersNode, true) + "\n";
  if (config.handler)
    out += "Handler: " + yamlScalar(*config.handler) + "\n";
  if (config.builtin)
    out += "Builtin: " + yamlScalar(*config.builtin) + "\n";
  if (config.dataFlow)
    out += "DataFlow: " + writeJsonValue(*config.dataFlow, true) + "\n";
  if (config.saveInput)
    out += "SaveInput: true\n";
  if (config.stateInput)
    out += "StateInput: " + yamlScalar(*config.stateInput) + "\n";
  if (config.loop)
    out += "Loop: " + std::to_string(*config.loop) + "\n";
  if (config.timeoutSeconds)
    out += "TimeoutSeconds: " + std::to_string(*config.timeoutSeconds) + "\n";
  if (config.start)
    out += "Start: true\n";
  return out;
}

std::string unum::config::writeConfig(const FunctionConfig &config,
                                      Format format) {
  return format == Format::Json ? JsonWriter().write(config)
                                : writeYaml(config);
}
