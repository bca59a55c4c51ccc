//===- UnumOps.cpp - unum dialect operations ------------------------------===//
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Config/FunctionConfig.h"
#include "unum/Support/Spelling.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>

using namespace mlir;
using namespace unum;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// edge-tail ::= (`if` string)? (`modifiers` `[` string (`,` string)* `]`)?
static ParseResult parseEdgeTail(OpAsmParser &parser, ConditionAttr &condition,
                                 ArrayAttr &modifiers) {
  if (succeeded(parser.parseOptionalKeyword("if"))) {
    condition = ConditionAttr::parseString(parser);
    if (!condition)
      return failure();
  }
  if (succeeded(parser.parseOptionalKeyword("modifiers"))) {
    SmallVector<Attribute> list;
    if (parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
              ModifierAttr modifier = ModifierAttr::parseString(parser);
              if (!modifier)
                return failure();
              list.push_back(modifier);
              return success();
            }))
      return failure();
    modifiers = parser.getBuilder().getArrayAttr(list);
  }
  return success();
}

template <typename AttrT>
static void printTextList(OpAsmPrinter &printer, ArrayAttr list) {
  printer << '[';
  llvm::interleaveComma(list.getAsRange<AttrT>(), printer, [&](AttrT attr) {
    printQuotedText(printer, attr.getText());
  });
  printer << ']';
}

static void printEdgeTail(OpAsmPrinter &printer, Operation *,
                          ConditionAttr condition, ArrayAttr modifiers) {
  // The format puts no space before this directive, so that an edge without
  // either part ends without trailing whitespace.
  if (condition) {
    printer << " if ";
    printQuotedText(printer, condition.getText());
  }
  if (modifiers) {
    printer << " modifiers ";
    printTextList<ModifierAttr>(printer, modifiers);
  }
}

/// name-patterns ::= `[` string (`,` string)* `]`
static ParseResult parseNamePatterns(OpAsmParser &parser, ArrayAttr &values) {
  SmallVector<Attribute> list;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            NamePatternAttr pattern = NamePatternAttr::parseString(parser);
            if (!pattern)
              return failure();
            list.push_back(pattern);
            return success();
          }))
    return failure();
  values = parser.getBuilder().getArrayAttr(list);
  return success();
}

static void printNamePatterns(OpAsmPrinter &printer, Operation *,
                              ArrayAttr values) {
  printTextList<NamePatternAttr>(printer, values);
}

//===----------------------------------------------------------------------===//
// AppOp
//===----------------------------------------------------------------------===//

void AppOp::build(OpBuilder &builder, OperationState &state, StringRef name) {
  state.getOrAddProperties<Properties>().sym_name = builder.getStringAttr(name);
  state.addRegion()->emplaceBlock();
}

static std::string describeValues(FanInOp edge) {
  std::string text = "[";
  llvm::interleave(
      edge.getValues().getAsRange<NamePatternAttr>(),
      [&](NamePatternAttr p) { text += "\"" + p.getText().str() + "\""; },
      [&] { text += ", "; });
  return text + "]";
}

namespace {
/// What the fan-in checks need of one `values` list, computed once per
/// distinct list (a Parallel of N branches gives its N tails the same list
/// of N values: the IR holds it once, and so does this).
struct ValuesInfo {
  std::vector<config::NamePattern> patterns;
  /// The functions named, in order, without repeats, and as a set.
  SmallVector<StringRef> named;
  llvm::DenseSet<StringRef> namedSet;
  /// A pattern takes every index of the innermost level (`F-unumIndex-*`).
  bool innermostWildcard = false;
};

/// The fan-ins into one target that name the same instances (up to a shift
/// of the index variables, config::sameInstancesUpToShift: an equivalence,
/// whose classes are keyed by the lists' canonical form and checked against
/// a representative), and the functions with such an edge.
struct FanInClass {
  StringRef target;
  const ValuesInfo *representative;
  llvm::DenseSet<StringRef> reporters;
  /// The first named function without such an edge (computed once).
  std::optional<StringRef> missing;
};
} // namespace

/// A fan-in whose values take every index of the innermost level
/// (`F-unumIndex-*`) gathers that level's instances into one target, which
/// lives a level up: the edge must `Pop`, or each tail would name its own
/// target instance and none would ever see all the values.
static LogicalResult verifyGlobPop(FanInOp edge, const ValuesInfo &info) {
  if (!info.innermostWildcard)
    return success();
  if (ArrayAttr modifiers = edge.getModifiersAttr())
    for (auto m : modifiers.getAsRange<ModifierAttr>())
      if (m.getValue().kind == config::Modifier::Kind::Pop)
        return success();
  for (const config::NamePattern &p : info.patterns)
    if (!p.parts.empty() &&
        p.parts.front().kind == config::IndexPart::Kind::Wildcard)
      return edge.emitOpError()
             << "collects every instance of '@" << p.function
             << "' at its innermost fan-out level (\"" << p.text
             << "\") but does not leave that level: add the modifier \"Pop\" "
                "(modifiers [\"Pop\"]), or the fan-in target would run once "
                "per index and never complete";
  return success();
}

/// A fan-in completes when every instance in `values` has reported to the
/// target's completion set, so each instance must report (have a fan-in edge to
/// the same target) and all of them must agree on the set. Near-linear in the
/// size of the app: each distinct values list is read once, each edge is
/// checked against its class in constant time, each class once.
static LogicalResult
verifyFanIns(AppOp app, const llvm::StringMap<FunctionOp> &functions) {
  // Distinct values lists (attributes are uniqued), then the classes.
  llvm::DenseMap<Attribute, std::unique_ptr<ValuesInfo>> infos;
  std::map<std::pair<StringRef, std::string>, SmallVector<unsigned, 1>> keyed;
  std::vector<FanInClass> classes;
  llvm::DenseMap<std::pair<Attribute, Attribute>, unsigned> classOf;
  SmallVector<std::pair<FunctionOp, FanInOp>> edges;
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>()) {
    for (FanInOp edge : function.getBodyBlock().getOps<FanInOp>()) {
      edges.push_back({function, edge});
      std::unique_ptr<ValuesInfo> &info = infos[edge.getValues()];
      if (!info) {
        info = std::make_unique<ValuesInfo>();
        for (auto p : edge.getValues().getAsRange<NamePatternAttr>()) {
          const config::NamePattern &pattern = p.getValue();
          info->patterns.push_back(pattern);
          if (info->namedSet.insert(pattern.function).second)
            info->named.push_back(pattern.function);
          info->innermostWildcard |=
              !pattern.parts.empty() &&
              pattern.parts.front().kind == config::IndexPart::Kind::Wildcard;
        }
      }
      auto [it, inserted] = classOf.try_emplace(
          {edge.getTargetAttr().getAttr(), edge.getValues()}, 0);
      if (inserted) {
        SmallVector<unsigned, 1> &candidates =
            keyed[{edge.getTarget(), config::instancesKey(info->patterns)}];
        auto same = llvm::find_if(candidates, [&](unsigned c) {
          return config::sameInstancesUpToShift(
              classes[c].representative->patterns, info->patterns);
        });
        if (same != candidates.end()) {
          it->second = *same;
        } else {
          it->second = classes.size();
          candidates.push_back(classes.size());
          classes.push_back({edge.getTarget(), info.get(), {}, std::nullopt});
        }
      }
      classes[it->second].reporters.insert(function.getSymName());
    }
  }

  for (auto [function, edge] : edges) {
    StringRef target = edge.getTarget();
    if (!function.getCheckpoint())
      return edge.emitOpError()
             << "needs its function '@" << function.getSymName()
             << "' to checkpoint: the fan-in target reads its tails' "
                "outputs from the checkpoint store";
    const ValuesInfo &info = *infos.find(edge.getValues())->second;
    if (!info.namedSet.contains(function.getSymName()))
      return edge.emitOpError()
             << "values " << describeValues(edge)
             << " do not include an instance of its own function '@"
             << function.getSymName() << "'";
    if (failed(verifyGlobPop(edge, info)))
      return failure();
    FanInClass &cls = classes[classOf.lookup(
        {edge.getTargetAttr().getAttr(), edge.getValues()})];
    if (!cls.missing) {
      cls.missing = StringRef();
      for (StringRef other : info.named)
        // An unknown function is reported by the symbol-use verifier.
        if (!cls.reporters.contains(other) && functions.count(other)) {
          cls.missing = other;
          break;
        }
    }
    if (cls.missing->empty())
      continue;
    StringRef other = *cls.missing;
    FanInOp mismatch;
    for (FanInOp otherEdge :
         functions.lookup(other).getBodyBlock().getOps<FanInOp>())
      if (otherEdge.getTarget() == target)
        mismatch = otherEdge;
    if (!mismatch)
      return edge.emitOpError()
             << "waits for '@" << other << "', which has no fan-in edge to '@"
             << target << "': the fan-in would never complete";
    InFlightDiagnostic diag =
        edge.emitOpError() << "inconsistent fan-in into '@" << target << "': '@"
                           << function.getSymName() << "' waits for "
                           << describeValues(edge) << " but '@" << other
                           << "' waits for " << describeValues(mismatch);
    diag.attachNote(mismatch.getLoc()) << "the other tail's edge is here";
    return diag;
  }
  return success();
}

/// " (did you mean '@X'?)" when a function of `app` is a few edits away
/// from `name`, else "".
static std::string suggestFunction(AppOp app, StringRef name) {
  if (!app)
    return "";
  SmallVector<StringRef> functions;
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>())
    functions.push_back(function.getSymName());
  return unum::didYouMean(name, functions, "'@", "'");
}

/// The saved input of a Map or Parallel state is read, and then retired, by
/// one sink: each `state_input` names a `save_input` function, and each
/// `save_input` function is named by exactly one (otherwise its record would
/// never be garbage-collected, or a second reader would find it retired).
/// The sink reads it when its fan-in completes, so it is a fan-in target.
static LogicalResult
verifyStateInputs(AppOp app, const llvm::StringMap<FunctionOp> &functions) {
  llvm::DenseMap<Operation *, FunctionOp> reader;
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>()) {
    FlatSymbolRefAttr from = function.getStateInputAttr();
    if (!from)
      continue;
    auto it = functions.find(from.getValue());
    if (it == functions.end())
      return function.emitOpError()
             << "state_input " << from << " is not a function of this app"
             << suggestFunction(app, from.getValue());
    FunctionOp saver = it->second;
    if (!saver.getSaveInput())
      return function.emitOpError()
             << "reads the saved input of " << from
             << ", which does not save its input (mark it 'save_input')";
    auto [entry, inserted] = reader.try_emplace(saver, function);
    if (!inserted)
      return function.emitOpError()
             << "reads the saved input of " << from << " that '@"
             << entry->second.getSymName()
             << "' reads too: the first reader garbage-collects it";
  }
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>())
    if (function.getSaveInput() && !reader.count(function))
      return function.emitOpError()
             << "saves its input but no function reads it as its "
                "state_input: it would never be garbage-collected";
  llvm::DenseSet<StringRef> fanInTargets;
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>())
    for (FanInOp edge : function.getBodyBlock().getOps<FanInOp>())
      fanInTargets.insert(edge.getTarget());
  for (FunctionOp sink : app.getBodyBlock().getOps<FunctionOp>())
    if (sink.getStateInputAttr() && !fanInTargets.contains(sink.getSymName()))
      return sink.emitOpError()
             << "has a state_input but no fan-in edge leads to it: a sink "
                "reads its state's input when its fan-in completes";
  return success();
}

LogicalResult AppOp::verifyRegions() {
  llvm::StringMap<FunctionOp> functions;
  SmallVector<FunctionOp> starts;
  for (Operation &op : getBodyBlock()) {
    auto function = dyn_cast<FunctionOp>(op);
    if (!function)
      return op.emitOpError() << "is not allowed in 'unum.app': an app holds "
                                 "only 'unum.function' ops";
    functions[function.getSymName()] = function;
    if (function.getStart())
      starts.push_back(function);
  }
  if (starts.empty())
    return emitOpError() << "has no start function: mark the entry function "
                            "'start'";
  if (failed(verifyFanIns(*this, functions)) ||
      failed(verifyStateInputs(*this, functions)))
    return failure();

  // Reachability is a lint (unum-lint), not an invariant.
  return success();
}

//===----------------------------------------------------------------------===//
// FunctionOp
//===----------------------------------------------------------------------===//

void FunctionOp::build(OpBuilder &builder, OperationState &state,
                       StringRef name) {
  state.getOrAddProperties<Properties>().sym_name = builder.getStringAttr(name);
  state.addRegion()->emplaceBlock();
}

LogicalResult FunctionOp::verify() {
  // The name becomes part of instance names (`<Name>-unumIndex-0`) and a
  // directory name, so it must parse back as the function of a pattern.
  StringRef name = getSymName();
  config::ParseError error;
  std::optional<config::NamePattern> pattern =
      config::parseNamePattern(name, error);
  if (!pattern || pattern->function != name || !pattern->parts.empty())
    return emitOpError() << "name '" << name
                         << "' is not a valid function name: use letters, "
                            "digits, '_' and '-', without '-unumIndex-'";
  for (Operation &op : getBodyBlock())
    if (!isa<EdgeOpInterface>(op))
      return op.emitOpError()
             << "is not an edge: the body of 'unum.function' holds only "
                "'unum.chain', 'unum.map', 'unum.fanin' and 'unum.error'";
  if (getFanout() && getBodyBlock().empty())
    return emitOpError() << "is marked 'fanout' but has no edges";
  if (auto builtin = getBuiltin())
    if (!llvm::is_contained(config::kBuiltins, *builtin))
      return emitOpError() << "unknown builtin '" << *builtin
                           << "'; expected Pass, Wait, Succeed or Fail";
  if (auto dataflow = getDataflow())
    for (NamedAttribute field : *dataflow)
      if (!llvm::is_contained(config::kDataFlowFields,
                              field.getName().getValue()))
        return emitOpError() << "unknown dataflow field '"
                             << field.getName().getValue() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Edges
//===----------------------------------------------------------------------===//

static FunctionOp lookupFunction(Operation *user, StringAttr name,
                                 SymbolTableCollection &symbolTable) {
  auto app = user->getParentOfType<AppOp>();
  if (!app)
    return {};
  return dyn_cast_or_null<FunctionOp>(symbolTable.lookupSymbolIn(app, name));
}

static LogicalResult verifyTarget(Operation *edge, FlatSymbolRefAttr target,
                                  SymbolTableCollection &symbolTable) {
  if (!lookupFunction(edge, target.getAttr(), symbolTable))
    return edge->emitOpError()
           << "target '" << target << "' is not a function of this app"
           << suggestFunction(edge->getParentOfType<AppOp>(),
                              target.getValue());
  return success();
}

LogicalResult ChainOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyTarget(*this, getTargetAttr(), symbolTable);
}
LogicalResult MapOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyTarget(*this, getTargetAttr(), symbolTable);
}
LogicalResult ErrorOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyTarget(*this, getTargetAttr(), symbolTable);
}
LogicalResult FanInOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (failed(verifyTarget(*this, getTargetAttr(), symbolTable)))
    return failure();
  if (getValues().empty())
    return emitOpError() << "has no values: a fan-in waits for at least one "
                            "instance";
  for (auto pattern : getValues().getAsRange<NamePatternAttr>()) {
    StringRef function = pattern.getValue().function;
    if (!lookupFunction(*this, StringAttr::get(getContext(), function),
                        symbolTable))
      return emitOpError() << "value \"" << pattern.getText() << "\" names '"
                           << function
                           << "', which is not a function of this app"
                           << suggestFunction((*this)->getParentOfType<AppOp>(),
                                              function);
  }
  return success();
}

#define GET_OP_CLASSES
#include "unum/Dialect/Unum/IR/UnumOps.cpp.inc"

#include "unum/Dialect/Unum/IR/UnumInterfaces.cpp.inc"
