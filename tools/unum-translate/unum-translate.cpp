//===- unum-translate.cpp - Unum's translation driver ---------------------===//
//
// mlir-translate with Unum's translations. One addition: the input of
// --from-json/--from-yaml may be an app directory (`<Function>/unum_config.*`),
// which mlirTranslateMain cannot open as a file, so main hands such a path to
// the importer and gives mlirTranslateMain an empty input instead.
//
//===----------------------------------------------------------------------===//
#include "unum/InitAll.h"
#include "unum/Support/ToolSupport.h"
#include "unum/Target/UnumConfig/UnumConfig.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <vector>

/// Options whose value may be given as the next argument (`-o out`).
static bool takesSeparateValue(llvm::StringRef arg) {
  arg = arg.ltrim('-');
  return arg == "o" || arg == "output-dir" || arg == "app-name" ||
         arg == "function-map" || arg == "asl-globals";
}

int main(int argc, char **argv) {
  unum::initToolCommandLine("unum-translate", {}, /*boundsDiagnostics=*/true);
  unum::registerAllTranslations();

  std::vector<char *> args = unum::withQuietOpDiagnostics(argc, argv);
  char devNull[] = "/dev/null";
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (arg == "--")
      break;
    if (arg.starts_with("-")) {
      if (takesSeparateValue(arg) && !arg.contains('='))
        ++i;
      continue;
    }
    if (llvm::sys::fs::is_directory(arg)) {
      unum::setConfigDirectoryInput(arg);
      args[i] = devNull;
    }
    break; // only the first positional argument is the input
  }
  return mlir::failed(mlir::mlirTranslateMain(
      static_cast<int>(args.size()), args.data(), "Unum translation driver"));
}
