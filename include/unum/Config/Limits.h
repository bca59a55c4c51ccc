//===- Limits.h - the limits shared by the compiler and the runtime -*- C++
//-*-===//
//
// One number per limit, read by the readers, the compiler (which refuses at
// compile time, with a located error, what the runtime would refuse) and the
// runtime (which checks before doing the work).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_LIMITS_H
#define UNUM_CONFIG_LIMITS_H

#include <cstddef>
#include <cstdint>

namespace unum::limits {

/// Nesting of JSON and YAML documents: configs, payloads, outputs and the
/// checkpoints that store them. A value nested deeper is refused when read
/// and when written, so that every checkpoint can be read back.
constexpr unsigned kMaxNesting = 256;

/// The longest conditional, modifier or fan-in name pattern, in characters.
constexpr size_t kMaxExprText = 4096;
/// The deepest nesting of parentheses, operators and calls the expression
/// parser (a recursive descent) follows; the tree it builds may be deeper
/// (operator chains), up to kMaxExprDepth. The compiler folds a Choice's
/// rules into the conditions of the states after it, one level per Choice,
/// so it refuses more Choice states in a row than this.
constexpr unsigned kMaxExprNesting = 64;

/// The deepest expression tree (conditionals, modifiers, index arithmetic).
/// The parser refuses a deeper one; the evaluator's recursion is bounded by it.
constexpr unsigned kMaxExprDepth = 128;

/// The longest path or intrinsic call text.
constexpr size_t kMaxPathText = 4096;
/// The deepest nesting of filters, parentheses and calls in one path text.
constexpr unsigned kMaxPathNesting = 32;
/// Intrinsic function calls nested deeper than this are refused (Step
/// Functions allows 10).
constexpr unsigned kMaxIntrinsicNesting = 10;
/// The most values one JSONPath may select (wildcards, `..`, filters).
constexpr size_t kMaxPathMatches = 100000;

/// The longest string an intrinsic function builds or reads
/// (States.Format, States.JsonToString, States.StringToJson, and the text
/// States.StringSplit splits, so that its pieces are at most half as many):
/// Step Functions' payload limit, 256 KB.
constexpr size_t kMaxIntrinsicText = 256 * 1024;
/// The most characters States.Base64Encode, Base64Decode and Hash take.
constexpr size_t kMaxCodecInput = 10000;
/// The most elements States.ArrayRange makes.
constexpr size_t kMaxArrayRange = 1000;

/// The longest Wait, retry delay or time limit, in seconds: a year, Step
/// Functions' longest execution.
constexpr int64_t kMaxWaitSeconds = 31536000;

/// The most instances one fan-in may name, and so the most items of a Map
/// and the most branches of a Parallel.
constexpr size_t kMaxFanInInstances = size_t(1) << 20;

} // namespace unum::limits

#endif // UNUM_CONFIG_LIMITS_H
