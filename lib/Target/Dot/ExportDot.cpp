//===- ExportDot.cpp - unum.app or sfn.state_machine -> Graphviz ----------===//
#include "unum/Dialect/Sfn/IR/SfnDialect.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Target/Dot/Dot.h"
#include "unum/Target/TranslateDiagnostics.h"

#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace unum;

/// Quotes `text` as a dot string.
static std::string quote(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

static void printEdge(FunctionOp from, EdgeOpInterface edge,
                      llvm::raw_ostream &os) {
  Operation *op = edge.getOperation();
  std::string label;
  StringRef style;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](ChainOp) { style = "solid"; })
      .Case([&](MapOp) {
        label = "map";
        style = "bold";
      })
      .Case([&](ErrorOp) {
        label = "error";
        style = "dashed\", color=\"red";
      })
      .Case([&](FanInOp fanin) {
        label = "fan-in [";
        llvm::raw_string_ostream s(label);
        llvm::interleaveComma(fanin.getValues().getAsRange<NamePatternAttr>(),
                              s, [&](NamePatternAttr p) { s << p.getText(); });
        s << "]";
        style = "dotted";
      });
  if (ConditionAttr condition = edge.getConditionAttr())
    label += (label.empty() ? "if " : "\nif ") + condition.getText().str();
  if (ArrayAttr modifiers = edge.getModifiersAttr()) {
    label += label.empty() ? "" : "\n";
    label += "modifiers [";
    llvm::raw_string_ostream s(label);
    llvm::interleaveComma(modifiers.getAsRange<ModifierAttr>(), s,
                          [&](ModifierAttr m) { s << m.getText(); });
    s << "]";
  }
  os << "  " << quote(from.getSymName()) << " -> "
     << quote(edge.getTargetAttr().getValue()) << " [style=\"" << style
     << "\"";
  if (!label.empty())
    os << ", label=" << quote(label);
  os << "];\n";
}

LogicalResult unum::exportDot(AppOp app, llvm::raw_ostream &os) {
  os << "digraph " << quote(app.getSymName()) << " {\n";
  os << "  rankdir=LR;\n  node [shape=box, style=rounded];\n";
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>()) {
    os << "  " << quote(function.getSymName()) << " [";
    SmallVector<std::string> attrs;
    if (function.getStart())
      attrs.push_back("peripheries=2");
    if (function.getCheckpoint())
      attrs.push_back("style=\"rounded,filled\", fillcolor=\"lightgrey\"");
    if (auto retry = function.getRetry())
      attrs.push_back("xlabel=" + quote("retry " + std::to_string(*retry)));
    attrs.push_back("label=" + quote(function.getSymName()));
    llvm::interleaveComma(attrs, os);
    os << "];\n";
  }
  for (FunctionOp function : app.getBodyBlock().getOps<FunctionOp>())
    for (EdgeOpInterface edge : function.getEdges())
      printEdge(function, edge, os);
  os << "}\n";
  return success();
}

//===----------------------------------------------------------------------===//
// sfn.state_machine: the states before lowering
//===----------------------------------------------------------------------===//

namespace {
/// Draws the states of a state machine; a Map's or Parallel's states in a
/// cluster of their own (their names are scoped there, so node ids carry the
/// path of enclosing states).
class SfnDot {
public:
  explicit SfnDot(llvm::raw_ostream &os) : os(os) {}

  void print(sfn::StateMachineOp machine) {
    os << "digraph " << quote(machine.getSymName()) << " {\n";
    os << "  rankdir=LR;\n  node [shape=box, style=rounded];\n";
    os << "  \"^start\" [shape=point];\n";
    os << "  \"^start\" -> " << quote(machine.getStart()) << ";\n";
    printStates(machine.getBody(), "", "  ");
    os << "}\n";
  }

private:
  void printStates(Region &region, const std::string &scope,
                   const std::string &indent) {
    for (Operation &op : region.front())
      if (auto name = op.getAttrOfType<StringAttr>("name"))
        printState(op, name.getValue(), scope, indent);
  }

  void printState(Operation &op, StringRef name, const std::string &scope,
                  const std::string &indent) {
    std::string id = scope + name.str();
    StringRef kind = op.getName().stripDialect();
    std::string attrs = "label=" + quote(name);
    if (kind != "task")
      attrs += ", xlabel=" + quote(kind);
    if (kind == "choice")
      attrs += ", shape=diamond, style=\"\"";
    else if (kind == "succeed" || kind == "fail")
      attrs += ", shape=doublecircle, style=\"\"" +
               std::string(kind == "fail" ? ", color=\"red\"" : "");
    else if (kind == "pass" || kind == "wait")
      attrs += ", shape=ellipse, style=\"\"";
    os << indent << quote(id) << " [" << attrs << "];\n";

    auto edge = [&](StringRef to, StringRef style, const std::string &label) {
      os << indent << quote(id) << " -> " << quote(scope + to.str())
         << " [style=\"" << style << "\"";
      if (!label.empty())
        os << ", label=" << quote(label);
      os << "];\n";
    };
    if (auto next = op.getAttrOfType<StringAttr>("next"))
      edge(next.getValue(), "solid", "");
    if (auto choices = op.getAttrOfType<ArrayAttr>("choices"))
      for (auto [i, choice] : llvm::enumerate(choices))
        if (auto rule = dyn_cast<DictionaryAttr>(choice))
          if (auto to = rule.getAs<StringAttr>("Next"))
            edge(to.getValue(), "solid", "rule " + std::to_string(i + 1));
    if (auto fallback = op.getAttrOfType<StringAttr>("default_state"))
      edge(fallback.getValue(), "solid", "default");
    if (auto catchers = op.getAttrOfType<ArrayAttr>("catchers"))
      for (Attribute catcher : catchers)
        if (auto dict = dyn_cast<DictionaryAttr>(catcher))
          if (auto to = dict.getAs<StringAttr>("Next"))
            edge(to.getValue(), "dashed\", color=\"red", "catch");

    // A Map's iterator and a Parallel's branches: clusters entered from the
    // state.
    SmallVector<StringRef> starts;
    if (auto start = op.getAttrOfType<StringAttr>("start"))
      starts.push_back(start.getValue());
    if (auto branchStarts = op.getAttrOfType<ArrayAttr>("starts"))
      for (Attribute start : branchStarts)
        starts.push_back(cast<StringAttr>(start).getValue());
    for (auto [i, region] : llvm::enumerate(op.getRegions())) {
      if (region.empty() || i >= starts.size())
        continue;
      std::string inner = id + "/" +
                          (op.getNumRegions() > 1 ? std::to_string(i + 1) + "/"
                                                  : std::string());
      os << indent << "subgraph " << quote("cluster_" + inner) << " {\n";
      os << indent << "  label="
         << quote(kind == "map"
                      ? name.str() + " (each item)"
                      : name.str() + " branch " + std::to_string(i + 1))
         << ";\n";
      printStates(region, inner, indent + "  ");
      os << indent << "}\n";
      os << indent << quote(id) << " -> " << quote(inner + starts[i].str())
         << " [style=\"dotted\"];\n";
    }
  }

  llvm::raw_ostream &os;
};
} // namespace

LogicalResult unum::exportDot(sfn::StateMachineOp machine,
                              llvm::raw_ostream &os) {
  SfnDot(os).print(machine);
  return success();
}

void unum::registerDotTranslation() {
  static TranslateFromMLIRRegistration toDot(
      "to-dot",
      "export the workflow graph of an unum.app, or the states of an "
      "sfn.state_machine, as Graphviz dot",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        SmallVector<Operation *> graphs;
        op->walk([&](Operation *nested) {
          if (isa<AppOp, sfn::StateMachineOp>(nested))
            graphs.push_back(nested);
        });
        if (graphs.size() != 1)
          return op->emitError() << "expected exactly one 'unum.app' or "
                                    "'sfn.state_machine', found "
                                 << graphs.size();
        if (auto app = dyn_cast<AppOp>(graphs.front()))
          return exportDot(app, os);
        return exportDot(cast<sfn::StateMachineOp>(graphs.front()), os);
      },
      [](DialectRegistry &registry) {
        registry.insert<UnumDialect, sfn::SfnDialect>();
        quietOpDiagnostics(registry);
      });
}
