//===- UnumConfig.h - unum_config.{json,yaml} <-> unum dialect --*- C++ -*-===//
//
// Import turns config files (one file, a multi-document stream, or an app
// directory of `<Function>/unum_config.<ext>`) into an `unum.app`; export turns
// an `unum.app` into one config text per function. Anything a file format
// cannot express is an error, never dropped.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_TARGET_UNUMCONFIG_UNUMCONFIG_H
#define UNUM_TARGET_UNUMCONFIG_UNUMCONFIG_H

#include "unum/Config/FunctionConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <utility>
#include <vector>

namespace unum {
class AppOp;

/// Reads `path` (a config file, stream or app directory; "-" is stdin via
/// `stdinText`) and builds a module holding one `unum.app`. The app is named
/// `appName`, or after the directory (or file stem) when empty. Errors are
/// reported through the context's diagnostic handler with file:line:col.
mlir::OwningOpRef<mlir::ModuleOp>
importUnumConfigPath(llvm::StringRef path, config::Format format,
                     llvm::StringRef appName, mlir::MLIRContext *context);

/// Builds a module from a config text held in memory; `bufferName` is the
/// file name used in locations.
mlir::OwningOpRef<mlir::ModuleOp>
importUnumConfigText(llvm::StringRef text, llvm::StringRef bufferName,
                     config::Format format, llvm::StringRef appName,
                     mlir::MLIRContext *context);

/// Builds the configs of `app`, one per function in body order.
mlir::LogicalResult exportUnumConfigs(AppOp app,
                                      std::vector<config::FunctionConfig> &out);

/// Renders `app` in `format`: on `os` as one document per function, or, when
/// `outputDir` is not empty, as `outputDir/<Function>/unum_config.<ext>` files
/// (all or nothing).
mlir::LogicalResult translateAppToConfig(AppOp app, config::Format format,
                                         llvm::StringRef outputDir,
                                         llvm::raw_ostream &os);

/// Makes the --from-* translations read the app directory `path` instead of
/// the input buffer (mlirTranslateMain only opens files).
void setConfigDirectoryInput(llvm::StringRef path);

/// The value of --app-name (empty when not given); --from-asl names the state
/// machine with it too.
llvm::StringRef getAppNameOption();
/// The value of --output-dir, shared with the other translations that write
/// directories (--to-vhdl).
llvm::StringRef getOutputDirOption();

/// Registers --from-json, --from-yaml, --to-json, --to-yaml and their
/// options (--app-name, --output-dir).
void registerUnumConfigTranslations();

} // namespace unum

#endif // UNUM_TARGET_UNUMCONFIG_UNUMCONFIG_H
