//===- JsonImage.h - JSON values as MLIR attributes -------------*- C++ -*-===//
//
// Dialects keep JSON-valued fields (ASL Parameters, Retry, data-flow fields)
// as their "JSON image": objects become DictionaryAttr, arrays ArrayAttr,
// strings StringAttr, integers i64 IntegerAttr, other numbers f64 FloatAttr,
// booleans BoolAttr and null a UnitAttr. Importers and exporters share these
// two conversions.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_TARGET_JSONIMAGE_H
#define UNUM_TARGET_JSONIMAGE_H

#include "unum/Config/Document.h"

#include "mlir/IR/Attributes.h"

#include <optional>

namespace unum {
/// The JSON image of `node`.
mlir::Attribute jsonToAttr(const config::Node &node, mlir::MLIRContext *context);
/// The JSON value an image stands for; std::nullopt for an attribute that is
/// not a JSON image.
std::optional<config::Node> attrToJson(mlir::Attribute attr);
} // namespace unum

#endif // UNUM_TARGET_JSONIMAGE_H
