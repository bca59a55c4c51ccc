//===- JsonImage.cpp - JSON values as MLIR attributes ---------------------===//
#include "unum/Target/JsonImage.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallString.h"

#include <cstdlib>

using namespace mlir;
using namespace unum;

void unum::reportConfigDiagnostics(
    MLIRContext *context, const std::vector<config::Diagnostic> &diagnostics) {
  for (const config::Diagnostic &d : diagnostics) {
    Location loc = d.loc.line ? Location(FileLineColLoc::get(
                                    context, d.file, d.loc.line, d.loc.col))
                              : Location(UnknownLoc::get(context));
    std::string message =
        d.loc.line || d.file.empty() ? d.message : d.file + ": " + d.message;
    switch (d.severity) {
    case config::Diagnostic::Severity::Error:
      emitError(loc) << message;
      break;
    case config::Diagnostic::Severity::Warning:
      emitWarning(loc) << message;
      break;
    case config::Diagnostic::Severity::Note:
      emitRemark(loc) << message;
      break;
    }
  }
}

Attribute unum::jsonToAttr(const config::Node &node, MLIRContext *context) {
  Builder builder(context);
  switch (node.kind) {
  case config::Node::Kind::Null:
    return builder.getUnitAttr();
  case config::Node::Kind::Bool:
    return builder.getBoolAttr(node.boolValue);
  case config::Node::Kind::Number:
    if (node.isInteger()) {
      errno = 0;
      long long value = std::strtoll(node.text.c_str(), nullptr, 10);
      if (errno == 0)
        return builder.getI64IntegerAttr(value);
    }
    return builder.getF64FloatAttr(std::strtod(node.text.c_str(), nullptr));
  case config::Node::Kind::String:
    return builder.getStringAttr(node.text);
  case config::Node::Kind::Array: {
    SmallVector<Attribute> items;
    for (const config::Node &item : node.items)
      items.push_back(jsonToAttr(item, context));
    return builder.getArrayAttr(items);
  }
  case config::Node::Kind::Object: {
    SmallVector<NamedAttribute> members;
    for (const config::Node::Member &member : node.members)
      members.push_back(builder.getNamedAttr(
          member.key, jsonToAttr(member.value, context)));
    return builder.getDictionaryAttr(members);
  }
  }
  return {};
}

std::optional<config::Node> unum::attrToJson(Attribute attr) {
  config::Node node;
  if (isa<UnitAttr>(attr)) {
    node.kind = config::Node::Kind::Null;
  } else if (auto b = dyn_cast<BoolAttr>(attr)) {
    node.kind = config::Node::Kind::Bool;
    node.boolValue = b.getValue();
  } else if (auto i = dyn_cast<IntegerAttr>(attr)) {
    node.kind = config::Node::Kind::Number;
    node.text = std::to_string(i.getInt());
  } else if (auto f = dyn_cast<FloatAttr>(attr)) {
    node.kind = config::Node::Kind::Number;
    SmallString<32> text;
    f.getValue().toString(text);
    node.text = text.str().str();
  } else if (auto s = dyn_cast<StringAttr>(attr)) {
    node.kind = config::Node::Kind::String;
    node.text = s.getValue().str();
  } else if (auto array = dyn_cast<ArrayAttr>(attr)) {
    node.kind = config::Node::Kind::Array;
    for (Attribute item : array) {
      std::optional<config::Node> value = attrToJson(item);
      if (!value)
        return std::nullopt;
      node.items.push_back(std::move(*value));
    }
  } else if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    node.kind = config::Node::Kind::Object;
    for (NamedAttribute member : dict) {
      std::optional<config::Node> value = attrToJson(member.getValue());
      if (!value)
        return std::nullopt;
      node.members.push_back({member.getName().str(), {}, std::move(*value)});
    }
  } else {
    return std::nullopt;
  }
  return node;
}
