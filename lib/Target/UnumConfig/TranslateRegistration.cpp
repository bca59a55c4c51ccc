//===- TranslateRegistration.cpp - unum-translate's config translations ---===//
#include "unum/Dialect/Unum/IR/UnumOps.h"
#include "unum/Dialect/Unum/Transforms/Passes.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace unum;

static llvm::cl::OptionCategory category("unum config translation options");

static llvm::cl::opt<std::string>
    appName("app-name",
            llvm::cl::desc("Name of the imported unum.app (default: the input "
                           "directory or file name)"),
            llvm::cl::value_desc("name"), llvm::cl::cat(category));

static llvm::cl::opt<std::string> outputDir(
    "output-dir",
    llvm::cl::desc("Write DIR/<Function>/unum_config.{json,yaml} (--to-json, "
                   "--to-yaml) or the VHDL files (--to-vhdl), all or "
                   "nothing, instead of printing them"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(category));

StringRef unum::getAppNameOption() { return appName; }
StringRef unum::getOutputDirOption() { return outputDir; }

/// Set by unum-translate's main when the input is an app directory, which
/// mlirTranslateMain cannot open as a file.
static std::string &directoryInput() {
  static std::string path;
  return path;
}

void unum::setConfigDirectoryInput(StringRef path) {
  directoryInput() = path.str();
}

static OwningOpRef<Operation *> importFrom(llvm::SourceMgr &sourceMgr,
                                           MLIRContext *context,
                                           config::Format format) {
  if (!directoryInput().empty())
    return importUnumConfigPath(directoryInput(), format, appName, context);
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  return importUnumConfigText(buffer->getBuffer(),
                              buffer->getBufferIdentifier(), format, appName,
                              context);
}

static LogicalResult exportTo(Operation *op, llvm::raw_ostream &os,
                              config::Format format) {
  SmallVector<AppOp> apps;
  if (auto app = dyn_cast<AppOp>(op))
    apps.push_back(app);
  else
    op->walk([&](AppOp app) { apps.push_back(app); });
  if (apps.size() != 1)
    return op->emitError() << "expected exactly one 'unum.app', found "
                           << apps.size();
  lintApp(apps.front()); // the warnings, once
  return translateAppToConfig(apps.front(), format, outputDir, os);
}

void unum::registerUnumConfigTranslations() {
  auto registerDialects = [](DialectRegistry &registry) {
    registry.insert<UnumDialect>();
  };
  static TranslateToMLIRRegistration fromJson(
      "from-json",
      "import unum_config.json files (file, stream or app directory)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        return importFrom(sourceMgr, context, config::Format::Json);
      },
      registerDialects);
  static TranslateToMLIRRegistration fromYaml(
      "from-yaml",
      "import unum_config.yaml files (file, stream or app directory)",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        return importFrom(sourceMgr, context, config::Format::Yaml);
      },
      registerDialects);
  static TranslateFromMLIRRegistration toJson(
      "to-json", "export an unum.app as unum_config.json files",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, config::Format::Json);
      },
      registerDialects);
  static TranslateFromMLIRRegistration toYaml(
      "to-yaml", "export an unum.app as unum_config.yaml files",
      [](Operation *op, llvm::raw_ostream &os) {
        return exportTo(op, os, config::Format::Yaml);
      },
      registerDialects);
}
