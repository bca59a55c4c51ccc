//===- UnumDialect.cpp - The unum workflow dialect ------------------------===//
#include "unum/Dialect/Unum/IR/UnumDialect.h"
#include "unum/Dialect/Unum/IR/UnumOps.h"

using namespace mlir;
using namespace unum;

#include "unum/Dialect/Unum/IR/UnumOpsDialect.cpp.inc"

void UnumDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "unum/Dialect/Unum/IR/UnumOps.cpp.inc"
      >();
}
