//===- asl.cpp - Fuzz the ASL (Step Functions) importer -------------------===//
//
// Input: an ASL state machine definition (JSON). importASL must report
// errors or return a verified sfn.state_machine, never crash or hang.
//
//===----------------------------------------------------------------------===//

#include "MlirFuzz.h"

#include "unum/Target/ASL/ASL.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unum::fuzz::runImporter(
      data, size, [](llvm::StringRef text, mlir::MLIRContext *ctx) {
        unum::ASLImportOptions options;
        return unum::importASL(text, "fuzz.asl.json", options, ctx);
      });
  return 0;
}
