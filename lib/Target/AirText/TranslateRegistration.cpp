//===- TranslateRegistration.cpp - unum-translate's --from-air ------------===//
#include "unum/Dialect/Air/IR/AirDialect.h"
#include "unum/Target/AirText/AirText.h"
#include "unum/Target/TranslateDiagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

void unum::registerAirTextTranslation() {
  static TranslateToMLIRRegistration fromAir(
      "from-air", "import array functions in the AIR notation as air ops",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        return OwningOpRef<Operation *>(
            importAirText(buffer->getBuffer(), buffer->getBufferIdentifier(),
                          context)
                .release());
      },
      [](DialectRegistry &registry) {
        registry.insert<air::AirDialect, func::FuncDialect>();
        quietOpDiagnostics(registry);
      });
}
