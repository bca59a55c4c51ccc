//===- HttpAuth.h - Signed HTTP requests between Unum endpoints -*- C++ -*-===//
//
// A request between an invoker and a gateway that share a secret carries
//
//   X-Unum-Timestamp: <seconds since the Unix epoch>
//   X-Unum-Nonce:     <16 to 64 characters of [A-Za-z0-9_-], random>
//   X-Unum-Signature: v1=<lower-case hex HMAC-SHA256>
//
// where the HMAC (RFC 2104, keyed with the secret) covers
//
//   "unum-v1\n" METHOD "\n" PATH "\n" TIMESTAMP "\n" NONCE "\n" BODY
//
// The gateway accepts a request only when the signature matches, the
// timestamp is within its replay window of its own clock, and it has not
// seen the nonce within that window (HttpServer). The secret comes from a
// file or the UNUM_HTTP_SECRET environment variable, never from a command
// line (visible to every user in `ps`).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_HTTPAUTH_H
#define UNUM_RUNTIME_HTTPAUTH_H

#include "unum/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace unum::runtime::httpauth {

inline constexpr const char *kTimestampHeader = "X-Unum-Timestamp";
inline constexpr const char *kNonceHeader = "X-Unum-Nonce";
inline constexpr const char *kSignatureHeader = "X-Unum-Signature";
/// The environment variable that holds the secret.
inline constexpr const char *kSecretEnv = "UNUM_HTTP_SECRET";
/// A shorter secret is refused: it could be guessed.
inline constexpr size_t kMinSecretBytes = 16;

/// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 raw bytes.
std::string hmacSha256(std::string_view key, std::string_view message);

/// The text a signature covers (see the file comment).
std::string signedText(std::string_view method, std::string_view path,
                       std::string_view timestamp, std::string_view nonce,
                       std::string_view body);

/// "v1=" and the hex HMAC of signedText(...) under `secret`.
std::string signature(std::string_view secret, std::string_view method,
                      std::string_view path, std::string_view timestamp,
                      std::string_view nonce, std::string_view body);

/// The three headers of a request signed now, with a fresh random nonce.
std::vector<std::pair<std::string, std::string>>
signRequest(std::string_view secret, std::string_view method,
            std::string_view path, std::string_view body);

/// True if `a` equals `b`, in time that does not depend on where they
/// differ.
bool constantTimeEqual(std::string_view a, std::string_view b);

/// The secret: the contents of `file` (one trailing newline dropped) when
/// it is not empty, else $UNUM_HTTP_SECRET, else "" (none). Errors: an
/// unreadable file, or a secret shorter than kMinSecretBytes.
Result<std::string> loadSecret(const std::string &file);

} // namespace unum::runtime::httpauth

#endif // UNUM_RUNTIME_HTTPAUTH_H
