//===- Timestamp.cpp - RFC 3339 timestamps as ASL uses them ---------------===//

#include "unum/Config/Timestamp.h"

#include <cstdio>
#include <ctime>

using namespace unum::config;

std::optional<Instant> unum::config::parseTimestamp(std::string_view s) {
  auto num = [&](size_t at, size_t n, int lo, int hi) -> std::optional<int> {
    if (at + n > s.size())
      return std::nullopt;
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9')
        return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    if (v < lo || v > hi)
      return std::nullopt;
    return v;
  };
  if (s.size() < 20)
    return std::nullopt;
  auto year = num(0, 4, 0, 9999), month = num(5, 2, 1, 12),
       day = num(8, 2, 1, 31), hour = num(11, 2, 0, 23),
       minute = num(14, 2, 0, 59), second = num(17, 2, 0, 60);
  if (!year || s[4] != '-' || !month || s[7] != '-' || !day || s[10] != 'T' ||
      !hour || s[13] != ':' || !minute || s[16] != ':' || !second)
    return std::nullopt;
  static const int daysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (*year % 4 == 0 && *year % 100 != 0) || *year % 400 == 0;
  if (*day > daysIn[*month - 1] || (*month == 2 && *day == 29 && !leap))
    return std::nullopt;
  size_t i = 19;
  uint32_t nanos = 0;
  if (s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (i - start < 9)
        nanos = nanos * 10 + uint32_t(s[i] - '0');
      ++i;
    }
    if (i == start)
      return std::nullopt;
    for (size_t k = i - start; k < 9; ++k)
      nanos *= 10;
  }
  int64_t offset = 0; // seconds east of UTC
  if (i < s.size() && s[i] == 'Z') {
    if (i + 1 != s.size())
      return std::nullopt;
  } else {
    auto oh = num(i + 1, 2, 0, 23), om = num(i + 4, 2, 0, 59);
    if (i + 6 != s.size() || (s[i] != '+' && s[i] != '-') || !oh ||
        s[i + 3] != ':' || !om)
      return std::nullopt;
    offset = (s[i] == '-' ? -1 : 1) * (*oh * 3600 + *om * 60);
  }
  // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
  // days_from_civil).
  int64_t y = *year - (*month <= 2);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (*month + (*month > 2 ? -3 : 9)) + 2) / 5 + *day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  Instant out;
  out.seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
  out.nanos = nanos;
  return out;
}

std::string unum::config::instantKey(const Instant &instant) {
  // Years 0000..9999 with any offset stay within +-2.6e11 seconds: shifted
  // by 1e12 they are positive and 13 digits wide.
  char key[40];
  std::snprintf(key, sizeof key, "%013lld.%09u",
                static_cast<long long>(instant.seconds + 1000000000000LL),
                static_cast<unsigned>(instant.nanos));
  return key;
}

std::string unum::config::formatTimestamp(const Instant &instant) {
  std::time_t t = std::time_t(instant.seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
                utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour,
                utc.tm_min, utc.tm_sec, unsigned(instant.nanos / 1000000));
  return buf;
}
