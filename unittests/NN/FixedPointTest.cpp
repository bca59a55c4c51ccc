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

// The accumulator must hold the worst case of R products of two N-bit values
// (magnitude 2^(2N-2) each), the largest bias (N + F <= 2N - 1 bits) and the
// rounding half, for every width and product count.
TEST(FixedPoint, AccumulatorHoldsTheWorstCase) {
  for (unsigned n = 2; n <= 16; ++n)
    for (uint64_t r = 1; r <= 300; ++r) {
      unsigned f = n - 1, bits = accumulatorBits(n, r);
      ASSERT_LE(bits, 62u);
      int64_t product = int64_t(1) << (2 * n - 2);
      int64_t bias = int64_t(1) << (n + f - 1);
      int64_t worst = int64_t(r) * product + bias + (int64_t(1) << (f - 1));
      EXPECT_LE(worst, maxValue(bits)) << "n=" << n << " r=" << r;
      EXPECT_GE(-worst, minValue(bits)) << "n=" << n << " r=" << r;
    }
}

TEST(FixedPoint, HardsigmoidEndsAtZeroAndOne) {
  unsigned n = 8, f = 4;
  int64_t slope = hardsigmoidSlope(f); // round(16 / 6) = 3
  EXPECT_EQ(slope, 3);
  EXPECT_EQ(hardsigmoid(0, slope, n, f, Rounding::Nearest), 8);    // 0.5
  EXPECT_EQ(hardsigmoid(-128, slope, n, f, Rounding::Nearest), 0); // -8 -> 0
  EXPECT_EQ(hardsigmoid(127, slope, n, f, Rounding::Nearest), 16); // 8 -> 1
  // Q5.4 covers [-1, 0.9375]: 0.9375 / 6 + 0.5 = 0.65625 -> 11/16 with the
  // slope 3/16; -1 -> 5/16.
  EXPECT_EQ(hardsigmoid(15, slope, 5, f, Rounding::Nearest), 11);
  EXPECT_EQ(hardsigmoid(-16, slope, 5, f, Rounding::Nearest), 5);
  EXPECT_EQ(hardsigmoid(-16, slope, 5, f, Rounding::Truncate), 5);
  EXPECT_EQ(hardsigmoid(15, slope, 5, f, Rounding::Truncate), 10);
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
