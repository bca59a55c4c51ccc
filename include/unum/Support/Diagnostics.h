//===- Diagnostics.h - Bounded diagnostics for Unum's tools -----*- C++ -*-===//
//
// What a tool prints about bad input is bounded, however bad the input:
//  - at most --error-limit errors (default 20, 0: no limit; like clang's
//    -ferror-limit): then one line says so, and later diagnostics are
//    dropped;
//  - a source line quoted under a diagnostic is cut to a window around the
//    column, with "..." where it was cut (a one-line NN JSON file of 49 KB
//    with 1,500 errors printed 74 MB, each error quoting the whole file).
// Within the limit, a diagnostic on a short line goes to the handlers
// behind unchanged (so that --verify-diagnostics sees it).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_SUPPORT_DIAGNOSTICS_H
#define UNUM_SUPPORT_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace unum {

/// A quoted source line longer than this is cut around the column.
constexpr unsigned kQuotedLineWidth = 120;

/// The value of --error-limit (0: no limit).
unsigned getErrorLimit();

/// Puts the bounds in front of `context`'s diagnostic handlers (once per
/// context). `sourceMgr`, when given, holds the sources (a file that is not
/// in it is read when a line of it must be cut); `os` is where the cut
/// diagnostics and the limit's message go. The handler's id lets a caller
/// whose context outlives one run erase it (and so count afresh).
mlir::DiagnosticEngine::HandlerID
boundDiagnostics(mlir::MLIRContext *context,
                 llvm::SourceMgr *sourceMgr = nullptr,
                 llvm::raw_ostream &os = llvm::errs());

/// Bounds every context that `registry` reaches, once per context, when it
/// loads its first dialect besides the builtin one: for a driver that makes
/// its contexts and registers its own handler before it parses (MlirOptMain),
/// whose input then loads the dialects it names.
void boundDiagnosticsOnLoad(mlir::DialectRegistry &registry);

/// `line` cut to at most about `width` characters around the 0-based byte
/// column `col` (on UTF-8 character boundaries), "..." marking each cut
/// end; `col` is moved to the same character in the result.
std::string cutSourceLine(llvm::StringRef line, unsigned &col,
                          unsigned width = kQuotedLineWidth);

} // namespace unum

#endif // UNUM_SUPPORT_DIAGNOSTICS_H
