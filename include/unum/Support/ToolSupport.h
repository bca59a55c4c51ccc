//===- ToolSupport.h - What every Unum tool's main does first ---*- C++ -*-===//
//
// The command line of an Unum tool: `--version` prints Unum's version and the
// MLIR release it was built with; `--help` lists the tool's own options and
// hides the hundreds that libLLVM and the libraries register at start-up
// (they still parse: `--help-hidden` lists them).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_SUPPORT_TOOLSUPPORT_H
#define UNUM_SUPPORT_TOOLSUPPORT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace unum {

/// "<tool> (Unum) X.Y.Z\n  built with MLIR A.B.C\n".
void printVersion(llvm::raw_ostream &os, llvm::StringRef tool);

/// Call first in main, before anything registers options lazily. Makes
/// `--version` print printVersion(tool), and hides from `--help` every
/// option registered so far (at static initialisation: LLVM's, and any
/// library's) that is in none of `own`. Options registered later (MLIR's
/// context and pass-manager options, translations, passes) stay listed.
/// The help options are moved into the first of `own`, so the tool's own
/// options come first (cl prints categories in alphabetical order).
/// `boundsDiagnostics`: the tool bounds its diagnostics
/// (unum/Support/Diagnostics.h), so its --error-limit is listed too.
void initToolCommandLine(llvm::StringRef tool,
                         llvm::ArrayRef<llvm::cl::OptionCategory *> own = {},
                         bool boundsDiagnostics = false);

/// `argv` with `--mlir-print-op-on-diagnostic=false` inserted first, for
/// tools whose main hands the command line to MLIR (MlirOptMain,
/// mlirTranslateMain): an error then points into the input without a dump of
/// the op it is about (a whole app or design, for an error on one). Given
/// explicitly, the option still wins (the last occurrence counts).
std::vector<char *> withQuietOpDiagnostics(int argc, char **argv);

} // namespace unum

#endif // UNUM_SUPPORT_TOOLSUPPORT_H
