//===- VectorBody.cpp - a linalg.generic's body on vectors ----------------===//
#include "VectorBody.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

Value unum::air::splatLanes(OpBuilder &b, Location loc, Value s,
                            int64_t lanes) {
  return vector::BroadcastOp::create(b, loc,
                                     VectorType::get({lanes}, s.getType()), s);
}

Value unum::air::cloneBodyOnVectors(OpBuilder &b, Location loc, Block *body,
                                    IRMapping &map, int64_t lanes,
                                    bool keepFastMath, Value result) {
  auto operandOf = [&](Value v) -> Value {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    return splatLanes(b, loc, v, lanes); // a scalar from above
  };
  for (Operation &inner : body->without_terminator()) {
    if (result && map.contains(result))
      break;
    if (inner.getNumOperands() == 0) { // a constant
      map.map(inner.getResult(0),
              splatLanes(b, loc, b.clone(inner)->getResult(0), lanes));
      continue;
    }
    OperationState state(loc, inner.getName());
    for (Value operand : inner.getOperands())
      state.addOperands(operandOf(operand));
    for (NamedAttribute attr : inner.getAttrs())
      if (keepFastMath || attr.getName() != "fastmath")
        state.addAttribute(attr.getName(), attr.getValue());
    state.addTypes(VectorType::get({lanes}, inner.getResult(0).getType()));
    map.map(inner.getResult(0), b.create(state)->getResult(0));
  }
  return operandOf(result ? result : body->getTerminator()->getOperand(0));
}
