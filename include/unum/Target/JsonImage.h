//===- JsonImage.h - The config library's values in MLIR --------*- C++ -*-===//
//
// The importers' bridge from the MLIR-free config library to MLIR: its
// diagnostics become MLIR diagnostics, its JSON values attributes.
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

#include "unum/Config/Diagnostic.h"
#include "unum/Config/Document.h"

#include "mlir/IR/Attributes.h"

#include <optional>
#include <vector>

namespace unum {
/// Emits the config library's diagnostics through the context's handler, at
/// file:line:col (a diagnostic without a position names its file instead).
void reportConfigDiagnostics(mlir::MLIRContext *context,
                             const std::vector<config::Diagnostic> &diagnostics);

/// The JSON image of `node`.
mlir::Attribute jsonToAttr(const config::Node &node, mlir::MLIRContext *context);
/// The JSON value an image stands for; std::nullopt for an attribute that is
/// not a JSON image.
std::optional<config::Node> attrToJson(mlir::Attribute attr);
} // namespace unum

#endif // UNUM_TARGET_JSONIMAGE_H
