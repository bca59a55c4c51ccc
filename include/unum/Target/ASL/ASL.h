//===- ASL.h - Amazon States Language -> sfn dialect ------------*- C++ -*-===//
//
// Imports an AWS Step Functions state machine (Amazon States Language, JSON)
// into one `sfn.state_machine`. The importer checks what only the JSON can
// tell (field names, field types, Choice rules, JSONPath syntax, termination;
// every diagnostic at the file:line:col of the offending key or value), builds
// the ops with the JSON position of each state as its location, and leaves
// the per-scope checks (unique names, resolving transitions, Next xor End) to
// the sfn verifier.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_TARGET_ASL_ASL_H
#define UNUM_TARGET_ASL_ASL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace unum {

struct ASLImportOptions {
  /// The state machine's sym_name; empty: the file stem (without `.json`
  /// and `.asl`), or "state_machine" for stdin.
  std::string name;
  /// A JSON object mapping Task resources (ARNs) to function names. Empty:
  /// an ARN maps to its last ':'-segment (the name after `function:` for a
  /// Lambda function ARN with a version or alias qualifier).
  std::string functionMapFile;
  /// A JSON object {"Checkpoint": bool, "Debug": bool (optional)}, recorded
  /// as the state machine's `checkpoint`/`debug` attributes.
  std::string globalsFile;
  /// A JSON object {"Name": value} whose values replace the `${Name}`
  /// placeholders in the definition's strings, as SAM's
  /// DefinitionSubstitutions do. A placeholder without a value is an error.
  std::string substitutionsFile;
};

/// Builds a module holding one verified `sfn.state_machine` from the ASL
/// `text`; `bufferName` is the file name used in locations. Returns null after
/// reporting the errors through the context's diagnostic handler; warnings
/// (unreachable states) are reported and do not fail the import.
mlir::OwningOpRef<mlir::ModuleOp> importASL(llvm::StringRef text,
                                            llvm::StringRef bufferName,
                                            const ASLImportOptions &options,
                                            mlir::MLIRContext *context);

/// Reads the file `path` and imports it as importASL does.
mlir::OwningOpRef<mlir::ModuleOp> importASLFile(llvm::StringRef path,
                                                const ASLImportOptions &options,
                                                mlir::MLIRContext *context);

/// Registers --from-asl and its options (--function-map, --asl-globals; the
/// name comes from --app-name).
void registerASLTranslation();

} // namespace unum

#endif // UNUM_TARGET_ASL_ASL_H
