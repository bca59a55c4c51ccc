//===- FuzzCommon.h - Shared helpers of the libFuzzer targets ---*- C++ -*-===//
//
// A fuzz target reports a finding by crashing: a sanitizer report, an
// uncaught exception, a timeout, or fuzzCheck() failing on a property the
// code documents (a written value reads back the same, say).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_UTILS_FUZZ_FUZZCOMMON_H
#define UNUM_UTILS_FUZZ_FUZZCOMMON_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

namespace unum::fuzz {

/// Aborts with `what` (and the text involved) when `ok` is false.
inline void fuzzCheck(bool ok, const char *what, std::string_view detail = {}) {
  if (ok)
    return;
  std::fprintf(stderr, "unum-fuzz: property violated: %s\n", what);
  if (!detail.empty())
    std::fprintf(stderr, "unum-fuzz:   %.*s\n",
                 int(std::min<size_t>(detail.size(), 4096)), detail.data());
  std::abort();
}

inline std::string_view asText(const uint8_t *data, size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

/// Splits `text` at its first NUL: (before, after); no NUL: (text, "").
inline std::pair<std::string_view, std::string_view>
splitAtNul(std::string_view text) {
  size_t at = text.find('\0');
  if (at == std::string_view::npos)
    return {text, {}};
  return {text.substr(0, at), text.substr(at + 1)};
}

} // namespace unum::fuzz

#endif // UNUM_UTILS_FUZZ_FUZZCOMMON_H
