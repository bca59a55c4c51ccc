//===- Digest.h - Message digests for States.Hash ---------------*- C++ -*-===//
//
// Internal to the runtime library: the digests that the States.Hash
// intrinsic offers, computed without a crypto library.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_DIGEST_H
#define UNUM_LIB_RUNTIME_DIGEST_H

#include <optional>
#include <string>
#include <string_view>

namespace unum::runtime::digest {

enum class Algorithm { MD5, SHA1, SHA256, SHA384, SHA512 };

/// The algorithm States.Hash names "MD5", "SHA-1", "SHA-256", "SHA-384" or
/// "SHA-512" (exactly so), or nullopt.
std::optional<Algorithm> algorithmNamed(std::string_view name);

/// The raw digest of `data` (16, 20, 32, 48 or 64 bytes).
std::string compute(Algorithm algorithm, std::string_view data);

/// Lower-case hexadecimal, two digits a byte.
std::string hex(std::string_view bytes);

} // namespace unum::runtime::digest

#endif // UNUM_LIB_RUNTIME_DIGEST_H
