//===- MatmulNest.cpp - packed, blocked matmul for air-vectorize ----------===//
//
// The Goto/BLIS loop nest for C(M, N) += A(M, K) B(K, N) on buffers whose
// last dimension is contiguous, any static or dynamic sizes:
//
//   for item in [0, T)                 (scf.parallel with T threads > 1)
//    for jc in item's columns step NC         B panel of KC x NC (L3)
//     for pc in [0, K) step KC
//       pack B[pc:+KC, jc:+NC] into NR-wide slivers, k-major, zero-padded
//       for ic in item's rows step MC         M blocks, balanced
//         pack A[ic:+MC, pc:+KC] into MR-tall slivers, k-major, zero-padded
//         for jr in [0, nc) step NR            B sliver KC x NR (L1)
//           for ir in [0, mc) step MR          A sliver MR x KC (L2)
//             acc = first k block ? fill value : C tile
//             for k in [0, kc): acc[r] += A[r, k] * B[k, :]   (MR FMAs)
//             store acc (or the epilogue of acc, after the last k block)
//
// With T threads each item is one thread's share: a range of M rows
// (rounded to MR), or, with fewer than 2 T MR-row slivers, a range of N
// columns (rounded to NR); every item packs its own A and B into its own
// slices of the buffers. One fork per call.
//
// Edge tiles are computed in full from the padded panels (still vectors)
// and only their loads and stores of C are masked (rows by a branch each,
// columns by a vector mask), so no shape falls back to scalar code. The
// packing buffers are allocated once per call. An elementwise tail that
// reads C (bias, relu, scaling, ...) is applied to the register tile before
// its last store, writing its own output directly; C then holds only the
// partial sums of earlier k blocks.
//
//===----------------------------------------------------------------------===//
#include "MatmulNest.h"
#include "Parallel.h"
#include "VectorBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

bool unum::air::contiguousLast(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type)
    return false;
  if (type.getRank() == 0)
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

namespace {
using unum::air::contiguousLast;

/// The buffer `v` is a view of.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      v = cast.getSource();
      continue;
    }
    break;
  }
  return v;
}

/// A buffer no other value of the function aliases: an allocation or a
/// `llvm.noalias` argument.
bool isFreshBuffer(Value root) {
  if (isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(root.getDefiningOp()))
    return true;
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return false;
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return func && func.getArgAttr(arg.getArgNumber(), "llvm.noalias");
}

bool byteSized(Type t) {
  return t.isIntOrFloat() && t.getIntOrFloatBitWidth() >= 8 &&
         t.getIntOrFloatBitWidth() % 8 == 0;
}

bool isDealloc(Operation *op) {
  return isa<memref::DeallocOp, bufferization::DeallocOp>(op);
}

/// The linalg.fill that initialises the matmul's output: C is a fresh
/// allocation, the fill is in the matmul's block before it, and nothing else
/// touches C before the matmul.
linalg::FillOp findFill(linalg::GenericOp matmul) {
  Value c = matmul.getDpsInits()[0];
  if (!isa_and_nonnull<memref::AllocOp>(c.getDefiningOp()))
    return {};
  linalg::FillOp fill;
  Block *block = matmul->getBlock();
  for (Operation *user : c.getUsers()) {
    if (user == matmul.getOperation())
      continue;
    Operation *at = block->findAncestorOpInBlock(*user);
    if (!at)
      return {};
    if (matmul->isBeforeInBlock(at))
      continue;
    auto f = dyn_cast<linalg::FillOp>(user);
    if (!f || fill || f.getDpsInits()[0] != c || !f.hasPureBufferSemantics())
      return {};
    fill = f;
  }
  return fill;
}

enum class EpilogueRead { Tile, Columns, Rows, Scalar, Value };

/// How the epilogue's operand `operand` is read by a register tile, or
/// failure.
FailureOr<EpilogueRead> classify(linalg::GenericOp op, OpOperand &operand,
                                 Value c) {
  Value v = operand.get();
  AffineMap map = op.getMatchingIndexingMap(&operand);
  MLIRContext *ctx = op.getContext();
  if (v == c) {
    if (!map.isIdentity())
      return failure();
    return EpilogueRead::Tile;
  }
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type)
    return EpilogueRead::Value;
  if (!byteSized(type.getElementType()) || !contiguousLast(v))
    return failure();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  if (map.isIdentity())
    return EpilogueRead::Tile;
  if (map == AffineMap::get(2, 0, {d1}, ctx))
    return EpilogueRead::Columns;
  if (map == AffineMap::get(2, 0, {d0}, ctx))
    return EpilogueRead::Rows;
  if (map.getNumResults() == 0)
    return EpilogueRead::Scalar;
  return failure();
}
} // namespace

linalg::GenericOp unum::air::findMatmulEpilogue(linalg::GenericOp matmul) {
  linalg::FillOp fill = findFill(matmul);
  if (!fill)
    return {};
  Value c = matmul.getDpsInits()[0];
  auto next = dyn_cast_or_null<linalg::GenericOp>(matmul->getNextNode());
  if (!next || !next.hasPureBufferSemantics() || next.getNumLoops() != 2 ||
      next.getNumDpsInits() != 1 || next.getNumParallelLoops() != 2)
    return {};
  // C is read by the epilogue alone (then freed).
  for (Operation *user : c.getUsers())
    if (user != matmul.getOperation() && user != next.getOperation() &&
        user != fill.getOperation() && !isDealloc(user))
      return {};
  Value d = next.getDpsInits()[0];
  auto dType = dyn_cast<MemRefType>(d.getType());
  if (!dType || d == c || !byteSized(dType.getElementType()) ||
      !contiguousLast(d) ||
      !next.getMatchingIndexingMap(&next.getDpsInitsMutable()[0]).isIdentity())
    return {};
  // D is written while A and B are still read: it must alias neither.
  Value dRoot = rootOf(d);
  if (!isFreshBuffer(dRoot) || dRoot == rootOf(matmul.getDpsInputs()[0]) ||
      dRoot == rootOf(matmul.getDpsInputs()[1]))
    return {};
  int tiles = 0;
  for (OpOperand *in : next.getDpsInputOperands()) {
    FailureOr<EpilogueRead> read = classify(next, *in, c);
    if (failed(read))
      return {};
    if (in->get() == c)
      ++tiles;
    else if (isa<MemRefType>(in->get().getType()) && rootOf(in->get()) == dRoot)
      return {};
  }
  if (tiles != 1)
    return {};
  Block *body = next.getBody();
  if (!body->getArgument(body->getNumArguments() - 1).use_empty())
    return {};
  for (Operation &inner : body->without_terminator()) {
    bool constant =
        inner.getNumOperands() == 0 && inner.hasTrait<OpTrait::ConstantLike>();
    if (inner.getNumResults() != 1 || inner.getNumRegions() != 0 ||
        (!constant && !(inner.hasTrait<OpTrait::Elementwise>() &&
                        inner.hasTrait<OpTrait::Vectorizable>())))
      return {};
    for (Type t : inner.getResultTypes())
      if (!t.isIntOrFloat())
        return {};
  }
  return next;
}

namespace {
/// Builds the nest at the matmul's place.
class NestBuilder {
public:
  NestBuilder(RewriterBase &b, linalg::GenericOp matmul,
              linalg::GenericOp epilogue, linalg::FillOp fill,
              const unum::air::MatmulTarget &target)
      : b(b), loc(matmul.getLoc()), matmul(matmul), epilogue(epilogue),
        fill(fill), target(target) {
    a = matmul.getDpsInputs()[0];
    bMat = matmul.getDpsInputs()[1];
    c = matmul.getDpsInits()[0];
    t = getElementTypeOrSelf(c.getType());
    lanes = std::max<int64_t>(1, target.vectorBits / t.getIntOrFloatBitWidth());
    nr = 2 * lanes;
    // MR rows of two-register accumulators, the B row (two registers) and
    // a broadcast A element in what is left.
    mr = std::max<int64_t>(1, (target.registers - 4) / 2);
    // A B sliver (KC x NR) in half of a 32 KB L1, an A block (MC x KC) in
    // a quarter of a 512 KB-1 MB L2, a B panel (KC x NC) of ~4 MB in L3.
    int64_t bytes = t.getIntOrFloatBitWidth() / 8;
    kc = std::clamp<int64_t>(16384 / (nr * bytes), 128, 512);
    mc = mr * std::max<int64_t>(1, (144 * 1024) / (kc * bytes * mr));
    nc = nr * std::max<int64_t>(1, (4 << 20) / (kc * bytes * nr));
    rowType = VectorType::get({nr}, t);
    maskType = VectorType::get({nr}, b.getI1Type());
  }

  LogicalResult build();

private:
  // Index arithmetic.
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value ceilDiv(Value x, int64_t m) { return div(add(x, cst(m - 1)), cst(m)); }
  Value roundUp(Value x, int64_t m) { return mul(ceilDiv(x, m), cst(m)); }
  Value ceilDiv(Value x, Value m) { return div(sub(add(x, m), cst(1)), m); }
  Value dim(Value v, int64_t d) {
    return b.createOrFold<memref::DimOp>(loc, v, d);
  }

  scf::ForOp forLoop(Value lb, Value ub, Value step,
                     function_ref<void(Value)> body) {
    return scf::ForOp::create(b, loc, lb, ub, step, ValueRange{},
                              [&](OpBuilder &, Location, Value iv, ValueRange) {
                                body(iv);
                                scf::YieldOp::create(b, loc);
                              });
  }
  /// Shared by the threads when the call has enough work (Parallel.h).
  void parallelLoop(Value ub, function_ref<void(Value)> body) {
    scf::ForOp loop = forLoop(cst(0), ub, cst(1), body);
    unum::air::parallelize(b, loop, target.threads, useThreads);
  }
  void ifThen(Value cond, function_ref<void()> then,
              function_ref<void()> otherwise = nullptr) {
    auto op = scf::IfOp::create(b, loc, cond, static_cast<bool>(otherwise));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    then();
    if (otherwise) {
      b.setInsertionPointToStart(&op.getElseRegion().front());
      otherwise();
    }
  }
  SmallVector<Value> ifValues(Value cond, TypeRange types,
                              function_ref<SmallVector<Value>()> then,
                              function_ref<SmallVector<Value>()> otherwise) {
    auto op = scf::IfOp::create(b, loc, types, cond, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    scf::YieldOp::create(b, loc, then());
    b.setInsertionPointToStart(&op.getElseRegion().front());
    scf::YieldOp::create(b, loc, otherwise());
    return SmallVector<Value>(op.getResults());
  }

  Value zeroVector(VectorType type) {
    return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  }
  /// The first `n` (clamped to [0, NR]) lanes.
  Value columnMask(Value n) {
    n = max(cst(0), min(n, cst(nr)));
    return vector::CreateMaskOp::create(b, loc, maskType,
                                        ArrayRef<OpFoldResult>{n});
  }
  /// A row segment of `type` at (indices), masked by `mask` when not null.
  Value loadRow(Value mem, ValueRange indices, VectorType type, Value mask) {
    if (!mask)
      return vector::LoadOp::create(b, loc, type, mem, indices);
    return vector::MaskedLoadOp::create(b, loc, type, mem, indices, mask,
                                        zeroVector(type));
  }
  void storeRow(Value value, Value mem, ValueRange indices, Value mask) {
    if (!mask)
      vector::StoreOp::create(b, loc, value, mem, indices);
    else
      vector::MaskedStoreOp::create(b, loc, mem, indices, mask, value);
  }

  void packB(Value bpack, Value bbase, Value jc, Value ncur, Value pc,
             Value kcur, Value sLo = nullptr, Value sHi = nullptr);
  void sharedPanelNest(Value items, Value mcE, Value bpack, Value bpanel,
                       Value apack, Value apackSize);
  /// An OpenMP worksharing loop over [0, ub) (static schedule: iteration i
  /// runs on the same thread in every such loop of a parallel region).
  void workshare(Value ub, bool nowait, function_ref<void(Value)> body);
  void packA(Value apack, Value abase, Value ic, Value mcur, Value pc,
             Value kcur);
  void tile(Value apack, Value aoff, Value bpack, Value boff, Value i0,
            Value j0, Value kcur, Value isFirst, Value isLast);
  SmallVector<Value> loadTile(Value i0, Value j0, Value rows, Value mask);
  void storeTile(ArrayRef<Value> acc, Value i0, Value j0, Value rows,
                 Value mask, Value isLast);
  Value applyEpilogue(Value acc, Value row, Value j0, Value mask,
                      DenseMap<Value, Value> &perTile);

  RewriterBase &b;
  Location loc;
  linalg::GenericOp matmul, epilogue;
  linalg::FillOp fill;
  unum::air::MatmulTarget target;
  Value a, bMat, c, m, n, k;
  /// The call has enough multiply-adds for the threads (i1).
  Value useThreads;
  Type t;
  int64_t lanes, nr, mr, kc, mc, nc;
  VectorType rowType, maskType;
};

LogicalResult NestBuilder::build() {
  b.setInsertionPoint(matmul);
  m = dim(a, 0);
  k = dim(a, 1);
  n = dim(bMat, 1);
  if (target.threads > 1)
    useThreads =
        unum::air::enoughWork(b, loc, unum::air::product(b, loc, {m, n, k}),
                              unum::air::kMinParallelMacs);
  // An empty k: C keeps its fill (and gets its epilogue) the plain way.
  if (fill || epilogue) {
    auto empty =
        scf::IfOp::create(b, loc, cmp(arith::CmpIPredicate::eq, k, cst(0)),
                          /*withElse=*/false);
    Operation *yield = empty.thenBlock()->getTerminator();
    if (fill)
      fill->moveBefore(yield);
    if (epilogue)
      epilogue->moveBefore(yield);
    b.setInsertionPoint(matmul);
  }
  Value kcA = min(k, cst(kc));
  // The threads share one loop over `items`, each item a whole Goto/BLIS
  // nest over its own rows (or columns) of C with its own packed A and B:
  // one fork per call, no barrier between k blocks, and the B panel an
  // item reads is the one its thread packed (in its own L2). Items are
  // ranges of M rows rounded to MR; with fewer than two MR-row slivers per
  // thread (M <= MR would leave a thread idle, M = MR + 1 would give one
  // thread MR rows and the other 1), or when that balances the tiles
  // better, ranges of N columns rounded to NR instead. Each thread then packs
  // all of B (or all of A) once per call for its share: a copy per element
  // against M / threads (N / threads) multiply-adds of it, a few percent at n =
  // 256. Rows (mrows) and columns (ncols) of an item.
  Value items = cst(1), few;
  Value mrows = m, ncols = n;
  if (target.threads > 1) {
    // One item when the call is too small for the threads: the serial loop
    // (Parallel.h) is then the one-thread nest, not T nests in a row.
    items = b.createOrFold<arith::SelectOp>(loc, useThreads,
                                            cst(target.threads), cst(1));
    // Columns when M has fewer than 2 T slivers, or when sharing the rows
    // leaves the busiest thread over 1/8 more tiles than sharing the
    // columns would (M = 30, N = 512: 3 + 2 row slivers against 16 + 16
    // column slivers); rows otherwise, which packs A once.
    Value sm = ceilDiv(m, mr), sn = ceilDiv(n, nr);
    Value byRows = mul(ceilDiv(m, mul(items, cst(mr))), sn);
    Value byCols = mul(ceilDiv(n, mul(items, cst(nr))), sm);
    few = b.createOrFold<arith::OrIOp>(
        loc,
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, sm,
                                      mul(items, cst(2))),
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt,
                                      mul(byRows, cst(8)),
                                      mul(byCols, cst(9))));
    mrows = b.createOrFold<arith::SelectOp>(loc, few, m,
                                            roundUp(ceilDiv(m, items), mr));
    ncols = b.createOrFold<arith::SelectOp>(loc, few,
                                            roundUp(ceilDiv(n, items), nr), n);
  }
  Value ncA = min(roundUp(ncols, nr), cst(nc));
  // M blocks of an item: as few as MC allows, balanced.
  Value mcE = roundUp(ceilDiv(mrows, max(cst(1), ceilDiv(mrows, mc))), mr);
  auto flat = MemRefType::get({ShapedType::kDynamic}, t);
  // Cache-line aligned: the B sliver rows (NR elements) of the micro-kernel
  // then never straddle two lines. One slice per item.
  IntegerAttr align = b.getI64IntegerAttr(64);
  Value bpackSize = mul(kcA, ncA), apackSize = mul(mcE, kcA);
  Value bpack = memref::AllocOp::create(
      b, loc, flat, ValueRange{mul(bpackSize, items)}, align);
  Value apack = memref::AllocOp::create(
      b, loc, flat, ValueRange{mul(apackSize, items)}, align);
  auto nest = [&](Value item) {
    Value mlo = cst(0), mhi = m, nlo = cst(0), nhi = n;
    if (few) {
      mlo = b.createOrFold<arith::SelectOp>(loc, few, cst(0),
                                            min(m, mul(item, mrows)));
      mhi = min(m, add(mlo, mrows));
      nlo = b.createOrFold<arith::SelectOp>(loc, few, min(n, mul(item, ncols)),
                                            cst(0));
      nhi = min(n, add(nlo, ncols));
    }
    Value bbase = mul(item, bpackSize), abase = mul(item, apackSize);
    // Rows (columns) rounded to MR (NR) can leave the last items empty.
    Value some =
        arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::slt, mlo, mhi),
                              cmp(arith::CmpIPredicate::slt, nlo, nhi));
    ifThen(some, [&] {
      forLoop(nlo, nhi, cst(nc), [&](Value jc) {
        Value ncur = min(cst(nc), sub(nhi, jc));
        forLoop(cst(0), k, cst(kc), [&](Value pc) {
          Value kcur = min(cst(kc), sub(k, pc));
          Value isFirst = cmp(arith::CmpIPredicate::eq, pc, cst(0));
          Value isLast = cmp(arith::CmpIPredicate::eq, add(pc, kcur), k);
          packB(bpack, bbase, jc, ncur, pc, kcur);
          forLoop(mlo, mhi, mcE, [&](Value ic) {
            Value mcur = min(mcE, sub(mhi, ic));
            packA(apack, abase, ic, mcur, pc, kcur);
            forLoop(cst(0), ncur, cst(nr), [&](Value jr) {
              forLoop(cst(0), mcur, cst(mr), [&](Value ir) {
                tile(apack, add(abase, mul(ir, kcur)), bpack,
                     add(bbase, mul(jr, kcur)), add(ic, ir), add(jc, jr), kcur,
                     isFirst, isLast);
              });
            });
          });
        });
      });
    });
  };
  if (target.threads > 1) {
    // Few rows and one panel of columns: the threads share each B block
    // (sharedPanelNest). The double-buffered panel fits in the T slices.
    Value notFew = b.createOrFold<arith::XOrIOp>(
        loc, few, arith::ConstantIntOp::create(b, loc, 1, 1));
    Value shared = b.createOrFold<arith::AndIOp>(
        loc, b.createOrFold<arith::AndIOp>(loc, useThreads, notFew),
        b.createOrFold<arith::AndIOp>(
            loc,
            b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, n,
                                          cst(nc)),
            b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, m,
                                          cst(unum::air::kSharedPanelRows))));
    auto sharedNest = [&] {
      sharedPanelNest(items, mcE, bpack, bpackSize, apack, apackSize);
    };
    std::optional<int64_t> known = getConstantIntValue(shared);
    if (known && *known)
      sharedNest();
    else if (known)
      parallelLoop(items, nest);
    else
      ifThen(shared, sharedNest, [&] { parallelLoop(items, nest); });
  } else {
    nest(cst(0));
  }
  memref::DeallocOp::create(b, loc, apack);
  memref::DeallocOp::create(b, loc, bpack);
  b.eraseOp(matmul);
  return success();
}

/// The threads share each KC block of B: one omp.parallel region (one fork
/// per call) in which every thread walks the k blocks, packs its part of
/// the block's slivers into the panel buffer of that block's parity, meets
/// the others at the packing loop's barrier, then runs its tiles (item i:
/// the i-th of T equal ranges of MR x NR tiles in row-major order, with its
/// own A slice) without waiting: a thread packs block p + 1 into the other
/// buffer while another may still read block p, and block p + 2 is packed only
/// after the barrier of block p + 1, which every thread reaches after its tiles
/// of block p. Item i runs on the same thread in every block (static schedule),
/// so a thread reads back only the C rows it wrote. Any team size is correct
/// (one thread runs every item in turn). Each element of C is computed as in
/// the one-thread nest: bit-identical results.
void NestBuilder::sharedPanelNest(Value items, Value mcE, Value bpack,
                                  Value bpanel, Value apack, Value apackSize) {
  omp::ParallelOperands clauses;
  clauses.numThreads = arith::ConstantIntOp::create(b, loc, target.threads, 32);
  auto par = omp::ParallelOp::create(b, loc, clauses);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&par.getRegion());
  auto end = omp::TerminatorOp::create(b, loc);
  b.setInsertionPoint(end);
  Value slivers = ceilDiv(n, nr);
  Value per = ceilDiv(slivers, items);
  Value tiles = mul(ceilDiv(m, mr), slivers);
  Value perItem = ceilDiv(tiles, items);
  forLoop(cst(0), k, cst(kc), [&](Value pc) {
    Value kcur = min(cst(kc), sub(k, pc));
    Value isFirst = cmp(arith::CmpIPredicate::eq, pc, cst(0));
    Value isLast = cmp(arith::CmpIPredicate::eq, add(pc, kcur), k);
    Value parity =
        arith::RemUIOp::create(b, loc, div(pc, cst(kc)), cst(2)).getResult();
    Value bbase = mul(parity, bpanel);
    workshare(items, /*nowait=*/false, [&](Value item) {
      Value lo = min(slivers, mul(item, per));
      packB(bpack, bbase, cst(0), n, pc, kcur, lo, min(slivers, add(lo, per)));
    });
    workshare(items, /*nowait=*/true, [&](Value item) {
      // Tiles t = row sliver * slivers + column sliver, in equal ranges:
      // the row sliver on the boundary is shared by columns (each packs
      // its MR rows of A), so the threads' tiles differ by at most one.
      Value lo = min(tiles, mul(item, perItem));
      Value hi = min(tiles, add(lo, perItem));
      Value rlo = mul(div(lo, slivers), cst(mr));
      Value rhi = min(m, mul(ceilDiv(hi, slivers), cst(mr)));
      Value abase = mul(item, apackSize);
      forLoop(rlo, rhi, mcE, [&](Value ic) {
        Value mcur = min(mcE, sub(rhi, ic));
        packA(apack, abase, ic, mcur, pc, kcur);
        forLoop(cst(0), n, cst(nr), [&](Value jr) {
          forLoop(cst(0), mcur, cst(mr), [&](Value ir) {
            Value at =
                add(mul(div(add(ic, ir), cst(mr)), slivers), div(jr, cst(nr)));
            Value mine = arith::AndIOp::create(
                b, loc, cmp(arith::CmpIPredicate::sge, at, lo),
                cmp(arith::CmpIPredicate::slt, at, hi));
            ifThen(mine, [&] {
              tile(apack, add(abase, mul(ir, kcur)), bpack,
                   add(bbase, mul(jr, kcur)), add(ic, ir), jr, kcur, isFirst,
                   isLast);
            });
          });
        });
      });
    });
  });
}

void NestBuilder::workshare(Value ub, bool nowait,
                            function_ref<void(Value)> body) {
  omp::LoopNestOperands bounds;
  bounds.loopLowerBounds = {cst(0)};
  bounds.loopUpperBounds = {ub};
  bounds.loopSteps = {cst(1)};
  omp::WsloopOperands clauses;
  clauses.scheduleKind = omp::ClauseScheduleKindAttr::get(
      b.getContext(), omp::ClauseScheduleKind::Static);
  if (nowait)
    clauses.nowait = b.getUnitAttr();
  auto loop = omp::WsloopOp::create(b, loc, clauses);
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&loop.getRegion());
  auto nest = omp::LoopNestOp::create(b, loc, bounds);
  Block *inner =
      b.createBlock(&nest.getRegion(), {}, {b.getIndexType()}, {loc});
  auto yield = omp::YieldOp::create(b, loc, ValueRange{});
  b.setInsertionPoint(yield);
  body(inner->getArgument(0));
}

/// B[pc:+kcur, jc:+ncur] -> slivers of NR columns, each kcur x NR k-major
/// at bbase + s * kcur * NR; columns past N are zeros. Only slivers [sLo,
/// sHi) when given (a thread's part of a shared panel).
void NestBuilder::packB(Value bpack, Value bbase, Value jc, Value ncur,
                        Value pc, Value kcur, Value sLo, Value sHi) {
  if (!sLo) {
    sLo = cst(0);
    sHi = ceilDiv(ncur, nr);
  }
  forLoop(sLo, sHi, cst(1), [&](Value s) {
    Value col = add(jc, mul(s, cst(nr)));
    Value cols = sub(n, col);
    Value base = add(bbase, mul(mul(s, kcur), cst(nr)));
    auto copy = [&](Value mask) {
      forLoop(cst(0), kcur, cst(1), [&](Value kk) {
        Value row = loadRow(bMat, {add(pc, kk), col}, rowType, mask);
        storeRow(row, bpack, {add(base, mul(kk, cst(nr)))}, nullptr);
      });
    };
    ifThen(
        cmp(arith::CmpIPredicate::sge, cols, cst(nr)), [&] { copy(nullptr); },
        [&] { copy(columnMask(cols)); });
  });
}

/// A[ic:+mcur, pc:+kcur] -> slivers of MR rows, each kcur x MR k-major at
/// abase + s * kcur * MR; rows past M are zeros.
void NestBuilder::packA(Value apack, Value abase, Value ic, Value mcur,
                        Value pc, Value kcur) {
  Value zero = arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
  Value last = sub(m, cst(1));
  forLoop(cst(0), ceilDiv(mcur, mr), cst(1), [&](Value s) {
    Value row0 = add(ic, mul(s, cst(mr)));
    Value base = add(abase, mul(mul(s, kcur), cst(mr)));
    SmallVector<Value> rows, valid;
    for (int64_t r = 0; r < mr; ++r) {
      Value row = add(row0, cst(r));
      valid.push_back(cmp(arith::CmpIPredicate::slt, row, m));
      rows.push_back(min(row, last));
    }
    forLoop(cst(0), kcur, cst(1), [&](Value kk) {
      Value col = add(pc, kk);
      Value at = add(base, mul(kk, cst(mr)));
      for (int64_t r = 0; r < mr; ++r) {
        Value v = memref::LoadOp::create(b, loc, a, ValueRange{rows[r], col});
        v = arith::SelectOp::create(b, loc, valid[r], v, zero);
        memref::StoreOp::create(b, loc, v, apack, ValueRange{add(at, cst(r))});
      }
    });
  });
}

SmallVector<Value> NestBuilder::loadTile(Value i0, Value j0, Value rows,
                                         Value mask) {
  SmallVector<Value> acc;
  for (int64_t r = 0; r < mr; ++r) {
    Value row = add(i0, cst(r));
    auto load = [&] {
      return SmallVector<Value>{loadRow(c, {row, j0}, rowType, mask)};
    };
    if (!mask || r == 0)
      acc.push_back(load()[0]);
    else
      acc.push_back(
          ifValues(cmp(arith::CmpIPredicate::slt, cst(r), rows), rowType, load,
                   [&] { return SmallVector<Value>{zeroVector(rowType)}; })[0]);
  }
  return acc;
}

/// The epilogue's body on one row of the register tile.
Value NestBuilder::applyEpilogue(Value acc, Value row, Value j0, Value mask,
                                 DenseMap<Value, Value> &perTile) {
  Block *body = epilogue.getBody();
  IRMapping map;
  auto vectorOf = [&](Type s) { return VectorType::get({nr}, s); };
  auto splat = [&](Value s) { return unum::air::splatLanes(b, loc, s, nr); };
  for (OpOperand *in : epilogue.getDpsInputOperands()) {
    Value v = in->get();
    Value arg = body->getArgument(in->getOperandNumber());
    EpilogueRead read = *classify(epilogue, *in, c);
    Value mapped;
    switch (read) {
    case EpilogueRead::Tile:
      if (v == c) {
        mapped = acc;
        break;
      }
      mapped = loadRow(v, {row, j0}, vectorOf(arg.getType()), mask);
      break;
    case EpilogueRead::Rows:
      mapped = splat(memref::LoadOp::create(b, loc, v, ValueRange{row}));
      break;
    case EpilogueRead::Columns:
    case EpilogueRead::Scalar:
    case EpilogueRead::Value: {
      // The same for every row: loaded once per tile.
      Value &once = perTile[arg];
      if (!once) {
        if (read == EpilogueRead::Columns)
          once = loadRow(v, {j0}, vectorOf(arg.getType()), mask);
        else if (read == EpilogueRead::Scalar)
          once = splat(memref::LoadOp::create(b, loc, v, ValueRange{}));
        else
          once = splat(v);
      }
      mapped = once;
      break;
    }
    }
    map.map(arg, mapped);
  }
  return unum::air::cloneBodyOnVectors(b, loc, body, map, nr,
                                       /*keepFastMath=*/true);
}

void NestBuilder::storeTile(ArrayRef<Value> acc, Value i0, Value j0, Value rows,
                            Value mask, Value isLast) {
  auto store = [&](bool last) {
    DenseMap<Value, Value> perTile;
    for (int64_t r = 0; r < mr; ++r) {
      auto one = [&] {
        Value row = add(i0, cst(r));
        if (!last)
          return storeRow(acc[r], c, {row, j0}, mask);
        Value out = applyEpilogue(acc[r], row, j0, mask, perTile);
        storeRow(out, epilogue.getDpsInits()[0], {row, j0}, mask);
      };
      if (!mask || r == 0)
        one();
      else
        ifThen(cmp(arith::CmpIPredicate::slt, cst(r), rows), one);
    }
  };
  if (!epilogue)
    return store(false);
  ifThen(
      isLast, [&] { store(true); }, [&] { store(false); });
}

void NestBuilder::tile(Value apack, Value aoff, Value bpack, Value boff,
                       Value i0, Value j0, Value kcur, Value isFirst,
                       Value isLast) {
  Value rows = min(cst(mr), sub(m, i0));
  Value cols = min(cst(nr), sub(n, j0));
  Value full = arith::AndIOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, rows, cst(mr)),
      cmp(arith::CmpIPredicate::eq, cols, cst(nr)));
  SmallVector<Type> accTypes(mr, rowType);
  auto load = [&] {
    return ifValues(
        full, accTypes, [&] { return loadTile(i0, j0, rows, nullptr); },
        [&] { return loadTile(i0, j0, rows, columnMask(cols)); });
  };
  SmallVector<Value> init;
  if (fill) {
    init = ifValues(
        isFirst, accTypes,
        [&] {
          Value v =
              vector::BroadcastOp::create(b, loc, rowType, fill.getInputs()[0]);
          return SmallVector<Value>(mr, v);
        },
        load);
  } else {
    init = load();
  }
  bool isFloat = isa<FloatType>(t);
  auto loop = scf::ForOp::create(
      b, loc, cst(0), kcur, cst(1), init,
      [&](OpBuilder &, Location, Value kk, ValueRange acc) {
        Value brow = vector::LoadOp::create(b, loc, rowType, bpack,
                                            {add(boff, mul(kk, cst(nr)))});
        Value at = add(aoff, mul(kk, cst(mr)));
        SmallVector<Value> next;
        for (int64_t r = 0; r < mr; ++r) {
          Value s = memref::LoadOp::create(b, loc, apack,
                                           ValueRange{add(at, cst(r))});
          Value v = vector::BroadcastOp::create(b, loc, rowType, s);
          // fmuladd: fused where the target has FMA (docs/AirABI.md).
          if (isFloat)
            next.push_back(LLVM::FMulAddOp::create(b, loc, v, brow, acc[r]));
          else
            next.push_back(arith::AddIOp::create(
                b, loc, acc[r], arith::MulIOp::create(b, loc, v, brow)));
        }
        scf::YieldOp::create(b, loc, next);
      });
  SmallVector<Value> acc(loop.getResults());
  ifThen(
      full, [&] { storeTile(acc, i0, j0, rows, nullptr, isLast); },
      [&] { storeTile(acc, i0, j0, rows, columnMask(cols), isLast); });
}
} // namespace

LogicalResult unum::air::emitMatmulNest(RewriterBase &rewriter,
                                        linalg::GenericOp matmul,
                                        linalg::GenericOp epilogue,
                                        const MatmulTarget &target) {
  // The body is a multiply-add (isaContractionOpInterface); integer and
  // float element types only.
  Type t = getElementTypeOrSelf(matmul.getDpsInits()[0].getType());
  if (!byteSized(t))
    return failure();
  NestBuilder nest(rewriter, matmul, epilogue, findFill(matmul), target);
  return nest.build();
}
