//===- nnjson.cpp - Fuzz the NN JSON layer-graph importer -----------------===//
//
// Input: a layer graph in the JSON format of docs/NNJson.md. importNNJson
// must report errors or return a verified nn.model, never crash or hang.
//
//===----------------------------------------------------------------------===//

#include "MlirFuzz.h"

#include "unum/Target/NNJson/NNJson.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unum::fuzz::runImporter(data, size,
                          [](llvm::StringRef text, mlir::MLIRContext *ctx) {
                            return unum::importNNJson(text, "fuzz.json", ctx);
                          });
  return 0;
}
