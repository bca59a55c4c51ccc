//===- AbiEntry.cpp - the public entry of an AIR function -----------------===//
//
// A public AIR function NAME becomes two functions:
//
//  * NAME, the ABI entry (docs/AirABI.md): one memref per input and per
//    result with dynamic sizes, strides and offset (whatever the caller's
//    descriptor says), returning an i32 status. It first checks every size:
//    static ones against the signature, dynamic ones against each other
//    where the program needs them equal (computed by walking the air ops
//    with each dimension as an SSA index value), and the outputs' against
//    the result shapes. On a mismatch it returns 1 and touches nothing.
//    Otherwise it gives the body a contiguous view of each argument (a
//    reinterpret_cast with the caller's offset when the strides are
//    row-major already, else a temporary copy) and returns 0.
//  * the body, private: the kernel proper on contiguous memrefs, which is
//    what the loops are generated for (static strides, unit inner stride).
//
//===----------------------------------------------------------------------===//
#include "AbiEntry.h"
#include "unum/Conversion/AirToLinalg/AirToLinalg.h"

#include "unum/Dialect/Air/IR/AirOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace unum::air;

std::string unum::air::abiBodyName(const std::string &name) {
  return "__unum_air_" + name;
}

namespace {
/// Row-major strides of `shape`: static while the sizes to the right are.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size());
  int64_t running = 1;
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    strides[d] = running;
    if (ShapedType::isDynamic(running) || ShapedType::isDynamic(shape[d]))
      running = ShapedType::kDynamic;
    else
      running *= shape[d];
  }
  return strides;
}

/// What the caller may pass for a value of type `t`: any sizes (checked),
/// any strides, any offset.
MemRefType abiMemRefType(RankedTensorType t) {
  int64_t rank = t.getRank();
  SmallVector<int64_t> dyn(rank, ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(t.getContext(), ShapedType::kDynamic, dyn);
  return MemRefType::get(dyn, t.getElementType(), layout);
}

/// The sizes of one value: an attribute where known at compile time, an
/// index value where computed from the arguments, null where any size fits
/// (a dimension a broadcast stretched from 1 takes its consumer's size).
using Dims = SmallVector<OpFoldResult>;

/// Emits, at `b`'s insertion point, the conditions under which the program
/// reads and writes in bounds.
class SizeChecks {
public:
  SizeChecks(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value value(OpFoldResult r) {
    return getValueOrCreateConstantIndexOp(b, loc, r);
  }

  void require(Value condition) {
    ok = ok ? arith::AndIOp::create(b, loc, ok, condition).getResult()
            : condition;
  }
  void requireCmp(arith::CmpIPredicate p, OpFoldResult x, OpFoldResult y) {
    if (!x || !y)
      return;
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy) {
      if (!arith::applyCmpPredicate(p, APInt(64, *cx), APInt(64, *cy)))
        require(arith::ConstantIntOp::create(b, loc, 0, 1));
      return;
    }
    require(arith::CmpIOp::create(b, loc, p, value(x), value(y)));
  }
  void requireEq(OpFoldResult x, OpFoldResult y) {
    requireCmp(arith::CmpIPredicate::eq, x, y);
  }

  /// All the conditions, true when there were none.
  Value all() { return ok ? ok : arith::ConstantIntOp::create(b, loc, 1, 1); }

  /// Walks `block`'s air ops in order, computing each value's sizes into
  /// `dims` (the block's arguments must be there already) and requiring
  /// what each op needs. Returns the sizes of the terminator's operands.
  SmallVector<Dims> walk(Block &block, DenseMap<Value, Dims> &dims) {
    for (Operation &op : block.without_terminator())
      visit(&op, dims);
    SmallVector<Dims> results;
    for (Value v : block.getTerminator()->getOperands())
      results.push_back(get(v, dims));
    return results;
  }

private:
  Dims fromType(Value v) {
    Dims d;
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      for (int64_t s : t.getShape())
        d.push_back(ShapedType::isDynamic(s) ? OpFoldResult()
                                             : b.getIndexAttr(s));
    return d;
  }

  Dims get(Value v, DenseMap<Value, Dims> &dims) {
    auto it = dims.find(v);
    return it == dims.end() ? fromType(v) : it->second;
  }

  /// The sizes of `result` (of a static size where its type says so).
  void set(Value result, Dims d, DenseMap<Value, Dims> &dims) {
    Dims typed = fromType(result);
    if (typed.size() == d.size())
      for (auto [i, t] : llvm::enumerate(typed))
        if (!t)
          typed[i] = d[i];
    dims[result] = typed;
  }

  OpFoldResult product(ArrayRef<OpFoldResult> ds) {
    OpFoldResult p = b.getIndexAttr(1);
    for (OpFoldResult d : ds) {
      if (!d)
        return {};
      auto cp = getConstantIntValue(p), cd = getConstantIntValue(d);
      if (cp && cd)
        p = b.getIndexAttr(*cp * *cd);
      else
        p = arith::MulIOp::create(b, loc, value(p), value(d)).getResult();
    }
    return p;
  }

  /// numpy broadcasting: per result dimension, every operand dimension that
  /// is not a stretched 1 must have the result's size.
  Dims broadcast(Operation *op, DenseMap<Value, Dims> &dims) {
    auto rt = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = rt.getRank();
    Dims out(rank);
    for (int64_t i = 0; i < rank; ++i) {
      SmallVector<OpFoldResult> sizes;
      for (Value operand : op->getOperands()) {
        auto ot = dyn_cast<RankedTensorType>(operand.getType());
        if (!ot)
          continue;
        int64_t j = i - (rank - ot.getRank());
        if (j < 0 || ot.getDimSize(j) == 1)
          continue;
        if (OpFoldResult d = get(operand, dims)[j])
          sizes.push_back(d);
      }
      OpFoldResult rep = !rt.isDynamicDim(i) ? b.getIndexAttr(rt.getDimSize(i))
                         : sizes.empty()     ? OpFoldResult()
                                             : sizes.front();
      for (OpFoldResult s : sizes)
        requireEq(s, rep);
      out[i] = rep;
    }
    return out;
  }

  void visit(Operation *op, DenseMap<Value, Dims> &dims) {
    if (auto fused = dyn_cast<FusedOp>(op)) {
      Block &body = fused.getBody().front();
      for (auto [arg, input] :
           llvm::zip(body.getArguments(), fused.getInputs()))
        dims[arg] = get(input, dims);
      for (auto [result, d] : llvm::zip(op->getResults(), walk(body, dims)))
        set(result, d, dims);
      return;
    }
    if (auto call = dyn_cast<CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, call.getCalleeAttr());
      if (!callee || callee.isExternal())
        return;
      Block &body = callee.getBody().front();
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), call.getOperands()))
        dims[arg] = get(operand, dims);
      for (auto [result, d] : llvm::zip(op->getResults(), walk(body, dims)))
        set(result, d, dims);
      return;
    }
    if (op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return; // no sizes to know (tuples are simplified away before this)
    Value result = op->getResult(0);
    auto operandDims = [&](unsigned i) { return get(op->getOperand(i), dims); };
    if (isPointwise(op))
      return set(result, broadcast(op, dims), dims);
    if (isa<SumOp, MeanOp, ReduceMaxOp, ReduceMinOp>(op)) {
      Dims in = operandDims(0), out;
      auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
      for (auto [d, size] : llvm::enumerate(in))
        if (axes && !llvm::is_contained(axes.asArrayRef(), (int64_t)d))
          out.push_back(size);
      return set(result, out, dims);
    }
    if (isa<MatmulOp>(op)) {
      Dims a = operandDims(0), w = operandDims(1);
      requireEq(a[1], w[0]);
      return set(result, {a[0], w[1]}, dims);
    }
    if (auto conv = dyn_cast<Conv1DOp>(op)) {
      Dims x = operandDims(0), w = operandDims(1);
      requireEq(x[1], w[1]);
      requireCmp(arith::CmpIPredicate::sge, x[0], w[0]);
      OpFoldResult length;
      if (x[0] && w[0]) {
        Value n = arith::SubIOp::create(b, loc, value(x[0]), value(w[0]));
        n = arith::DivSIOp::create(b, loc, n, index(conv.getStride()));
        length = arith::AddIOp::create(b, loc, n, index(1)).getResult();
      }
      return set(result, {length, w[2]}, dims);
    }
    if (isa<Conv1DInputGradOp, Conv1DFilterGradOp>(op))
      return set(result, operandDims(2), dims); // of operand `like`'s type
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      OpFoldResult count = product(operandDims(0));
      auto rt = cast<RankedTensorType>(result.getType());
      int64_t known = 1, inferred = -1;
      for (auto [i, s] : llvm::enumerate(rt.getShape()))
        if (ShapedType::isDynamic(s))
          inferred = i;
        else
          known *= s;
      Dims out = fromType(result);
      if (inferred < 0) {
        requireEq(count, b.getIndexAttr(known));
      } else if (known == 0) {
        require(arith::ConstantIntOp::create(b, loc, 0, 1));
      } else if (count) {
        Value c = value(count);
        requireEq(arith::RemUIOp::create(b, loc, c, index(known)).getResult(),
                  b.getIndexAttr(0));
        out[inferred] =
            arith::DivUIOp::create(b, loc, c, index(known)).getResult();
      }
      return set(result, out, dims);
    }
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      Dims in = operandDims(0), out;
      for (int64_t p : transpose.getPerm())
        out.push_back(in[p]);
      return set(result, out, dims);
    }
    set(result, fromType(result), dims); // constants
  }

  OpBuilder &b;
  Location loc;
  Value ok;
};

/// A contiguous view of the ABI argument `arg` for the body, and whether
/// `arg` was contiguous already (else the view is a fresh buffer, holding a
/// copy of `arg` when `copyIn`).
std::pair<Value, Value> contiguousView(OpBuilder &b, Location loc, Value arg,
                                       RankedTensorType t, bool copyIn) {
  MemRefType target = contiguousMemRefType(t);
  int64_t rank = t.getRank();
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, arg);
  SmallVector<OpFoldResult> sizes, strides(rank);
  SmallVector<Value> dynSizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (t.isDynamicDim(d)) {
      sizes.push_back(metadata.getSizes()[d]);
      dynSizes.push_back(metadata.getSizes()[d]);
    } else {
      sizes.push_back(b.getIndexAttr(t.getDimSize(d)));
    }
  }
  // Row-major strides from the right; a size-1 dimension's stride is free.
  Value contiguous = arith::ConstantIntOp::create(b, loc, 1, 1);
  OpFoldResult running = b.getIndexAttr(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = running;
    Value size = metadata.getSizes()[d];
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value good = arith::OrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one),
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, metadata.getStrides()[d],
            getValueOrCreateConstantIndexOp(b, loc, running)));
    contiguous = arith::AndIOp::create(b, loc, contiguous, good);
    auto cr = getConstantIntValue(running);
    if (cr && !t.isDynamicDim(d))
      running = b.getIndexAttr(*cr * t.getDimSize(d));
    else
      running =
          arith::MulIOp::create(
              b, loc, getValueOrCreateConstantIndexOp(b, loc, running), size)
              .getResult();
  }
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{target}, contiguous,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value view = memref::ReinterpretCastOp::create(
        b, loc, target, arg, OpFoldResult(metadata.getOffset()), sizes,
        strides);
    scf::YieldOp::create(b, loc, view);
    b.setInsertionPointToStart(ifOp.elseBlock());
    Value copy = memref::AllocOp::create(
        b, loc, MemRefType::get(t.getShape(), t.getElementType()), dynSizes);
    if (copyIn)
      linalg::CopyOp::create(b, loc, arg, copy);
    scf::YieldOp::create(b, loc,
                         Value(memref::CastOp::create(b, loc, target, copy)));
  }
  return {ifOp.getResult(0), contiguous};
}
} // namespace

MemRefType unum::air::contiguousMemRefType(RankedTensorType t) {
  auto layout = StridedLayoutAttr::get(t.getContext(), ShapedType::kDynamic,
                                       rowMajorStrides(t.getShape()));
  return MemRefType::get(t.getShape(), t.getElementType(), layout);
}

void unum::air::createAbiEntry(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  Location loc = func.getLoc();
  std::string name = func.getName().str();
  FunctionType type = func.getFunctionType();
  SmallVector<RankedTensorType> tensors;
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    tensors.push_back(cast<RankedTensorType>(t));
  SmallVector<Type> argTypes;
  for (RankedTensorType t : tensors)
    argTypes.push_back(abiMemRefType(t));

  OpBuilder b(ctx);
  b.setInsertionPoint(func);
  auto entry = func::FuncOp::create(
      b, loc, name,
      FunctionType::get(ctx, argTypes, {IntegerType::get(ctx, 32)}));
  entry->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  unsigned numInputs = type.getNumInputs();
  for (unsigned i = 0; i < tensors.size(); ++i) {
    StringAttr argName =
        i < numInputs
            ? func.getArgAttrOfType<StringAttr>(i, "air.name")
            : b.getStringAttr("result" + std::to_string(i - numInputs));
    if (argName)
      entry.setArgAttr(i, "air.name", argName);
  }
  func.setName(abiBodyName(name));
  func.setPrivate();

  Block *block = entry.addEntryBlock();
  b.setInsertionPointToStart(block);
  SizeChecks checks(b, loc);
  // Every descriptor size, static ones checked against the signature.
  SmallVector<Dims> argDims;
  for (auto [arg, t] : llvm::zip(block->getArguments(), tensors)) {
    Dims d;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      OpFoldResult size = memref::DimOp::create(b, loc, arg, i).getResult();
      if (!t.isDynamicDim(i)) {
        checks.requireEq(size, b.getIndexAttr(t.getDimSize(i)));
        size = b.getIndexAttr(t.getDimSize(i));
      }
      d.push_back(size);
    }
    argDims.push_back(d);
  }
  // What the program needs, and the outputs against the results.
  DenseMap<Value, Dims> dims;
  Block &body = func.getBody().front();
  for (auto [arg, d] : llvm::zip(body.getArguments(), argDims))
    dims[arg] = d;
  SmallVector<Dims> resultDims = checks.walk(body, dims);
  for (unsigned r = 0; r < resultDims.size(); ++r) {
    Value out = block->getArgument(numInputs + r);
    for (auto [i, size] : llvm::enumerate(resultDims[r]))
      checks.requireEq(memref::DimOp::create(b, loc, out, i).getResult(), size);
  }
  Value ok = checks.all();
  Value status = arith::SelectOp::create(
      b, loc, ok, arith::ConstantIntOp::create(b, loc, 0, 32),
      arith::ConstantIntOp::create(b, loc, 1, 32));
  auto run = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/false);
  b.setInsertionPointToStart(run.thenBlock());
  SmallVector<Value> views, contiguous;
  for (auto [i, arg] : llvm::enumerate(block->getArguments())) {
    auto [view, isContiguous] =
        contiguousView(b, loc, arg, tensors[i], /*copyIn=*/i < numInputs);
    views.push_back(view);
    contiguous.push_back(isContiguous);
  }
  func::CallOp::create(b, loc, func.getName(), TypeRange{}, views);
  // Outputs written through a temporary go out to the caller's layout.
  for (unsigned i = numInputs; i < views.size(); ++i) {
    Value strided = arith::XOrIOp::create(
        b, loc, contiguous[i], arith::ConstantIntOp::create(b, loc, 1, 1));
    auto copyOut = scf::IfOp::create(b, loc, strided, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(copyOut.thenBlock());
    linalg::CopyOp::create(b, loc, views[i], block->getArgument(i));
  }
  b.setInsertionPointToEnd(block);
  func::ReturnOp::create(b, loc, status);
}
