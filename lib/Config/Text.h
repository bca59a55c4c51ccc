//===- Text.h - UTF-8 and escaping helpers (private) ------------*- C++ -*-===//
//
// Shared by the JSON reader, the expression lexer and the writers.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_CONFIG_TEXT_H
#define UNUM_LIB_CONFIG_TEXT_H

#include "unum/Config/Document.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace unum::config::detail {

/// Appends the UTF-8 encoding of code point `cp` (assumed <= 0x10FFFF).
inline void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

/// Decodes one UTF-8 sequence at `pos`. Returns its length, or 0 if it is not
/// well-formed (overlong forms, surrogates and values above U+10FFFF are not).
inline size_t decodeUtf8(std::string_view s, size_t pos, uint32_t &cp) {
  auto byte = [&](size_t i) { return (unsigned char)s[i]; };
  unsigned char b0 = byte(pos);
  size_t len;
  uint32_t min;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (pos + len > s.size())
    return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (byte(pos + i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

inline char hexDigit(unsigned v) { return "0123456789abcdef"[v & 0xF]; }

/// The line and column (1-based, in bytes) of the first byte of `s` that does
/// not start a well-formed UTF-8 sequence, or nullopt.
inline std::optional<SourceLoc> invalidUtf8(std::string_view s) {
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t pos = 0; pos < s.size();) {
    unsigned char c = s[pos];
    if (c == '\n') {
      ++line;
      lineStart = ++pos;
      continue;
    }
    uint32_t cp;
    size_t len = c < 0x80 ? 1 : decodeUtf8(s, pos, cp);
    if (len == 0)
      return SourceLoc{line, unsigned(pos - lineStart + 1)};
    pos += len;
  }
  return std::nullopt;
}

/// Whether the JSON number `text` is within a double's range (1e400 is not:
/// it would be read as infinity, which JSON cannot write back). Only a
/// number with an exponent or over 300 digits can be out of range.
inline bool finiteNumber(const std::string &text) {
  if (text.size() < 300 && text.find_first_of("eE") == std::string::npos)
    return true;
  return std::isfinite(std::strtod(text.c_str(), nullptr));
}

/// `s` as a JSON string literal, quotes included. UTF-8 is kept as is.
inline std::string quoteJson(std::string_view s) {
  std::string out;
  appendJsonString(out, s);
  return out;
}

/// A character for a message: 'x' when printable ASCII, otherwise U+XXXX.
inline std::string describeChar(std::string_view s, size_t pos) {
  unsigned char c = s[pos];
  if (c >= 0x20 && c < 0x7F)
    return std::string("'") + char(c) + "'";
  uint32_t cp = c;
  if (c >= 0x80 && decodeUtf8(s, pos, cp) == 0)
    return std::string("byte 0x") + hexDigit(c >> 4) + hexDigit(c);
  std::string out = "U+";
  for (int shift = cp > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4)
    out += char(std::toupper(hexDigit(cp >> shift)));
  return out;
}

} // namespace unum::config::detail

#endif // UNUM_LIB_CONFIG_TEXT_H
