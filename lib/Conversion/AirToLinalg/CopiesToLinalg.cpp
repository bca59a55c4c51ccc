//===- CopiesToLinalg.cpp - air-copies-to-linalg --------------------------===//
#include "unum/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace unum {
#define GEN_PASS_DEF_AIRCOPIESTOLINALG
#include "unum/Conversion/Passes.h.inc"
} // namespace unum

using namespace mlir;

namespace {
struct AirCopiesToLinalgPass
    : public unum::impl::AirCopiesToLinalgBase<AirCopiesToLinalgPass> {
  void runOnOperation() override {
    getOperation()->walk([](memref::CopyOp copy) {
      // A copy of a block onto itself (two equal subviews: a loop writing
      // its result in place, air-fuse-rows) does nothing.
      auto from = copy.getSource().getDefiningOp<memref::SubViewOp>();
      auto to = copy.getTarget().getDefiningOp<memref::SubViewOp>();
      if (from && to &&
          OperationEquivalence::isEquivalentTo(
              from, to, OperationEquivalence::IgnoreLocations)) {
        copy.erase();
        return;
      }
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    });
  }
};
} // namespace
