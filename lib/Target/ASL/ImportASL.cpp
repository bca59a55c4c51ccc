//===- ImportASL.cpp - Amazon States Language -> sfn dialect --------------===//
//
// The importer reads the JSON with the config library's located parser, checks
// each state's fields against the ASL specification and builds the ops with
// their JSON image. Errors are collected in a config::DiagnosticSink (so that
// one run reports several) and handed to MLIR's diagnostic handler; the sfn
// verifier then checks the transitions of each scope.
//
//===----------------------------------------------------------------------===//
#include "unum/Config/Limits.h"
#include "unum/Target/ASL/ASL.h"

#include "unum/Config/Document.h"
#include "unum/Config/FunctionConfig.h"
#include "unum/Config/JsonPath.h"
#include "unum/Config/Timestamp.h"
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Target/InputName.h"
#include "unum/Target/JsonImage.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <optional>

using namespace mlir;
using namespace unum;
using config::Node;
using config::SourceLoc;
using Kind = config::Node::Kind;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

static Location toLoc(MLIRContext *context, StringRef file, SourceLoc loc) {
  return FileLineColLoc::get(context, file, loc.line, loc.col);
}

static std::string quoted(StringRef s) { return ("'" + s + "'").str(); }

/// "a string", "an object", ... for messages.
static std::string aKind(Kind kind) {
  std::string name = Node::kindName(kind);
  if (kind == Kind::Null)
    return name;
  bool vowel = name[0] == 'a' || name[0] == 'o';
  return (vowel ? "an " : "a ") + name;
}

static bool readFile(StringRef path, std::string &text,
                     config::DiagnosticSink &sink, StringRef what) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    sink.error({}, "cannot read " + what.str() + " '" + path.str() +
                       "': " + buffer.getError().message());
    return false;
  }
  text = (*buffer)->getBuffer().str();
  return true;
}

/// Parses `text` as exactly one JSON value.
static Node *parseOne(StringRef text, std::vector<Node> &documents,
                      config::DiagnosticSink &sink) {
  if (!config::parseJson(std::string_view(text.data(), text.size()), documents,
                         sink))
    return nullptr;
  if (documents.size() != 1) {
    if (documents.empty())
      sink.error({1, 1}, "expected one JSON value, the file is empty");
    else
      sink.error(documents[1].loc,
                 "expected one JSON value, found another one here");
    return nullptr;
  }
  return &documents.front();
}

//===----------------------------------------------------------------------===//
// Syntax of paths, intrinsic functions and timestamps
//===----------------------------------------------------------------------===//

namespace {
/// What a path field accepts (the grammar is unum/Config/JsonPath.h, which
/// the runtime evaluates).
enum class PathSyntax {
  Reference,          // $, $.a.b, $['a b'], $.a[0]
  ReferenceOrContext, // also $$.Execution.Id ...
  Any,                // full JSONPath ($..a, [*], filters), context paths
};

config::PathRules rulesFor(PathSyntax syntax) {
  config::PathRules rules;
  rules.reference = syntax != PathSyntax::Any;
  rules.context = syntax != PathSyntax::Reference;
  return rules;
}
} // namespace

/// RFC 3339 as ASL uses it (unum/Config/Timestamp.h, as the runtime reads
/// it).
static bool isTimestamp(StringRef s) {
  return config::parseTimestamp(std::string_view(s.data(), s.size()))
      .has_value();
}

//===----------------------------------------------------------------------===//
// Field tables
//===----------------------------------------------------------------------===//

namespace {
enum StateType : unsigned {
  Task = 1,
  Pass = 2,
  Choice = 4,
  Wait = 8,
  Succeed = 16,
  Fail = 32,
  Parallel = 64,
  Map = 128,
};
constexpr unsigned AllTypes = 255;

struct TypeName {
  const char *name;
  StateType type;
};
const TypeName typeNames[] = {
    {"Task", Task},         {"Pass", Pass},       {"Choice", Choice},
    {"Wait", Wait},         {"Succeed", Succeed}, {"Fail", Fail},
    {"Parallel", Parallel}, {"Map", Map},
};

/// The ASL fields of states and the state types that have them. Next and End
/// are accepted everywhere: the sfn verifier rejects them where they do not
/// belong.
struct FieldSpec {
  const char *key;
  unsigned types;
};
const FieldSpec stateFields[] = {
    {"Type", AllTypes},
    {"Comment", AllTypes},
    {"Next", AllTypes},
    {"End", AllTypes},
    {"InputPath", AllTypes & ~Fail},
    {"OutputPath", AllTypes & ~Fail},
    {"Resource", Task},
    {"Parameters", Task | Pass | Parallel | Map},
    {"ResultSelector", Task | Parallel | Map},
    {"ResultPath", Task | Pass | Parallel | Map},
    {"Retry", Task | Parallel | Map},
    {"Catch", Task | Parallel | Map},
    {"TimeoutSeconds", Task},
    {"TimeoutSecondsPath", Task},
    {"HeartbeatSeconds", Task},
    {"Result", Pass},
    {"Choices", Choice},
    {"Default", Choice},
    {"Seconds", Wait},
    {"Timestamp", Wait},
    {"SecondsPath", Wait},
    {"TimestampPath", Wait},
    {"Error", Fail},
    {"Cause", Fail},
    {"ErrorPath", Fail},
    {"CausePath", Fail},
    {"Branches", Parallel},
    {"Iterator", Map},
    {"ItemProcessor", Map},
    {"ItemsPath", Map},
    {"ItemSelector", Map},
    {"MaxConcurrency", Map},
};

/// ASL fields that the sfn dialect has no place for, and why.
const std::pair<const char *, const char *> unsupportedFields[] = {
    {"HeartbeatSecondsPath", "a heartbeat read from the input"},
    {"Credentials", "cross-account roles"},
    {"Arguments", "JSONata"},
    {"Output", "JSONata"},
    {"Assign", "variables"},
    {"ItemReader", "a distributed Map reading its items from S3; give the "
                   "items in the input"},
    {"ItemBatcher", "a distributed Map's batches"},
    {"ResultWriter", "a distributed Map writing its results to S3"},
    {"MaxConcurrencyPath", "a concurrency read from the input"},
    {"Label", "a distributed Map's label"},
    {"ToleratedFailurePercentage", "a distributed Map's failure tolerance"},
    {"ToleratedFailurePercentagePath", "a distributed Map's failure tolerance"},
    {"ToleratedFailureCount", "a distributed Map's failure tolerance"},
    {"ToleratedFailureCountPath", "a distributed Map's failure tolerance"},
};

/// "field 'X' is not supported by the ASL importer (why)", or "" when `key`
/// is not an ASL field this importer knows it lacks.
std::string unsupportedField(StringRef key) {
  for (auto [field, why] : unsupportedFields)
    if (key == field)
      return "field '" + key.str() +
             "' is not supported by the ASL importer (" + why + ")";
  return "";
}

/// Choice rule comparison operators and the operand each takes.
enum class Operand { String, Number, Bool, Timestamp, Path };
struct Comparison {
  const char *key;
  Operand operand;
};
const Comparison comparisons[] = {
    {"StringEquals", Operand::String},
    {"StringLessThan", Operand::String},
    {"StringGreaterThan", Operand::String},
    {"StringLessThanEquals", Operand::String},
    {"StringGreaterThanEquals", Operand::String},
    {"StringMatches", Operand::String},
    {"NumericEquals", Operand::Number},
    {"NumericLessThan", Operand::Number},
    {"NumericGreaterThan", Operand::Number},
    {"NumericLessThanEquals", Operand::Number},
    {"NumericGreaterThanEquals", Operand::Number},
    {"BooleanEquals", Operand::Bool},
    {"TimestampEquals", Operand::Timestamp},
    {"TimestampLessThan", Operand::Timestamp},
    {"TimestampGreaterThan", Operand::Timestamp},
    {"TimestampLessThanEquals", Operand::Timestamp},
    {"TimestampGreaterThanEquals", Operand::Timestamp},
    {"StringEqualsPath", Operand::Path},
    {"StringLessThanPath", Operand::Path},
    {"StringGreaterThanPath", Operand::Path},
    {"StringLessThanEqualsPath", Operand::Path},
    {"StringGreaterThanEqualsPath", Operand::Path},
    {"NumericEqualsPath", Operand::Path},
    {"NumericLessThanPath", Operand::Path},
    {"NumericGreaterThanPath", Operand::Path},
    {"NumericLessThanEqualsPath", Operand::Path},
    {"NumericGreaterThanEqualsPath", Operand::Path},
    {"BooleanEqualsPath", Operand::Path},
    {"TimestampEqualsPath", Operand::Path},
    {"TimestampLessThanPath", Operand::Path},
    {"TimestampGreaterThanPath", Operand::Path},
    {"TimestampLessThanEqualsPath", Operand::Path},
    {"TimestampGreaterThanEqualsPath", Operand::Path},
    {"IsPresent", Operand::Bool},
    {"IsNull", Operand::Bool},
    {"IsNumeric", Operand::Bool},
    {"IsString", Operand::Bool},
    {"IsBoolean", Operand::Bool},
    {"IsTimestamp", Operand::Bool},
};

const Comparison *findComparison(StringRef key) {
  for (const Comparison &c : comparisons)
    if (key == c.key)
      return &c;
  return nullptr;
}

/// A state as the scope analysis sees it.
struct GraphState {
  std::string name;
  SourceLoc loc;
  StateType type = Task;
  std::vector<std::string> targets; // Next, Choice Next/Default, Catch Next
  bool hasNext = false;
  bool ends = false;   // End: true, Succeed, Fail
  bool broken = false; // a transition field had an error
};
} // namespace

//===----------------------------------------------------------------------===//
// The importer
//===----------------------------------------------------------------------===//

namespace {
class Importer {
public:
  Importer(MLIRContext *context, config::DiagnosticSink &diags, StringRef file,
           const llvm::StringMap<std::string> &functionMap)
      : context(context), builder(context), diags(diags), file(file.str()),
        functionMap(functionMap) {}

  /// Builds the state machine from the top-level value into `module`.
  void buildStateMachine(const Node &root, StringRef name,
                         std::optional<bool> checkpoint,
                         std::optional<bool> debug, ModuleOp module);

private:
  void error(SourceLoc loc, const Twine &message) {
    diags.error(loc, message.str());
  }

  //--- Typed field readers; each reports a located error and returns
  //--- nothing when the value has the wrong type.
  bool expectKind(const Node &value, Kind kind, StringRef key);
  /// "JSONPath" (the default) is accepted, "JSONata" refused.
  void checkQueryLanguage(const Node &value);
  StringAttr readString(const Node &value, StringRef key);
  std::optional<int64_t> readInteger(const Node &value, StringRef key,
                                     int64_t min);
  Attribute
  readPath(const Node &value, StringRef key, PathSyntax syntax, bool allowNull,
           bool allowIntrinsic = false,
           config::ContextScope contextScope = config::ContextScope::State);
  void reportSyntax(const Node &value, StringRef key, StringRef what,
                    const config::ParseError &err);

  /// The JSON image of `value` (see SfnOps.td).
  Attribute image(const Node &value);
  /// A payload template (Parameters, ItemSelector, ResultSelector): any JSON
  /// whose keys ending in ".$" have a path or intrinsic call as value.
  Attribute readTemplate(const Node &value, config::ContextScope scope);
  void checkTemplate(const Node &value, config::ContextScope scope);

  ArrayAttr readRetry(const Node &value);
  ArrayAttr readCatch(const Node &value, GraphState &graph);
  bool checkErrorEquals(const Node *errors, SourceLoc ownerLoc);
  ArrayAttr readChoices(const Node &value, GraphState &graph);
  bool checkRule(const Node &rule, bool top);
  std::string resolveResource(const Node &resource, const Node *parameters,
                              bool &lambdaInvoke);

  /// Reads a scope ({StartAt, States, ...}) into `block`; returns its start
  /// state's name. `extraKeys` are accepted and ignored by this function (the
  /// caller reads them).
  std::string buildScope(const Node &scope, Block *block, StringRef what,
                         ArrayRef<StringRef> extraKeys);
  void buildState(const Node::Member &member, std::vector<GraphState> &graph);
  void analyzeScope(const std::vector<GraphState> &graph, StringRef start,
                    SourceLoc startLoc, StringRef what);

  MLIRContext *context;
  OpBuilder builder;
  config::DiagnosticSink &diags;
  std::string file;
  const llvm::StringMap<std::string> &functionMap;
  /// Every state name of the state machine, for whole-machine uniqueness.
  llvm::StringMap<SourceLoc> allNames;
};
} // namespace

void Importer::checkQueryLanguage(const Node &value) {
  if (!expectKind(value, Kind::String, "QueryLanguage") ||
      value.text == "JSONPath")
    return;
  error(value.loc, "QueryLanguage " + quoted(value.text) +
                       " is not supported: unumc implements the JSONPath "
                       "query language (\"JSONPath\", the default)");
}

bool Importer::expectKind(const Node &value, Kind kind, StringRef key) {
  if (value.kind == kind)
    return true;
  error(value.loc,
        quoted(key) + " must be " + aKind(kind) + ", not " + aKind(value.kind));
  return false;
}

StringAttr Importer::readString(const Node &value, StringRef key) {
  if (!expectKind(value, Kind::String, key))
    return {};
  return builder.getStringAttr(value.text);
}

std::optional<int64_t> Importer::readInteger(const Node &value, StringRef key,
                                             int64_t min) {
  int64_t result = 0;
  if (value.kind != Kind::Number || !value.isInteger() ||
      StringRef(value.text).getAsInteger(10, result) || result < min) {
    error(value.loc,
          quoted(key) + " must be " +
              (min > 0 ? "a positive" : "a non-negative") + " integer" +
              (value.kind == Kind::Number ? "" : ", not " + aKind(value.kind)));
    return std::nullopt;
  }
  return result;
}

void Importer::reportSyntax(const Node &value, StringRef key, StringRef what,
                            const config::ParseError &err) {
  error(value.contentLoc.shifted(static_cast<unsigned>(err.offset)),
        "invalid " + what + " in " + quoted(key) + ": " + err.message);
}

Attribute Importer::readPath(const Node &value, StringRef key,
                             PathSyntax syntax, bool allowNull,
                             bool allowIntrinsic,
                             config::ContextScope contextScope) {
  if (allowNull && value.kind == Kind::Null)
    return builder.getUnitAttr();
  if (value.kind != Kind::String) {
    error(value.loc, quoted(key) + " must be a path string" +
                         (allowNull ? " or null" : "") + ", not " +
                         aKind(value.kind));
    return {};
  }
  StringRef text = value.text;
  std::string_view view(text.data(), text.size());
  config::ParseError err;
  std::optional<config::ParseError> context;
  if (allowIntrinsic && config::isIntrinsicCall(view)) {
    config::CallPtr call = config::parseIntrinsicCall(view, err);
    if (!call) {
      reportSyntax(value, key, "intrinsic function call", err);
      return {};
    }
    context = config::checkContextPaths(*call, contextScope);
  } else {
    auto path = config::parseJsonPath(view, rulesFor(syntax), err);
    if (!path) {
      reportSyntax(value, key,
                   syntax == PathSyntax::Any ? "JSONPath" : "reference path",
                   err);
      return {};
    }
    context = config::checkContextPaths(*path, contextScope);
  }
  if (context) {
    error(value.contentLoc.shifted(context->offset),
          "in " + quoted(key) + ": " + context->message);
    return {};
  }
  return builder.getStringAttr(text);
}

Attribute Importer::image(const Node &value) {
  // jsonToAttr cannot name a dictionary entry by an empty key.
  bool ok = true;
  std::function<void(const Node &)> check = [&](const Node &node) {
    for (const Node &item : node.items)
      check(item);
    for (const Node::Member &member : node.members) {
      if (member.key.empty()) {
        error(member.keyLoc, "an empty object key cannot be represented in "
                             "the sfn dialect");
        ok = false;
      }
      check(member.value);
    }
  };
  check(value);
  return ok ? jsonToAttr(value, context) : Attribute();
}

void Importer::checkTemplate(const Node &value, config::ContextScope scope) {
  if (value.kind == Kind::Array) {
    for (const Node &item : value.items)
      checkTemplate(item, scope);
    return;
  }
  if (value.kind != Kind::Object)
    return;
  for (const Node::Member &member : value.members) {
    if (StringRef(member.key).ends_with(".$"))
      readPath(member.value, member.key, PathSyntax::Any,
               /*allowNull=*/false, /*allowIntrinsic=*/true, scope);
    else
      checkTemplate(member.value, scope);
  }
}

Attribute Importer::readTemplate(const Node &value,
                                 config::ContextScope scope) {
  checkTemplate(value, scope);
  return image(value);
}

bool Importer::checkErrorEquals(const Node *errors, SourceLoc ownerLoc) {
  if (!errors) {
    error(ownerLoc, "'ErrorEquals' is required");
    return false;
  }
  if (!expectKind(*errors, Kind::Array, "ErrorEquals"))
    return false;
  if (errors->items.empty()) {
    error(errors->loc, "'ErrorEquals' must not be empty");
    return false;
  }
  bool ok = true;
  for (const Node &name : errors->items) {
    if (name.kind != Kind::String) {
      error(name.loc, "an 'ErrorEquals' entry must be an error name string, "
                      "not " +
                          aKind(name.kind));
      ok = false;
    }
  }
  return ok;
}

/// A Retry list: checked by the one retrier check that the config decoder
/// also uses (config::decodeRetriers), kept as its JSON image.
ArrayAttr Importer::readRetry(const Node &value) {
  if (!expectKind(value, Kind::Array, "Retry"))
    return {};
  if (!config::decodeRetriers(value, [&](SourceLoc loc, std::string message) {
        error(loc, message);
      }))
    return {};
  return cast_or_null<ArrayAttr>(image(value));
}

ArrayAttr Importer::readCatch(const Node &value, GraphState &graph) {
  if (!expectKind(value, Kind::Array, "Catch")) {
    graph.broken = true;
    return {};
  }
  bool ok = true;
  for (const Node &catcher : value.items) {
    if (catcher.kind != Kind::Object) {
      error(catcher.loc,
            "a catcher must be an object, not " + aKind(catcher.kind));
      ok = false;
      continue;
    }
    ok &= checkErrorEquals(catcher.find("ErrorEquals"), catcher.loc);
    if (!catcher.find("Next")) {
      error(catcher.loc, "a catcher needs 'Next'");
      ok = false;
    }
    for (const Node::Member &m : catcher.members) {
      StringRef key = m.key;
      if (key == "ErrorEquals")
        continue;
      if (key == "Next") {
        if (StringAttr next = readString(m.value, key))
          graph.targets.push_back(next.str());
        else
          ok = false;
      } else if (key == "ResultPath") {
        ok &= static_cast<bool>(readPath(m.value, key, PathSyntax::Reference,
                                         /*allowNull=*/true));
      } else if (key == "Comment") {
        ok &= static_cast<bool>(readString(m.value, key));
      } else {
        error(m.keyLoc, "unknown field " + quoted(key) + " in a catcher");
        ok = false;
      }
    }
  }
  if (!ok) {
    graph.broken = true;
    return {};
  }
  return cast_or_null<ArrayAttr>(image(value));
}

bool Importer::checkRule(const Node &rule, bool top) {
  if (rule.kind != Kind::Object) {
    error(rule.loc, "a choice rule must be an object, not " + aKind(rule.kind));
    return false;
  }
  bool ok = true;
  const Node::Member *variable = nullptr;
  SmallVector<const Node::Member *> operators;
  bool unknown = false; // an unknown field (a misspelt operator?) was reported
  for (const Node::Member &m : rule.members) {
    StringRef key = m.key;
    if (key == "Variable") {
      variable = &m;
    } else if (key == "Next") {
      if (!top) {
        error(m.keyLoc, "'Next' is only allowed on a top-level choice rule, "
                        "not inside 'And', 'Or' or 'Not'");
        ok = false;
      } else {
        ok &= static_cast<bool>(readString(m.value, key));
      }
    } else if (key == "Comment") {
      ok &= static_cast<bool>(readString(m.value, key));
    } else if (key == "And" || key == "Or" || key == "Not" ||
               findComparison(key)) {
      operators.push_back(&m);
    } else {
      error(m.keyLoc, "unknown field " + quoted(key) + " in a choice rule");
      ok = false;
      unknown = true;
    }
  }
  if (top && !rule.find("Next")) {
    error(rule.loc, "a choice rule needs 'Next'");
    ok = false;
  }
  if (operators.empty()) {
    if (unknown)
      return false;
    error(rule.loc, "a choice rule needs a comparison operator or "
                    "'And', 'Or' or 'Not'");
    return false;
  }
  if (operators.size() > 1) {
    error(
        operators[1]->keyLoc,
        "a choice rule has exactly one operator: " + quoted(operators[0]->key) +
            " and " + quoted(operators[1]->key) + " are both given");
    return false;
  }
  const Node::Member &op = *operators.front();
  StringRef key = op.key;
  if (key == "And" || key == "Or" || key == "Not") {
    if (variable) {
      error(variable->keyLoc,
            "'Variable' is not allowed on " + quoted(key) + " rules");
      ok = false;
    }
    if (key == "Not") {
      if (op.value.kind != Kind::Object) {
        error(op.value.loc, "'Not' must be an object (one choice rule), not " +
                                aKind(op.value.kind));
        return false;
      }
      return checkRule(op.value, /*top=*/false) && ok;
    }
    if (op.value.kind != Kind::Array) {
      error(op.value.loc, quoted(key) +
                              " must be an array of choice rules, "
                              "not " +
                              aKind(op.value.kind));
      return false;
    }
    if (op.value.items.empty()) {
      error(op.value.loc, quoted(key) + " must not be empty");
      return false;
    }
    for (const Node &item : op.value.items)
      ok &= checkRule(item, /*top=*/false);
    return ok;
  }

  if (!variable) {
    error(rule.loc, "a choice rule with " + quoted(key) + " needs 'Variable'");
    ok = false;
  } else {
    ok &= static_cast<bool>(
        readPath(variable->value, "Variable", PathSyntax::ReferenceOrContext,
                 /*allowNull=*/false, /*allowIntrinsic=*/false,
                 config::ContextScope::Choice));
  }
  const Comparison *cmp = findComparison(key);
  const Node &operand = op.value;
  switch (cmp->operand) {
  case Operand::String:
    return expectKind(operand, Kind::String, key) && ok;
  case Operand::Number:
    return expectKind(operand, Kind::Number, key) && ok;
  case Operand::Bool:
    return expectKind(operand, Kind::Bool, key) && ok;
  case Operand::Timestamp:
    if (!expectKind(operand, Kind::String, key))
      return false;
    if (!isTimestamp(operand.text)) {
      error(operand.loc, quoted(key) + " must be an RFC 3339 timestamp "
                                       "such as \"2016-03-14T01:59:00Z\"");
      return false;
    }
    return ok;
  case Operand::Path:
    return static_cast<bool>(readPath(
               operand, key, PathSyntax::ReferenceOrContext,
               /*allowNull=*/false,
               /*allowIntrinsic=*/false, config::ContextScope::Choice)) &&
           ok;
  }
  return ok;
}

ArrayAttr Importer::readChoices(const Node &value, GraphState &graph) {
  if (!expectKind(value, Kind::Array, "Choices")) {
    graph.broken = true;
    return {};
  }
  if (value.items.empty()) {
    error(value.loc, "'Choices' must not be empty");
    graph.broken = true;
    return {};
  }
  bool ok = true;
  for (const Node &rule : value.items) {
    ok &= checkRule(rule, /*top=*/true);
    if (rule.kind == Kind::Object)
      if (const Node *next = rule.find("Next"))
        if (next->kind == Kind::String)
          graph.targets.push_back(next->text);
  }
  if (!ok) {
    graph.broken = true;
    return {};
  }
  return cast_or_null<ArrayAttr>(image(value));
}

/// The function a Lambda function name, partial ARN or ARN names, without
/// its version or alias: `F`, `F:$LATEST`, `123456789012:function:F:1`,
/// `arn:aws:lambda:us-east-1:123456789012:function:F:prod`.
static std::string lambdaFunctionName(StringRef name) {
  SmallVector<StringRef> parts;
  name.split(parts, ':');
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    if (parts[i] == "function")
      return parts[i + 1].str();
  return parts.front().str();
}

/// The function named by an ARN: the last ':'-segment, or for a Lambda
/// function ARN (arn:...:lambda:<region>:<account>:function:<name>[:<qual>])
/// the name after "function".
static std::string arnFunctionName(StringRef arn) {
  SmallVector<StringRef> parts;
  arn.split(parts, ':');
  if (parts.size() > 2 && parts[2] == "lambda")
    return lambdaFunctionName(arn);
  return parts.back().str();
}

/// The Parameters fields of a lambda:invoke Task that this runtime honours.
static bool isLambdaInvokeField(StringRef key) {
  return key == "FunctionName" || key == "Payload" || key == "Payload.$" ||
         key == "Qualifier" || key == "InvocationType" || key == "Comment";
}

std::string Importer::resolveResource(const Node &resource,
                                      const Node *parameters,
                                      bool &lambdaInvoke) {
  StringRef arn = resource.text;
  auto mapped = functionMap.find(arn);
  if (mapped != functionMap.end())
    return mapped->second;
  if (!arn.starts_with("arn:"))
    return arn.str();
  const char *fix = "; map the resource to a local function with --functions "
                    "(unumc) or --function-map (unum-translate)";
  if (arn.starts_with("arn:aws:states:") && arn.contains(".waitForTaskToken")) {
    error(resource.loc, quoted(arn) +
                            " waits for a task token "
                            "(.waitForTaskToken), which this "
                            "runtime does not support" +
                            Twine(fix));
    return {};
  }
  if (arn == "arn:aws:states:::lambda:invoke") {
    const Node *name = parameters && parameters->kind == Kind::Object
                           ? parameters->find("FunctionName")
                           : nullptr;
    if (!name || name->kind != Kind::String || name->text.empty()) {
      error(parameters && parameters->find("FunctionName.$")
                ? parameters->find("FunctionName.$")->loc
                : resource.loc,
            "cannot name the function of " + quoted(arn) +
                ": it needs 'Parameters.FunctionName' as a string (a "
                "dynamic 'FunctionName.$' is not supported)" +
                Twine(fix));
      return {};
    }
    bool ok = true;
    for (const Node::Member &m : parameters->members) {
      if (!isLambdaInvokeField(m.key)) {
        error(m.keyLoc, "lambda:invoke parameter " + quoted(m.key) +
                            " is not supported (only FunctionName, Payload "
                            "and Qualifier are)");
        ok = false;
      } else if (m.key == "InvocationType" &&
                 (m.value.kind != Kind::String ||
                  m.value.text != "RequestResponse")) {
        error(m.value.loc, "only the \"RequestResponse\" InvocationType of "
                           "lambda:invoke is supported");
        ok = false;
      }
    }
    if (!ok)
      return {};
    lambdaInvoke = true;
    StringRef fn = name->text;
    auto it = functionMap.find(fn);
    if (it != functionMap.end())
      return it->second;
    return lambdaFunctionName(fn);
  }
  if (arn.starts_with("arn:aws:states:")) {
    error(resource.loc, "service integration " + quoted(arn) +
                            " is not supported: a Task runs a function (a "
                            "name, a Lambda function ARN or "
                            "arn:aws:states:::lambda:invoke)" +
                            Twine(fix));
    return {};
  }
  std::string name = arnFunctionName(arn);
  if (name.empty())
    error(resource.loc, "cannot name the function of " + quoted(arn) +
                            ": its last ':'-segment is empty" + Twine(fix));
  return name;
}

void Importer::buildState(const Node::Member &member,
                          std::vector<GraphState> &graph) {
  StringRef name = member.key;
  GraphState state;
  state.name = name.str();
  state.loc = member.keyLoc;

  if (name.empty())
    error(member.keyLoc, "a state name must not be empty");
  else if (name.size() > 80)
    error(member.keyLoc,
          "state name " + quoted(name) + " is longer than 80 characters");
  auto [first, inserted] = allNames.try_emplace(name, member.keyLoc);
  if (!inserted) {
    error(member.keyLoc,
          "state name " + quoted(name) + " is already used at " +
              std::to_string(first->second.line) + ":" +
              std::to_string(first->second.col) +
              ": state names are unique in the whole state machine");
  }

  const Node &body = member.value;
  if (body.kind != Kind::Object) {
    error(body.loc, "state " + quoted(name) + " must be an object, not " +
                        aKind(body.kind));
    state.broken = true;
    graph.push_back(std::move(state));
    return;
  }
  const Node *typeNode = body.find("Type");
  const char *typeName = nullptr;
  if (!typeNode) {
    error(member.keyLoc, "state " + quoted(name) + " has no 'Type'");
  } else if (typeNode->kind != Kind::String) {
    expectKind(*typeNode, Kind::String, "Type");
  } else {
    for (const TypeName &t : typeNames)
      if (typeNode->text == t.name) {
        typeName = t.name;
        state.type = t.type;
      }
    if (!typeName)
      error(typeNode->loc,
            "unknown state Type " + quoted(typeNode->text) +
                " (expected Task, Pass, Choice, Wait, Succeed, Fail, "
                "Parallel or Map)");
  }
  if (!typeName) {
    state.broken = true;
    graph.push_back(std::move(state));
    return;
  }
  StateType type = state.type;

  NamedAttrList attrs;
  attrs.append("name", builder.getStringAttr(name));
  auto set = [&](StringRef attrName, Attribute value) {
    if (value)
      attrs.set(attrName, value);
  };
  const Node *resource = nullptr, *parameters = nullptr, *branches = nullptr,
             *iterator = nullptr;
  const Node::Member *itemSelector = nullptr, *mapParameters = nullptr;
  std::optional<int64_t> timeout, heartbeat;
  const Node *heartbeatNode = nullptr;
  SmallVector<const Node::Member *> waitFields;
  const Node::Member *error_ = nullptr, *errorPath = nullptr, *cause = nullptr,
                     *causePath = nullptr;

  for (const Node::Member &m : body.members) {
    StringRef key = m.key;
    const Node &value = m.value;
    const FieldSpec *spec = nullptr;
    for (const FieldSpec &f : stateFields)
      if (key == f.key)
        spec = &f;
    if (key == "QueryLanguage") {
      checkQueryLanguage(value);
      continue;
    }
    if (!spec) {
      if (std::string why = unsupportedField(key); !why.empty())
        error(m.keyLoc, why);
      else
        error(m.keyLoc, "unknown field " + quoted(key) + " in " + typeName +
                            " state " + quoted(name));
      continue;
    }
    if (!(spec->types & type)) {
      error(m.keyLoc, "field " + quoted(key) + " is not allowed in a " +
                          typeName + " state");
      continue;
    }
    if (key == "Type")
      continue;
    if (key == "Comment") {
      set("comment", readString(value, key));
    } else if (key == "Next") {
      StringAttr next = readString(value, key);
      set("next", next);
      if (next) {
        state.hasNext = true;
        state.targets.push_back(next.str());
      } else {
        state.broken = true;
      }
    } else if (key == "End") {
      if (expectKind(value, Kind::Bool, key)) {
        if (value.boolValue) {
          attrs.set("end", builder.getUnitAttr());
          state.ends = true;
        }
      } else {
        state.broken = true;
      }
    } else if (key == "InputPath" || key == "OutputPath") {
      set(key == "InputPath" ? "input_path" : "output_path",
          readPath(value, key, PathSyntax::Any,
                   /*allowNull=*/true));
    } else if (key == "ResultPath") {
      set("result_path",
          readPath(value, key, PathSyntax::Reference, /*allowNull=*/true));
    } else if (key == "Resource") {
      if (expectKind(value, Kind::String, key))
        resource = &value;
    } else if (key == "Parameters") {
      parameters = &value;
      if (type == Map)
        mapParameters = &m;
      set(type == Map ? "item_selector" : "parameters",
          readTemplate(value, type == Map ? config::ContextScope::ItemSelector
                                          : config::ContextScope::State));
    } else if (key == "ItemSelector") {
      itemSelector = &m;
      set("item_selector",
          readTemplate(value, config::ContextScope::ItemSelector));
    } else if (key == "ResultSelector") {
      set("result_selector", readTemplate(value, config::ContextScope::State));
    } else if (key == "Result") {
      set("result", image(value));
    } else if (key == "Retry") {
      set("retry", readRetry(value));
    } else if (key == "Catch") {
      set("catchers", readCatch(value, state));
    } else if (key == "TimeoutSeconds") {
      timeout = readInteger(value, key, 1);
      if (timeout)
        set("timeout_seconds", builder.getI64IntegerAttr(*timeout));
    } else if (key == "TimeoutSecondsPath") {
      set("timeout_seconds_path",
          readPath(value, key, PathSyntax::Reference, /*allowNull=*/false));
    } else if (key == "HeartbeatSeconds") {
      heartbeat = readInteger(value, key, 1);
      heartbeatNode = &value;
      if (heartbeat)
        set("heartbeat_seconds", builder.getI64IntegerAttr(*heartbeat));
    } else if (key == "Choices") {
      set("choices", readChoices(value, state));
    } else if (key == "Default") {
      StringAttr def = readString(value, key);
      set("default_state", def);
      if (def)
        state.targets.push_back(def.str());
      else
        state.broken = true;
    } else if (key == "Seconds") {
      waitFields.push_back(&m);
      if (auto seconds = readInteger(value, key, 0)) {
        if (*seconds > unum::limits::kMaxWaitSeconds)
          error(value.loc, "'Seconds' is more than " +
                               std::to_string(unum::limits::kMaxWaitSeconds) +
                               " (a year), the longest wait unum-run does");
        else
          set("seconds", builder.getI64IntegerAttr(*seconds));
      }
    } else if (key == "Timestamp") {
      waitFields.push_back(&m);
      if (StringAttr ts = readString(value, key)) {
        if (isTimestamp(ts.getValue()))
          set("timestamp", ts);
        else
          error(value.loc, "'Timestamp' must be an RFC 3339 timestamp such "
                           "as \"2016-03-14T01:59:00Z\"");
      }
    } else if (key == "SecondsPath" || key == "TimestampPath") {
      waitFields.push_back(&m);
      set(key == "SecondsPath" ? "seconds_path" : "timestamp_path",
          readPath(value, key, PathSyntax::Reference, /*allowNull=*/false));
    } else if (key == "Error" || key == "Cause") {
      (key == "Error" ? error_ : cause) = &m;
      set(key == "Error" ? "error" : "cause", readString(value, key));
    } else if (key == "ErrorPath" || key == "CausePath") {
      (key == "ErrorPath" ? errorPath : causePath) = &m;
      set(key == "ErrorPath" ? "error_path" : "cause_path",
          readPath(value, key, PathSyntax::ReferenceOrContext,
                   /*allowNull=*/false, /*allowIntrinsic=*/true));
    } else if (key == "Branches") {
      if (expectKind(value, Kind::Array, key)) {
        if (value.items.empty())
          error(value.loc, "'Branches' must not be empty");
        else
          branches = &value;
      }
    } else if (key == "Iterator" || key == "ItemProcessor") {
      if (iterator)
        error(m.keyLoc, "a Map state has either 'Iterator' or "
                        "'ItemProcessor', not both");
      else if (expectKind(value, Kind::Object, key))
        iterator = &value;
    } else if (key == "ItemsPath") {
      set("items_path", readPath(value, key, PathSyntax::ReferenceOrContext,
                                 /*allowNull=*/false));
    } else if (key == "MaxConcurrency") {
      if (auto max = readInteger(value, key, 0))
        set("max_concurrency", builder.getI64IntegerAttr(*max));
    }
  }

  // Cross-field rules.
  if (type == Task) {
    if (!body.find("Resource"))
      error(member.keyLoc, "Task state " + quoted(name) + " needs 'Resource'");
    else if (resource) {
      bool lambdaInvoke = false;
      std::string function =
          resolveResource(*resource, parameters, lambdaInvoke);
      if (!function.empty())
        attrs.set("resource", builder.getStringAttr(function));
      if (lambdaInvoke)
        attrs.set("lambda_invoke", builder.getBoolAttr(true));
    }
    if (body.find("TimeoutSeconds") && body.find("TimeoutSecondsPath"))
      error(member.keyLoc, "Task state " + quoted(name) +
                               " has both 'TimeoutSeconds' and "
                               "'TimeoutSecondsPath'");
    if (timeout && heartbeat && *heartbeat >= *timeout)
      error(heartbeatNode->loc, "'HeartbeatSeconds' must be smaller than "
                                "'TimeoutSeconds'");
    if (heartbeat)
      diags.warning(heartbeatNode->loc,
                    "'HeartbeatSeconds' of Task " + quoted(name) +
                        " is ignored: this runtime has no task heartbeats "
                        "(TimeoutSeconds is enforced)");
  }
  if (type == Choice && !body.find("Choices")) {
    error(member.keyLoc, "Choice state " + quoted(name) + " needs 'Choices'");
    state.broken = true;
  }
  if (type == Wait && waitFields.size() != 1) {
    if (waitFields.empty())
      error(member.keyLoc, "Wait state " + quoted(name) +
                               " needs one of 'Seconds', 'Timestamp', "
                               "'SecondsPath' or 'TimestampPath'");
    else
      error(waitFields[1]->keyLoc,
            "a Wait state has exactly one of 'Seconds', 'Timestamp', "
            "'SecondsPath' and 'TimestampPath': " +
                quoted(waitFields[0]->key) + " and " +
                quoted(waitFields[1]->key) + " are both given");
  }
  if (error_ && errorPath)
    error(errorPath->keyLoc, "a Fail state has 'Error' or 'ErrorPath', "
                             "not both");
  if (cause && causePath)
    error(causePath->keyLoc, "a Fail state has 'Cause' or 'CausePath', "
                             "not both");
  if (itemSelector && mapParameters)
    error((itemSelector->keyLoc.line > mapParameters->keyLoc.line
               ? itemSelector
               : mapParameters)
              ->keyLoc,
          "a Map state has 'ItemSelector' or 'Parameters' (its older name), "
          "not both");
  if (type == Parallel && !body.find("Branches"))
    error(member.keyLoc,
          "Parallel state " + quoted(name) + " needs 'Branches'");
  if (type == Map && !body.find("Iterator") && !body.find("ItemProcessor"))
    error(member.keyLoc, "Map state " + quoted(name) +
                             " needs 'ItemProcessor' (or 'Iterator')");
  if (type == Succeed || type == Fail)
    state.ends = true;

  // The op, then its regions.
  static const char *const opNames[] = {"task",    "pass", "choice",   "wait",
                                        "succeed", "fail", "parallel", "map"};
  unsigned index = llvm::countr_zero(static_cast<unsigned>(type));
  OperationState opState(toLoc(context, file, member.keyLoc),
                         ("sfn." + Twine(opNames[index])).str());
  opState.addAttributes(attrs);
  unsigned numRegions = type == Parallel
                            ? (branches ? branches->items.size() : 0)
                            : (type == Map ? 1 : 0);
  for (unsigned i = 0; i < numRegions; ++i)
    opState.addRegion();
  Operation *op = builder.create(opState);
  graph.push_back(std::move(state));

  OpBuilder::InsertionGuard guard(builder);
  if (type == Parallel) {
    SmallVector<Attribute> starts;
    for (unsigned i = 0; i < numRegions; ++i) {
      const Node &branch = branches->items[i];
      Block *block = new Block;
      op->getRegion(i).push_back(block);
      std::string start;
      if (branch.kind != Kind::Object) {
        error(branch.loc, "a branch must be an object with 'StartAt' and "
                          "'States', not " +
                              aKind(branch.kind));
      } else {
        if (const Node *comment = branch.find("Comment"))
          expectKind(*comment, Kind::String, "Comment");
        start = buildScope(branch, block, "branch", {"Comment"});
      }
      starts.push_back(builder.getStringAttr(start));
    }
    op->setAttr("starts", builder.getArrayAttr(starts));
  } else if (type == Map) {
    Block *block = new Block;
    op->getRegion(0).push_back(block);
    std::string start;
    if (iterator) {
      if (const Node *comment = iterator->find("Comment"))
        expectKind(*comment, Kind::String, "Comment");
      start = buildScope(*iterator, block, "iterator",
                         {"Comment", "ProcessorConfig"});
      if (const Node *config = iterator->find("ProcessorConfig")) {
        // Only the inline mode has a meaning here.
        if (expectKind(*config, Kind::Object, "ProcessorConfig"))
          for (const Node::Member &m : config->members) {
            if (m.key == "Mode" && m.value.kind == Kind::String &&
                m.value.text == "INLINE")
              continue;
            error(m.keyLoc, "'ProcessorConfig' supports only "
                            "\"Mode\": \"INLINE\"");
          }
      }
    }
    op->setAttr("start", builder.getStringAttr(start));
  }
}

std::string Importer::buildScope(const Node &scope, Block *block,
                                 StringRef what,
                                 ArrayRef<StringRef> extraKeys) {
  const Node *startAt = scope.find("StartAt");
  const Node *states = scope.find("States");
  for (const Node::Member &m : scope.members) {
    StringRef key = m.key;
    if (key == "StartAt" || key == "States" ||
        llvm::is_contained(extraKeys, key))
      continue;
    if (key == "QueryLanguage") {
      checkQueryLanguage(m.value);
      continue;
    }
    if (std::string why = unsupportedField(key); !why.empty())
      error(m.keyLoc, why);
    else
      error(m.keyLoc, "unknown field " + quoted(key) + " in a " + what);
  }

  std::string start;
  bool startOk = false;
  if (!startAt)
    error(scope.loc, "a " + what.str() + " needs 'StartAt'");
  else if (expectKind(*startAt, Kind::String, "StartAt")) {
    start = startAt->text;
    startOk = true;
  }
  if (!states) {
    error(scope.loc, "a " + what.str() + " needs 'States'");
    return start;
  }
  if (!expectKind(*states, Kind::Object, "States"))
    return start;
  if (states->members.empty()) {
    error(states->loc, "'States' must not be empty");
    return start;
  }

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  std::vector<GraphState> graph;
  for (const Node::Member &member : states->members)
    buildState(member, graph);
  if (startOk)
    analyzeScope(graph, start, startAt->loc, what);
  return start;
}

/// Reachability within one scope: warnings for states no path from the start
/// reaches, an error when no reachable state ends. Runs only on scopes whose
/// transitions are well formed; otherwise the located errors or the sfn
/// verifier report the cause.
void Importer::analyzeScope(const std::vector<GraphState> &graph,
                            StringRef start, SourceLoc startLoc,
                            StringRef what) {
  llvm::StringMap<size_t> index;
  for (size_t i = 0; i < graph.size(); ++i)
    index.try_emplace(graph[i].name, i);
  if (!index.count(start))
    return;
  for (const GraphState &state : graph) {
    if (state.broken)
      return;
    bool noFlow =
        state.type == Choice || state.type == Succeed || state.type == Fail;
    if (noFlow ? (state.hasNext || (state.ends && state.type == Choice))
               : state.hasNext == state.ends)
      return;
    for (const std::string &target : state.targets)
      if (!index.count(target))
        return;
  }

  std::vector<bool> reached(graph.size(), false);
  std::vector<size_t> work{index[start]};
  reached[work.back()] = true;
  while (!work.empty()) {
    const GraphState &state = graph[work.back()];
    work.pop_back();
    for (const std::string &target : state.targets) {
      size_t t = index[target];
      if (!reached[t]) {
        reached[t] = true;
        work.push_back(t);
      }
    }
  }

  // Which states can reach an end (reverse reachability from ending states).
  std::vector<std::vector<size_t>> preds(graph.size());
  for (size_t i = 0; i < graph.size(); ++i)
    for (const std::string &target : graph[i].targets)
      preds[index[target]].push_back(i);
  std::vector<bool> canEnd(graph.size(), false);
  for (size_t i = 0; i < graph.size(); ++i)
    if (graph[i].ends) {
      canEnd[i] = true;
      work.push_back(i);
    }
  while (!work.empty()) {
    size_t s = work.back();
    work.pop_back();
    for (size_t p : preds[s])
      if (!canEnd[p]) {
        canEnd[p] = true;
        work.push_back(p);
      }
  }

  if (!canEnd[index[start]]) {
    error(startLoc, "no state reachable from " + quoted(start) + " ends the " +
                        what + ": every path loops (" +
                        (what.front() == 'i' ? "an " : "a ") + what +
                        " needs a reachable \"End\": true, Succeed or Fail "
                        "state)");
    return;
  }
  for (size_t i = 0; i < graph.size(); ++i) {
    if (!reached[i])
      diags.warning(graph[i].loc, "state " + quoted(graph[i].name) +
                                      " is not reachable from " +
                                      quoted(start));
    else if (!canEnd[i])
      diags.warning(graph[i].loc, "no path from state " +
                                      quoted(graph[i].name) +
                                      " reaches an end: it loops forever");
  }
}

void Importer::buildStateMachine(const Node &root, StringRef name,
                                 std::optional<bool> checkpoint,
                                 std::optional<bool> debug, ModuleOp module) {
  if (root.kind != Kind::Object) {
    error(root.loc,
          "a state machine must be a JSON object, not " + aKind(root.kind));
    return;
  }
  NamedAttrList attrs;
  attrs.append("sym_name", builder.getStringAttr(name));
  for (const Node::Member &m : root.members) {
    StringRef key = m.key;
    if (key == "Comment") {
      if (StringAttr comment = readString(m.value, key))
        attrs.set("comment", comment);
    } else if (key == "TimeoutSeconds") {
      if (auto timeout = readInteger(m.value, key, 1)) {
        attrs.set("timeout_seconds", builder.getI64IntegerAttr(*timeout));
        diags.warning(m.value.loc, "the state machine's 'TimeoutSeconds' is "
                                   "not enforced by this runtime yet");
      }
    } else if (key == "Version") {
      // The only version there is; nothing to keep.
      if (expectKind(m.value, Kind::String, key) && m.value.text != "1.0")
        error(m.value.loc, "unsupported ASL 'Version' " + quoted(m.value.text) +
                               " (expected \"1.0\")");
    }
  }
  if (checkpoint)
    attrs.set("checkpoint", builder.getBoolAttr(*checkpoint));
  if (debug)
    attrs.set("debug", builder.getBoolAttr(*debug));

  builder.setInsertionPointToEnd(module.getBody());
  // Located at StartAt, where the verifier's "start state" error belongs.
  const Node *startAt = root.find("StartAt");
  OperationState state(toLoc(context, file, startAt ? startAt->loc : root.loc),
                       sfn::StateMachineOp::getOperationName());
  state.addAttributes(attrs);
  Region *body = state.addRegion();
  Block *block = new Block;
  body->push_back(block);
  Operation *op = builder.create(state);
  std::string start = buildScope(root, block, "state machine",
                                 {"Comment", "TimeoutSeconds", "Version"});
  op->setAttr("start", builder.getStringAttr(start));
}

//===----------------------------------------------------------------------===//
// Options files
//===----------------------------------------------------------------------===//

/// The JSON object in the options file `path`; `what` names the file in
/// errors ("a function map"), `mapping` what it maps.
static const Node *readObjectFile(StringRef path, StringRef what,
                                  StringRef mapping,
                                  std::vector<Node> &documents,
                                  config::DiagnosticSink &sink) {
  std::string text;
  if (!readFile(path, text, sink, what.drop_front(what.find(' ') + 1)))
    return nullptr;
  const Node *root = parseOne(text, documents, sink);
  if (!root)
    return nullptr;
  if (root->kind != Kind::Object) {
    sink.error(root->loc, what.str() + " must be a JSON object mapping " +
                              mapping.str() + ", not " + aKind(root->kind));
    return nullptr;
  }
  return root;
}

static bool loadFunctionMap(StringRef path, llvm::StringMap<std::string> &map,
                            config::DiagnosticSink &sink) {
  std::vector<Node> documents;
  const Node *root =
      readObjectFile(path, "a function map",
                     "resources (ARNs) to function names", documents, sink);
  if (!root)
    return false;
  bool ok = true;
  for (const Node::Member &m : root->members) {
    if (m.value.kind != Kind::String || m.value.text.empty()) {
      sink.error(m.value.loc, "the function name of " + quoted(m.key) +
                                  " must be a non-empty string");
      ok = false;
      continue;
    }
    map[m.key] = m.value.text;
  }
  return ok;
}

static bool loadGlobals(StringRef path, std::optional<bool> &checkpoint,
                        std::optional<bool> &debug,
                        config::DiagnosticSink &sink) {
  std::string text;
  if (!readFile(path, text, sink, "globals file"))
    return false;
  std::vector<Node> documents;
  const Node *root = parseOne(text, documents, sink);
  if (!root)
    return false;
  if (root->kind != Kind::Object) {
    sink.error(root->loc, "ASL globals must be a JSON object "
                          "{\"Checkpoint\": bool, \"Debug\": bool}, not " +
                              aKind(root->kind));
    return false;
  }
  bool ok = true;
  for (const Node::Member &m : root->members) {
    std::optional<bool> *slot = m.key == "Checkpoint" ? &checkpoint
                                : m.key == "Debug"    ? &debug
                                                      : nullptr;
    if (!slot) {
      sink.error(m.keyLoc, "unknown global " + quoted(m.key) +
                               " (expected 'Checkpoint' and 'Debug')");
      ok = false;
    } else if (m.value.kind != Kind::Bool) {
      sink.error(m.value.loc, quoted(m.key) + " must be a boolean, not " +
                                  aKind(m.value.kind));
      ok = false;
    } else {
      *slot = m.value.boolValue;
    }
  }
  if (!root->find("Checkpoint")) {
    sink.error(root->loc, "ASL globals need 'Checkpoint'");
    ok = false;
  }
  return ok;
}

static bool loadSubstitutions(StringRef path,
                              llvm::StringMap<std::string> &values,
                              config::DiagnosticSink &sink) {
  std::vector<Node> documents;
  const Node *root =
      readObjectFile(path, "a substitutions file",
                     "placeholder names to values", documents, sink);
  if (!root)
    return false;
  bool ok = true;
  for (const Node::Member &m : root->members) {
    if (m.value.kind == Kind::String || m.value.kind == Kind::Number) {
      values[m.key] = m.value.text;
    } else if (m.value.kind == Kind::Bool) {
      values[m.key] = m.value.boolValue ? "true" : "false";
    } else {
      sink.error(m.value.loc, "the value of " + quoted(m.key) +
                                  " must be a string, a number or a boolean, "
                                  "not " +
                                  aKind(m.value.kind));
      ok = false;
    }
  }
  return ok;
}

/// Replaces the `${Name}` placeholders in every string value of `root`
/// (walked with a stack: no recursion on the document's depth).
static void substitute(Node &root, const llvm::StringMap<std::string> &values,
                       bool haveFile, config::DiagnosticSink &sink) {
  std::vector<Node *> stack{&root};
  while (!stack.empty()) {
    Node *node = stack.back();
    stack.pop_back();
    // Reversed, so that errors come in document order.
    for (Node &item : llvm::reverse(node->items))
      stack.push_back(&item);
    for (Node::Member &m : llvm::reverse(node->members))
      stack.push_back(&m.value);
    if (node->kind != Kind::String)
      continue;
    std::string &text = node->text;
    if (text.find("${") == std::string::npos)
      continue;
    std::string out;
    for (size_t i = 0; i < text.size();) {
      size_t end = i + 2;
      while (end < text.size() &&
             (llvm::isAlnum(text[end]) || text[end] == '_'))
        ++end;
      if (text.compare(i, 2, "${") != 0 || end == i + 2 || end >= text.size() ||
          text[end] != '}') {
        out += text[i++];
        continue;
      }
      StringRef name = StringRef(text).slice(i + 2, end);
      auto it = values.find(name);
      if (it == values.end()) {
        sink.error(node->contentLoc.shifted(static_cast<unsigned>(i)),
                   "unknown placeholder '${" + name.str() + "}'" +
                       (haveFile ? ": the substitutions file has no value "
                                   "for it"
                                 : ": give its value in a substitutions "
                                   "file (--substitutions FILE), as SAM's "
                                   "DefinitionSubstitutions"));
        out += text.substr(i, end + 1 - i);
      } else {
        out += it->second;
      }
      i = end + 1;
    }
    text = std::move(out);
  }
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static std::string defaultName(StringRef path) {
  StringRef base = llvm::sys::path::filename(inputFileOf(path));
  if (base.empty() || base == "-" || base == "<stdin>")
    return "state_machine";
  base.consume_back(".json");
  base.consume_back(".asl");
  return base.empty() ? "state_machine" : base.str();
}

OwningOpRef<ModuleOp> unum::importASL(StringRef text, StringRef bufferName,
                                      const ASLImportOptions &options,
                                      MLIRContext *context) {
  context->getOrLoadDialect<sfn::SfnDialect>();
  bool ok = true;

  llvm::StringMap<std::string> functionMap;
  if (!options.functionMapFile.empty()) {
    config::DiagnosticSink sink(options.functionMapFile);
    ok &= loadFunctionMap(options.functionMapFile, functionMap, sink);
    reportConfigDiagnostics(context, sink.diagnostics());
  }
  std::optional<bool> checkpoint, debug;
  if (!options.globalsFile.empty()) {
    config::DiagnosticSink sink(options.globalsFile);
    ok &= loadGlobals(options.globalsFile, checkpoint, debug, sink);
    reportConfigDiagnostics(context, sink.diagnostics());
  }

  llvm::StringMap<std::string> substitutions;
  if (!options.substitutionsFile.empty()) {
    config::DiagnosticSink sink(options.substitutionsFile);
    ok &= loadSubstitutions(options.substitutionsFile, substitutions, sink);
    reportConfigDiagnostics(context, sink.diagnostics());
  }

  config::DiagnosticSink sink(bufferName.str());
  std::vector<Node> documents;
  Node *root = parseOne(text, documents, sink);
  if (root && ok)
    substitute(*root, substitutions, !options.substitutionsFile.empty(), sink);
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(context, bufferName, 1, 1));
  if (root) {
    std::string name =
        options.name.empty() ? defaultName(bufferName) : options.name;
    Importer(context, sink, bufferName, functionMap)
        .buildStateMachine(*root, name, checkpoint, debug, *module);
  }
  reportConfigDiagnostics(context, sink.diagnostics());
  if (!ok || sink.hasErrors())
    return {};
  // The verifier's errors are located in the JSON; the generic form of the
  // op that MLIR would attach as a note means nothing to the author.
  bool printOp = context->shouldPrintOpOnDiagnostic();
  context->printOpOnDiagnostic(false);
  LogicalResult verified = verify(*module);
  context->printOpOnDiagnostic(printOp);
  if (failed(verified))
    return {};
  return module;
}

OwningOpRef<ModuleOp> unum::importASLFile(StringRef path,
                                          const ASLImportOptions &options,
                                          MLIRContext *context) {
  config::DiagnosticSink sink(path.str());
  std::string text;
  if (!readFile(path, text, sink, "state machine")) {
    reportConfigDiagnostics(context, sink.diagnostics());
    return {};
  }
  return importASL(text, path, options, context);
}
