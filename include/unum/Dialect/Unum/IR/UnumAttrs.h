//===- UnumAttrs.h - Parsed conditionals, patterns, modifiers ---*- C++ -*-===//
#ifndef UNUM_DIALECT_UNUM_IR_UNUMATTRS_H
#define UNUM_DIALECT_UNUM_IR_UNUMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "unum/Config/Expr.h"
#include "llvm/ADT/Hashing.h"

namespace unum::config {
// Attribute storage uniques the parsed values by their canonical text.
inline llvm::hash_code hash_value(const Expression &e) {
  return llvm::hash_value(e.text);
}
inline llvm::hash_code hash_value(const NamePattern &p) {
  return llvm::hash_value(p.text);
}
inline llvm::hash_code hash_value(const Modifier &m) {
  return llvm::hash_value(m.text);
}
} // namespace unum::config

#define GET_ATTRDEF_CLASSES
#include "unum/Dialect/Unum/IR/UnumAttrs.h.inc"

namespace unum {
/// Prints `text` as an escaped string literal.
void printQuotedText(mlir::AsmPrinter &printer, llvm::StringRef text);
} // namespace unum

#endif // UNUM_DIALECT_UNUM_IR_UNUMATTRS_H
