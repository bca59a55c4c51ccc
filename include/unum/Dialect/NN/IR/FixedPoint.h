//===- FixedPoint.h - The fixed-point arithmetic of quantised nn -*- C++
//-*-===//
//
// One definition of the arithmetic that nn-quantize fixes, shared by the pass,
// the CPU reference (unum-nn-sim) and the rtl lowering, so that the three
// cannot drift apart. Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_DIALECT_NN_IR_FIXEDPOINT_H
#define UNUM_DIALECT_NN_IR_FIXEDPOINT_H

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace unum::nn::fixed {

enum class Rounding { Nearest, Truncate };

inline int64_t minValue(unsigned bits) { return -(int64_t(1) << (bits - 1)); }
inline int64_t maxValue(unsigned bits) {
  return (int64_t(1) << (bits - 1)) - 1;
}

inline int64_t saturate(int64_t v, unsigned bits) {
  return v < minValue(bits) ? minValue(bits)
                            : (v > maxValue(bits) ? maxValue(bits) : v);
}

/// A constant (weight, bias, bound) as a `bits`-bit integer with `frac`
/// fraction bits: nearest, ties away from zero, saturated.
inline int64_t quantizeConstant(double v, unsigned frac, unsigned bits) {
  double scaled = std::ldexp(v, static_cast<int>(frac));
  double limit = std::ldexp(1.0, static_cast<int>(bits));
  if (!(scaled > -limit)) // also NaN
    return minValue(bits);
  if (scaled > limit)
    return maxValue(bits);
  return saturate(static_cast<int64_t>(std::llround(scaled)), bits);
}

/// Drops `shift` fraction bits: Nearest adds half an LSB first (ties go
/// toward +infinity), Truncate does not (toward -infinity). Arithmetic shift.
inline int64_t roundShift(int64_t v, unsigned shift, Rounding rounding) {
  if (shift == 0)
    return v;
  if (rounding == Rounding::Nearest)
    v += int64_t(1) << (shift - 1);
  return v >= 0 ? v >> shift : -((-v - 1) >> shift) - 1; // floor division
}

/// floor(a / b) for b > 0.
inline int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// The average `sum / count` (count > 0) as an integer: Nearest is
/// floor((2 sum + count) / (2 count)) (ties toward +infinity), Truncate
/// floor(sum / count) (toward -infinity). The avgpool of
/// docs/NNQuantization.md.
inline int64_t divideRounded(int64_t sum, int64_t count, Rounding rounding) {
  return rounding == Rounding::Nearest ? floorDiv(2 * sum + count, 2 * count)
                                       : floorDiv(sum, count);
}

/// The positions [first, last] of pooling window `l` inside [0, length).
struct PoolWindow {
  int64_t first, last;
};
inline PoolWindow poolWindow(int64_t l, int64_t kernel, int64_t stride,
                             int64_t padding, int64_t length) {
  int64_t start = l * stride - padding;
  return {start < 0 ? 0 : start, std::min(start + kernel, length) - 1};
}

/// ceil(log2(n)) for n >= 1.
inline unsigned ceilLog2(uint64_t n) {
  unsigned bits = 0;
  while ((uint64_t(1) << bits) < n)
    ++bits;
  return bits;
}

/// Accumulator bits for R products of two N-bit values plus a bias of at most
/// N + F <= 2N - 1 bits plus the rounding half: every partial sum fits.
inline unsigned accumulatorBits(unsigned n, uint64_t products) {
  return 2 * n + ceilLog2(products + 1);
}

/// round(2^F / 6): the hardsigmoid slope.
inline int64_t hardsigmoidSlope(unsigned frac) {
  return std::llround(std::ldexp(1.0, static_cast<int>(frac)) / 6.0);
}

/// The quantised hardsigmoid of `x` (fraction F, N bits).
inline int64_t hardsigmoid(int64_t x, int64_t slope, unsigned n, unsigned frac,
                           Rounding rounding) {
  int64_t t = x * slope + (int64_t(1) << (2 * frac - 1));
  int64_t y = roundShift(t, frac, rounding);
  int64_t one = int64_t(1) << frac;
  y = y < 0 ? 0 : (y > one ? one : y);
  return saturate(y, n);
}

} // namespace unum::nn::fixed

#endif // UNUM_DIALECT_NN_IR_FIXEDPOINT_H
