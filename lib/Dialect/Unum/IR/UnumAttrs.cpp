//===- UnumAttrs.cpp - Parsed conditionals, patterns, modifiers -----------===//
//
// The attributes are spelled `#unum.cond<"...">`, `#unum.pattern<"...">` and
// `#unum.modifier<"...">`. The string is parsed by the config library when the
// attribute is read, and a syntax error points at the offending character.
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Unum/IR/UnumAttrs.h"
#include "unum/Dialect/Unum/IR/UnumDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace unum;

#define GET_ATTRDEF_CLASSES
#include "unum/Dialect/Unum/IR/UnumAttrs.cpp.inc"

void UnumDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "unum/Dialect/Unum/IR/UnumAttrs.cpp.inc"
      >();
}

namespace {
/// Parses a string literal with `parseFn` from the config library.
template <typename AttrT, typename ParseFn>
AttrT parseString(AsmParser &parser, ParseFn parseFn) {
  std::string text;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseString(&text))
    return {};
  config::ParseError error;
  auto value = parseFn(text, error);
  if (!value) {
    // Point inside the string literal (exact unless it has escapes).
    parser.emitError(SMLoc::getFromPointer(loc.getPointer() + 1 + error.offset),
                     error.message);
    return {};
  }
  return AttrT::get(parser.getContext(), *value);
}

/// Parses `<"text">`.
template <typename AttrT> Attribute parseBracketed(AsmParser &parser) {
  if (parser.parseLess())
    return {};
  AttrT attr = AttrT::parseString(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void printBracketed(AsmPrinter &printer, StringRef text) {
  printer << '<';
  printQuotedText(printer, text);
  printer << '>';
}
} // namespace

void unum::printQuotedText(AsmPrinter &printer, StringRef text) {
  printer << '"';
  llvm::printEscapedString(text, printer.getStream());
  printer << '"';
}

ConditionAttr ConditionAttr::parseString(AsmParser &parser) {
  return ::parseString<ConditionAttr>(parser, config::parseConditional);
}
Attribute ConditionAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<ConditionAttr>(parser);
}
void ConditionAttr::print(AsmPrinter &printer) const {
  printBracketed(printer, getText());
}

NamePatternAttr NamePatternAttr::parseString(AsmParser &parser) {
  return ::parseString<NamePatternAttr>(parser, config::parseNamePattern);
}
Attribute NamePatternAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<NamePatternAttr>(parser);
}
void NamePatternAttr::print(AsmPrinter &printer) const {
  printBracketed(printer, getText());
}

ModifierAttr ModifierAttr::parseString(AsmParser &parser) {
  return ::parseString<ModifierAttr>(parser, config::parseModifier);
}
Attribute ModifierAttr::parse(AsmParser &parser, Type) {
  return parseBracketed<ModifierAttr>(parser);
}
void ModifierAttr::print(AsmPrinter &printer) const {
  printBracketed(printer, getText());
}
