//===- air.cpp - Fuzz the AIR text importer -------------------------------===//
//
// Input: a program in the AIR notation. importAirText must report errors or
// return a module that verifies, never crash or hang.
//
//===----------------------------------------------------------------------===//

#include "MlirFuzz.h"

#include "unum/Target/AirText/AirText.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unum::fuzz::runImporter(data, size,
                          [](llvm::StringRef text, mlir::MLIRContext *ctx) {
                            return unum::importAirText(text, "fuzz.air", ctx);
                          });
  return 0;
}
