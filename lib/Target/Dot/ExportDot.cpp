//===- ExportDot.cpp - unum.app -> Graphviz -------------------------------===//
#include "unum/Target/Dot/Dot.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"

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

void unum::registerDotTranslation() {
  static TranslateFromMLIRRegistration toDot(
      "to-dot", "export the workflow graph of an unum.app as Graphviz dot",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        SmallVector<AppOp> apps;
        op->walk([&](AppOp app) { apps.push_back(app); });
        if (apps.size() != 1)
          return op->emitError() << "expected exactly one 'unum.app', found "
                                 << apps.size();
        return exportDot(apps.front(), os);
      },
      [](DialectRegistry &registry) { registry.insert<UnumDialect>(); });
}
