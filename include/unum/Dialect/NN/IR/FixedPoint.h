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
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace unum::nn::fixed {

/// How a value drops fraction bits: toward -infinity (`truncate`, AP_TRN),
/// to nearest with ties toward +infinity (`nearest`, AP_RND), to nearest with
/// ties to even (`half_even`, AP_RND_CONV).
enum class Rounding { Truncate, Nearest, HalfEven };
/// What a value that does not fit its bits becomes: the nearest end of the
/// range (`saturate`, AP_SAT) or its low bits, two's complement (`wrap`,
/// AP_WRAP).
enum class Overflow { Saturate, Wrap };

/// The value `name` stands for in `table` (pairs of a name and a value),
/// if any.
template <typename T, size_t N>
inline bool lookupName(const std::string &name,
                       const std::pair<const char *, T> (&table)[N], T &out) {
  for (const auto &[key, value] : table)
    if (name == key) {
      out = value;
      return true;
    }
  return false;
}
/// The rounding named `name` (the IR's names or hls4ml's), if any.
inline bool parseRounding(const std::string &name, Rounding &out) {
  static const std::pair<const char *, Rounding> names[] = {
      {"truncate", Rounding::Truncate},   {"AP_TRN", Rounding::Truncate},
      {"nearest", Rounding::Nearest},     {"half_up", Rounding::Nearest},
      {"AP_RND", Rounding::Nearest},      {"half_even", Rounding::HalfEven},
      {"AP_RND_CONV", Rounding::HalfEven}};
  return lookupName(name, names, out);
}
/// The overflow mode named `name` (the IR's names or hls4ml's), if any.
inline bool parseOverflow(const std::string &name, Overflow &out) {
  static const std::pair<const char *, Overflow> names[] = {
      {"saturate", Overflow::Saturate},
      {"AP_SAT", Overflow::Saturate},
      {"wrap", Overflow::Wrap},
      {"AP_WRAP", Overflow::Wrap}};
  return lookupName(name, names, out);
}
/// The IR's name of a rounding / overflow mode.
inline const char *roundingName(Rounding r) {
  return r == Rounding::Truncate
             ? "truncate"
             : (r == Rounding::Nearest ? "nearest" : "half_even");
}
inline const char *overflowName(Overflow o) {
  return o == Overflow::Saturate ? "saturate" : "wrap";
}

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

/// The low `bits` bits of `v` as a two's complement number.
inline int64_t wrap(int64_t v, unsigned bits) {
  return static_cast<int64_t>(static_cast<uint64_t>(v) << (64 - bits)) >>
         (64 - bits);
}

/// `v` brought into `bits` bits by `overflow`.
inline int64_t fit(int64_t v, unsigned bits, Overflow overflow) {
  return overflow == Overflow::Wrap ? wrap(v, bits) : saturate(v, bits);
}

/// floor(a / b) for b > 0.
inline int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// a / b (b > 0) rounded to an integer by `rounding`.
inline int64_t divideRounded(int64_t a, int64_t b, Rounding rounding) {
  int64_t q = floorDiv(a, b), r = a - q * b; // 0 <= r < b
  if (rounding == Rounding::Nearest && 2 * r >= b)
    return q + 1;
  if (rounding == Rounding::HalfEven && (2 * r > b || (2 * r == b && (q & 1))))
    return q + 1;
  return q;
}

/// v * 2^-shift rounded by `rounding` (shift > 0 drops fraction bits; shift
/// <= 0 adds them, exactly).
inline int64_t roundShift(int64_t v, int shift, Rounding rounding) {
  if (shift <= 0)
    return static_cast<int64_t>(static_cast<uint64_t>(v) << -shift);
  return divideRounded(v, int64_t(1) << shift, rounding);
}

/// A value with `fromFrac` fraction bits requantised to `toFrac` fraction
/// bits and `bits` bits: one rounding, then the overflow mode.
inline int64_t requantize(int64_t v, unsigned fromFrac, unsigned toFrac,
                          unsigned bits, Rounding rounding, Overflow overflow) {
  return fit(roundShift(v, int(fromFrac) - int(toFrac), rounding), bits,
             overflow);
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

/// Accumulator bits for R products of an `in`-bit value and a `weight`-bit
/// weight plus a bias of at most in + weight - 1 bits plus the rounding half:
/// every partial sum fits.
inline unsigned accumulatorBits(unsigned in, unsigned weight,
                                uint64_t products) {
  return in + weight + ceilLog2(products + 1);
}

/// The quantised hardsigmoid: `x` (fraction `inFrac`) to the exact rounding
/// of x / 6 + 1/2 at `outFrac` fraction bits, clamped to [0, 1] and
/// saturated to `bits` bits. With u = x + 3 * 2^inFrac (the input scaled by
/// 6 and shifted by 1/2) the result is u * 2^outFrac / (6 * 2^inFrac) =
/// m / (3 * 2^j) with m = u * 2^max(e, 0), j = max(-e, 0), e = outFrac -
/// inFrac - 1.
struct HardsigmoidShape {
  int e;
  unsigned j;
};
inline HardsigmoidShape hardsigmoidShape(unsigned inFrac, unsigned outFrac) {
  int e = int(outFrac) - int(inFrac) - 1;
  return {e, unsigned(e < 0 ? -e : 0)};
}
inline int64_t hardsigmoid(int64_t x, unsigned inFrac, unsigned outFrac,
                           unsigned bits, Rounding rounding) {
  int64_t u = x + 3 * (int64_t(1) << inFrac);
  int64_t one = int64_t(1) << outFrac;
  int64_t y;
  if (u <= 0)
    y = 0;
  else if (u >= 6 * (int64_t(1) << inFrac))
    y = one;
  else {
    HardsigmoidShape s = hardsigmoidShape(inFrac, outFrac);
    int64_t m = s.e > 0 ? u << s.e : u;
    y = divideRounded(m, 3 * (int64_t(1) << s.j), rounding);
    y = y > one ? one : y;
  }
  return saturate(y, bits);
}

/// floor(m / 3) as (m * magic) >> shift for 0 <= m <= limit: the hardware's
/// division of the hardsigmoid. `ok` is false when no such pair was found
/// (checked on every m).
struct DivideBy3 {
  int64_t magic;
  unsigned shift;
  bool ok;
};
inline DivideBy3 divideBy3(int64_t limit) {
  unsigned bits = ceilLog2(uint64_t(limit) + 1);
  unsigned shift = bits + 2;
  int64_t magic = ((int64_t(1) << shift) + 2) / 3; // ceil(2^shift / 3)
  bool ok = bits + 2 + ceilLog2(uint64_t(magic) + 1) < 63;
  for (int64_t m = 0; ok && m <= limit; ++m)
    ok = ((m * magic) >> shift) == m / 3;
  return {magic, shift, ok};
}

} // namespace unum::nn::fixed

#endif // UNUM_DIALECT_NN_IR_FIXEDPOINT_H
