//===- ExpandMath.cpp - air-expand-math -----------------------------------===//
//
// f32 `math.exp` and `math.log` (scalars and vectors) as branch-free
// polynomials, vectorisable like any arithmetic, within 1 ulp of the
// correctly rounded result over the whole f32 range, subnormals included
// (checked against a double-precision reference by
// test/python/test_math_accuracy.py):
//
// exp(x): k = round(x / ln 2) (the 1.5 * 2^23 trick: round to nearest even
//   in any SSE level), r = x - k ln 2 in two parts by FMAs (Cody-Waite:
//   k * hi is exact), |r| <= ln 2 / 2, exp(r) by its degree-7 Taylor
//   polynomial as 1 + (r + r^2 q(r)), then scaled by 2^k as two powers of
//   two 2^(k/2) 2^(k - k/2) made from the rounding sum's bits by shifts (no
//   float-to-int conversion), both normal numbers: the result is rounded once,
//   so overflow gives +inf, the subnormal range (down to e^-103.97) keeps its
//   bits and below it the result is 0. x is clamped to [-104, 89] first (NaN
//   passes through).
// log(x): a subnormal x is scaled by 2^23 (its exponent adjusted), then
//   x = m 2^e with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), and
//   log(x) = f - f^2 / 2 + f^3 P(f) + e ln 2 (Cephes' logf polynomial, ln 2
//   in two parts). log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf.
//
// Polynomial steps are math.fma (one instruction with FMA; on a CPU
// without FMA a call of fmaf, correct but slow), except exp's last step
// (fused it measured 1.03 ulp). Other element types keep MLIR's lowering
// (f64: the C library).
//
//===----------------------------------------------------------------------===//
#include "unum/Dialect/Air/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace unum::air {
#define GEN_PASS_DEF_AIREXPANDMATH
#include "unum/Dialect/Air/Transforms/Passes.h.inc"
} // namespace unum::air

using namespace mlir;

namespace {
/// Constants and arithmetic of the shape of `like` (f32 or vector of f32),
/// and its i32 counterpart.
class F32Math {
public:
  F32Math(ImplicitLocOpBuilder &b, Type like) : b(b) {
    f = like;
    auto vec = dyn_cast<VectorType>(like);
    i = vec ? Type(vec.clone(b.getI32Type())) : Type(b.getI32Type());
    i1 = vec ? Type(vec.clone(b.getI1Type())) : Type(b.getI1Type());
  }

  Value c(float v) { return constant(f, b.getF32FloatAttr(v)); }
  Value ci(int32_t v) { return constant(i, b.getI32IntegerAttr(v)); }
  Value add(Value x, Value y) { return b.create<arith::AddFOp>(x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(x, y); }
  /// x * y + z as math.fma (one instruction on CPUs with FMA, as MLIR's
  /// own approximations do; the accuracy test measures the fused form).
  Value mad(Value x, Value y, Value z) {
    return b.create<math::FmaOp>(x, y, z);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return b.create<arith::CmpFOp>(p, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return b.create<arith::SelectOp>(cond, x, y);
  }
  Value bitsOf(Value x) { return b.create<arith::BitcastOp>(i, x); }
  Value fromBits(Value x) { return b.create<arith::BitcastOp>(f, x); }
  /// Horner: ((c[0] x + c[1]) x + ...) + c[n-1].
  Value horner(Value x, ArrayRef<float> coeffs) {
    Value acc = c(coeffs.front());
    for (float k : coeffs.drop_front())
      acc = mad(acc, x, c(k));
    return acc;
  }

  ImplicitLocOpBuilder &b;
  Type f, i, i1;

private:
  Value constant(Type type, TypedAttr scalar) {
    if (auto vec = dyn_cast<VectorType>(type))
      return b.create<arith::ConstantOp>(
          type, DenseElementsAttr::get(vec, ArrayRef<Attribute>{scalar}));
    return b.create<arith::ConstantOp>(type, scalar);
  }
};

bool isF32(Type t) { return getElementTypeOrSelf(t).isF32(); }

struct ExpandExp : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF32(op.getType()))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    F32Math m(b, op.getType());
    Value x = op.getOperand();
    // Clamp: exp(89) overflows, exp(-104) rounds to 0. A compare and a
    // select each (NaN compares false and stays NaN), cheaper than
    // arith.maximumf's NaN and signed-zero handling.
    using P = arith::CmpFPredicate;
    Value lo = m.c(-104.0f), hi = m.c(89.0f);
    Value xc = m.select(m.cmp(P::OLT, x, lo), lo, x);
    xc = m.select(m.cmp(P::OGT, xc, hi), hi, xc);
    // k = round-to-nearest-even(x / ln 2), read twice from t = x / ln 2 +
    // 1.5 * 2^23 + 254 (one FMA, rounded to an integer: its ulp is 1): as
    // the float kf = t - magic (exact), and from t's bits, whose low 9 bits
    // are K = k + 254 in [104, 383] (above them, those of 1.5 * 2^23).
    Value magic = m.c(12583166.0f); // 1.5 * 2^23 + 254
    Value t = m.mad(xc, m.c(1.44269504088896341f), magic);
    Value kf = m.sub(t, magic);
    // r = x - k ln 2 by two FMAs: ln2hi has 15 significant bits and k at
    // most 9, so k * ln2hi is exact and the first FMA is the subtraction
    // rounded once; the second adds the rest of k ln 2 rounded once.
    Value r = m.mad(kf, m.c(-0.693145751953125f), xc);
    r = m.mad(kf, m.c(-1.428606765330187045e-06f), r);
    // exp(r) = 1 + (r + r^2 q(r)), q the Taylor series from 1/2 to 1/7!.
    // (A degree-4 q fitted by least squares, one FMA fewer, measured 1.005
    // ulp near 80.8.)
    Value q = m.horner(
        r, {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f});
    // The last step unfused: measured 0.996 ulp, 1.03 with an FMA here.
    Value p = m.add(m.c(1.0f), m.add(m.mul(m.mul(r, r), q), r));
    // 2^k as 2^k1 2^k2, k1 = floor(k / 2), k2 = k - k1, both normal (k in
    // [-150, 129]): their biased exponents are k1 + 127 = floor(K / 2) and
    // k2 + 127 = K - floor(K / 2). Computed on t's bits u, whose high bits
    // (those of 1.5 * 2^23, even, zero below bit 22) the shifts by 23
    // discard: h = u >> 1, l = u - h, 2^k1 = h << 23, 2^k2 = l << 23.
    Value u = m.bitsOf(t);
    Value h = b.create<arith::ShRUIOp>(u, m.ci(1));
    Value l = b.create<arith::SubIOp>(u, h);
    Value s1 = m.fromBits(b.create<arith::ShLIOp>(h, m.ci(23)));
    Value s2 = m.fromBits(b.create<arith::ShLIOp>(l, m.ci(23)));
    rewriter.replaceOp(op, m.mul(m.mul(p, s1), s2));
    return success();
  }
};

struct ExpandLog : public OpRewritePattern<math::LogOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::LogOp op,
                                PatternRewriter &rewriter) const override {
    if (!isF32(op.getType()))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    F32Math m(b, op.getType());
    using P = arith::CmpFPredicate;
    Value x = op.getOperand();
    // Subnormals (and 0, negatives: replaced below) scaled by 2^23.
    Value tiny = m.cmp(P::OLT, x, m.c(std::numeric_limits<float>::min()));
    Value xs = m.select(tiny, m.mul(x, m.c(8388608.0f)), x);
    Value bits = m.bitsOf(xs);
    Value e = b.create<arith::SubIOp>(b.create<arith::ShRUIOp>(bits, m.ci(23)),
                                      m.ci(127));
    e = b.create<arith::SubIOp>(e, m.select(tiny, m.ci(23), m.ci(0)));
    // The mantissa in [1, 2), then in [sqrt(1/2), sqrt(2)).
    Value mant = m.fromBits(b.create<arith::OrIOp>(
        b.create<arith::AndIOp>(bits, m.ci(0x007fffff)), m.ci(0x3f800000)));
    Value big = m.cmp(P::OGT, mant, m.c(1.41421356237f));
    mant = m.select(big, m.mul(mant, m.c(0.5f)), mant);
    e = m.select(big, b.create<arith::AddIOp>(e, m.ci(1)), e);
    Value fr = m.sub(mant, m.c(1.0f));
    Value ef = b.create<arith::SIToFPOp>(m.f, e);
    Value z = m.mul(fr, fr);
    Value y =
        m.horner(fr, {7.0376836292E-2f, -1.1514610310E-1f, 1.1676998740E-1f,
                      -1.2420140846E-1f, 1.4249322787E-1f, -1.6668057665E-1f,
                      2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f});
    y = m.mul(m.mul(y, fr), z);
    y = m.mad(ef, m.c(-2.12194440e-4f), y);
    y = m.mad(z, m.c(-0.5f), y);
    Value result = m.mad(ef, m.c(0.693359375f), m.add(fr, y));
    // Special values.
    float inf = std::numeric_limits<float>::infinity();
    result = m.select(m.cmp(P::OEQ, x, m.c(0.0f)), m.c(-inf), result);
    result = m.select(m.cmp(P::OLT, x, m.c(0.0f)),
                      m.c(std::numeric_limits<float>::quiet_NaN()), result);
    result = m.select(m.cmp(P::OEQ, x, m.c(inf)), x, result);
    result = m.select(m.cmp(P::UNO, x, x), x, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AirExpandMathPass
    : public unum::air::impl::AirExpandMathBase<AirExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandExp, ExpandLog>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
