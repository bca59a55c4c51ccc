//===- Timestamp.h - RFC 3339 timestamps as ASL uses them -------*- C++ -*-===//
//
// One parser for the timestamps of Amazon States Language (Choice Timestamp
// comparisons and IsTimestamp, Wait Timestamp/TimestampPath), shared by the
// ASL importer and the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_CONFIG_TIMESTAMP_H
#define UNUM_CONFIG_TIMESTAMP_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace unum::config {

/// An instant: seconds since 1970-01-01T00:00:00Z and nanoseconds.
struct Instant {
  int64_t seconds = 0;
  uint32_t nanos = 0;
};

/// `2016-03-14T01:59:00Z`, with an optional fraction of a second (digits
/// past nanoseconds are dropped) and `Z` or a `+hh:mm`/`-hh:mm` offset; `T`
/// and `Z` upper case. Dates are checked (February 29 only in leap years);
/// second 60 (a leap second) counts as the next minute's 0. nullopt for
/// anything else.
std::optional<Instant> parseTimestamp(std::string_view text);

/// `instant` as Step Functions writes its context times:
/// `2016-03-14T01:59:00.123Z` (UTC, milliseconds).
std::string formatTimestamp(const Instant &instant);

/// A string whose order (and equality) is the order of the instants, for
/// the conditional language's `instant()`.
std::string instantKey(const Instant &instant);

} // namespace unum::config

#endif // UNUM_CONFIG_TIMESTAMP_H
