//===- TranslateDiagnostics.h - Diagnostics of Unum's translations -*- C++ -*-//
//
// mlir-translate's driver (mlirTranslateMain) attaches the whole op to every
// diagnostic about one: for an error on an unum.app or an rtl.design, a dump
// of the app or design after the located message. Unum's translations are
// user-facing (unum-translate), so their dialect registrations add
// quietOpDiagnostics: when the registry reaches the context, the context
// stops attaching ops. `--verify-diagnostics` runs are unaffected (the driver
// turns it off there too). The same extension bounds what the translation
// prints (unum/Support/Diagnostics.h: --error-limit, long source lines cut
// around the column), in front of the driver's handler: it is added when
// the translation runs, after the driver registered its handler.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_TARGET_TRANSLATEDIAGNOSTICS_H
#define UNUM_TARGET_TRANSLATEDIAGNOSTICS_H

#include "unum/Support/Diagnostics.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

namespace unum {

inline void quietOpDiagnostics(mlir::DialectRegistry &registry) {
  registry.addExtension(
      +[](mlir::MLIRContext *context, mlir::BuiltinDialect *) {
        context->printOpOnDiagnostic(false);
        boundDiagnostics(context);
      });
}

} // namespace unum

#endif // UNUM_TARGET_TRANSLATEDIAGNOSTICS_H
