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
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    });
  }
};
} // namespace
