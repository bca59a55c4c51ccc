//===- FixedPointTest.cpp - The arithmetic quantised nn models share ------===//
#include "unum/Dialect/NN/IR/FixedPoint.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace unum::nn::fixed;

TEST(FixedPoint, NearestRoundsTiesTowardPlusInfinity) {
  // 4 fraction bits: 8 is half an LSB.
  EXPECT_EQ(roundShift(8, 4, Rounding::Nearest), 1);    // 0.5 -> 1
  EXPECT_EQ(roundShift(-8, 4, Rounding::Nearest), 0);   // -0.5 -> 0
  EXPECT_EQ(roundShift(-24, 4, Rounding::Nearest), -1); // -1.5 -> -1
  EXPECT_EQ(roundShift(-25, 4, Rounding::Nearest), -2); // -1.5625 -> -2
  EXPECT_EQ(roundShift(7, 4, Rounding::Nearest), 0);
}

TEST(FixedPoint, TruncateRoundsTowardMinusInfinity) {
  EXPECT_EQ(roundShift(15, 4, Rounding::Truncate), 0);
  EXPECT_EQ(roundShift(-1, 4, Rounding::Truncate), -1);
  EXPECT_EQ(roundShift(-16, 4, Rounding::Truncate), -1);
  EXPECT_EQ(roundShift(-17, 4, Rounding::Truncate), -2);
}

TEST(FixedPoint, RoundShiftIsFloorOfTheShiftedValue) {
  for (int64_t v = -300; v <= 300; ++v)
    for (unsigned shift = 1; shift <= 6; ++shift) {
      double scale = std::ldexp(1.0, shift);
      EXPECT_EQ(roundShift(v, shift, Rounding::Truncate),
                static_cast<int64_t>(std::floor(v / scale)));
      EXPECT_EQ(roundShift(v, shift, Rounding::Nearest),
                static_cast<int64_t>(std::floor(v / scale + 0.5)));
    }
}

TEST(FixedPoint, ConstantsRoundTiesAwayFromZeroAndSaturate) {
  EXPECT_EQ(quantizeConstant(0.03125, 4, 8), 1); // half an LSB
  EXPECT_EQ(quantizeConstant(-0.03125, 4, 8), -1);
  EXPECT_EQ(quantizeConstant(7.9375, 4, 8), 127);
  EXPECT_EQ(quantizeConstant(8.0, 4, 8), 127);
  EXPECT_EQ(quantizeConstant(-8.0, 4, 8), -128);
  EXPECT_EQ(quantizeConstant(-1e300, 4, 8), -128);
  EXPECT_EQ(quantizeConstant(1e300, 4, 8), 127);
  EXPECT_EQ(quantizeConstant(std::nan(""), 4, 8), -128);
}

// The accumulator must hold the worst case of R products of an Ni-bit value
// and an Nw-bit weight (magnitude 2^(Ni+Nw-2) each), the largest bias
// (Ni + Nw - 1 bits) and the rounding half, for every pair of widths.
TEST(FixedPoint, AccumulatorHoldsTheWorstCase) {
  for (unsigned ni = 2; ni <= 16; ++ni)
    for (unsigned nw = 2; nw <= 16; ++nw)
      for (uint64_t r = 1; r <= 300; r += (r < 20 ? 1 : 37)) {
        unsigned bits = accumulatorBits(ni, nw, r);
        ASSERT_LE(bits, 62u);
        int64_t product = int64_t(1) << (ni + nw - 2);
        int64_t bias = int64_t(1) << (ni + nw - 2);
        int64_t worst = int64_t(r) * product + bias +
                        (int64_t(1) << (ni + nw - 3)); // shift <= Fi + Fw
        EXPECT_LE(worst, maxValue(bits)) << ni << " " << nw << " r=" << r;
        EXPECT_GE(-worst, minValue(bits)) << ni << " " << nw << " r=" << r;
      }
}

TEST(FixedPoint, HalfEvenRoundsTiesToEven) {
  EXPECT_EQ(roundShift(8, 4, Rounding::HalfEven), 0);    // 0.5 -> 0
  EXPECT_EQ(roundShift(24, 4, Rounding::HalfEven), 2);   // 1.5 -> 2
  EXPECT_EQ(roundShift(-8, 4, Rounding::HalfEven), 0);   // -0.5 -> 0
  EXPECT_EQ(roundShift(-24, 4, Rounding::HalfEven), -2); // -1.5 -> -2
  EXPECT_EQ(roundShift(9, 4, Rounding::HalfEven), 1);
  for (int64_t v = -300; v <= 300; ++v)
    for (int shift = 1; shift <= 6; ++shift)
      EXPECT_EQ(roundShift(v, shift, Rounding::HalfEven),
                static_cast<int64_t>(std::nearbyint(std::ldexp(v, -shift))));
  EXPECT_EQ(roundShift(5, -2, Rounding::Truncate), 20); // adds fraction bits
}

TEST(FixedPoint, WrapKeepsTheLowBits) {
  EXPECT_EQ(wrap(128, 8), -128);
  EXPECT_EQ(wrap(255, 8), -1);
  EXPECT_EQ(wrap(-129, 8), 127);
  EXPECT_EQ(wrap(100, 8), 100);
  EXPECT_EQ(fit(300, 8, Overflow::Saturate), 127);
  EXPECT_EQ(fit(300, 8, Overflow::Wrap), 44);
  EXPECT_EQ(requantize(1000, 4, 2, 6, Rounding::Nearest, Overflow::Wrap),
            wrap(250, 6));
}

// The hardsigmoid is the exact rounding of x / 6 + 1/2: at F = 1, 2, 4, 8
// every input agrees with a rational computation (no slope that rounds to
// 0), and the hardware's multiply-and-shift division by 3 is exact.
TEST(FixedPoint, HardsigmoidIsTheExactRounding) {
  for (unsigned f : {1u, 2u, 4u, 8u})
    for (unsigned fo : {1u, 2u, 4u, 8u}) {
      unsigned n = 12;
      for (int64_t x = minValue(n); x <= maxValue(n); ++x) {
        // x / 2^f / 6 + 1/2 at fo bits: (x + 3 * 2^f) * 2^fo / (6 * 2^f)
        long double exact =
            (x + 3.0L * (1 << f)) * (1 << fo) / (6.0L * (1 << f));
        exact = std::min<long double>(std::max<long double>(exact, 0), 1 << fo);
        int64_t want = static_cast<int64_t>(std::floor(exact + 0.5L));
        EXPECT_EQ(hardsigmoid(x, f, fo, 16, Rounding::Nearest), want)
            << "x=" << x << " f=" << f << " fo=" << fo;
        EXPECT_EQ(hardsigmoid(x, f, fo, 16, Rounding::Truncate),
                  static_cast<int64_t>(std::floor(exact)));
      }
      EXPECT_TRUE(divideBy3(6 * (int64_t(1) << std::max(f, fo))).ok);
    }
  // F = 1 (the old slope round(2/6) was 0): 1.0 -> 0.6667 -> 1 (0.5);
  // 3.0 -> 1.0 (2); 1.5 -> 0.75, a tie at 1 fraction bit (1.5 LSB);
  // -1.5 -> 0.25 (0.5 LSB).
  EXPECT_EQ(hardsigmoid(2, 1, 1, 8, Rounding::Nearest), 1);
  EXPECT_EQ(hardsigmoid(6, 1, 1, 8, Rounding::Nearest), 2);
  EXPECT_EQ(hardsigmoid(3, 1, 1, 8, Rounding::Nearest), 2);
  EXPECT_EQ(hardsigmoid(3, 1, 1, 8, Rounding::HalfEven), 2);
  EXPECT_EQ(hardsigmoid(3, 1, 1, 8, Rounding::Truncate), 1);
  EXPECT_EQ(hardsigmoid(-3, 1, 1, 8, Rounding::Nearest), 1);
  EXPECT_EQ(hardsigmoid(-3, 1, 1, 8, Rounding::HalfEven), 0);
  // one does not fit Q4.3: saturated to 7/8
  EXPECT_EQ(hardsigmoid(100, 4, 3, 4, Rounding::Nearest), 7);
}

// avgpool: the rounded average equals the exact rational rounded, for every
// sum and divisor in a range (nearest: floor(s/d + 1/2), truncate: floor).
TEST(FixedPoint, AverageRoundsTheExactQuotient) {
  for (int64_t d = 1; d <= 9; ++d)
    for (int64_t s = -300; s <= 300; ++s) {
      double q = static_cast<double>(s) / static_cast<double>(d);
      EXPECT_EQ(divideRounded(s, d, Rounding::Truncate),
                static_cast<int64_t>(std::floor(q)))
          << s << " / " << d;
      EXPECT_EQ(divideRounded(s, d, Rounding::Nearest),
                static_cast<int64_t>(std::floor(q + 0.5)))
          << s << " / " << d;
      EXPECT_EQ(divideRounded(s, d, Rounding::HalfEven),
                static_cast<int64_t>(std::nearbyint(q)))
          << s << " / " << d;
    }
  EXPECT_EQ(divideRounded(-3, 2, Rounding::Nearest), -1); // -1.5 -> -1
  EXPECT_EQ(divideRounded(3, 2, Rounding::Nearest), 2);   // 1.5 -> 2
}

TEST(FixedPoint, PoolWindowsAreClippedToTheInput) {
  PoolWindow first = poolWindow(0, 3, 2, 1, 7);
  EXPECT_EQ(first.first, 0);
  EXPECT_EQ(first.last, 1);
  PoolWindow last = poolWindow(3, 3, 2, 1, 7);
  EXPECT_EQ(last.first, 5);
  EXPECT_EQ(last.last, 6);
}
