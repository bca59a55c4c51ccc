//===- Parallel.cpp - loops shared by threads, above a work threshold -----===//
#include "Parallel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

Value unum::air::enoughWork(OpBuilder &b, Location loc, Value work,
                            int64_t minimum) {
  Value min = arith::ConstantIndexOp::create(b, loc, minimum);
  return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, work,
                                       min);
}

Value unum::air::product(OpBuilder &b, Location loc, ValueRange values) {
  Value result = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value v : values)
    result = b.createOrFold<arith::MulIOp>(loc, result, v);
  return result;
}

namespace {
/// An scf.parallel over `loop`'s range with `loop`'s body moved into it.
void moveIntoParallel(RewriterBase &b, scf::ForOp loop) {
  Location loc = loop.getLoc();
  auto par = scf::ParallelOp::create(b, loc, ValueRange{loop.getLowerBound()},
                                     ValueRange{loop.getUpperBound()},
                                     ValueRange{loop.getStep()},
                                     [](OpBuilder &, Location, ValueRange) {});
  Block *body = par.getBody();
  if (body->empty() || !body->back().hasTrait<OpTrait::IsTerminator>()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    scf::ReduceOp::create(b, loc);
  }
  Block *from = loop.getBody();
  b.eraseOp(from->getTerminator());
  b.inlineBlockBefore(from, body->getTerminator(),
                      ValueRange{par.getInductionVars()[0]});
}
} // namespace

void unum::air::parallelize(RewriterBase &b, scf::ForOp loop, int64_t threads,
                            Value enough) {
  if (threads <= 1 || loop.getNumResults() != 0)
    return;
  std::optional<int64_t> known =
      enough ? getConstantIntValue(enough) : std::optional<int64_t>(1);
  OpBuilder::InsertionGuard guard(b);
  if (known) {
    if (*known == 0)
      return;
    b.setInsertionPoint(loop);
    moveIntoParallel(b, loop);
    b.eraseOp(loop);
    return;
  }
  b.setInsertionPoint(loop);
  auto choice = scf::IfOp::create(b, loop.getLoc(), enough, /*withElse=*/true);
  b.setInsertionPoint(choice.elseBlock()->getTerminator());
  b.clone(*loop.getOperation());
  b.setInsertionPoint(choice.thenBlock()->getTerminator());
  moveIntoParallel(b, loop);
  b.eraseOp(loop);
}
