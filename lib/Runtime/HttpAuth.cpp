//===- HttpAuth.cpp - Signed HTTP requests between Unum endpoints ---------===//

#include "unum/Runtime/HttpAuth.h"

#include "Digest.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

using namespace unum::runtime;

std::string httpauth::hmacSha256(std::string_view key,
                                 std::string_view message) {
  constexpr size_t kBlock = 64; // SHA-256's block size
  std::string k(key);
  if (k.size() > kBlock)
    k = digest::compute(digest::Algorithm::SHA256, k);
  k.resize(kBlock, '\0');
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = char(k[i] ^ 0x36);
    outer[i] = char(k[i] ^ 0x5c);
  }
  inner.append(message);
  outer += digest::compute(digest::Algorithm::SHA256, inner);
  return digest::compute(digest::Algorithm::SHA256, outer);
}

std::string httpauth::signedText(std::string_view method, std::string_view path,
                                 std::string_view timestamp,
                                 std::string_view nonce,
                                 std::string_view body) {
  std::string text = "unum-v1\n";
  text.reserve(text.size() + method.size() + path.size() + timestamp.size() +
               nonce.size() + body.size() + 4);
  text.append(method).append("\n").append(path).append("\n");
  text.append(timestamp).append("\n").append(nonce).append("\n");
  text.append(body);
  return text;
}

std::string httpauth::signature(std::string_view secret,
                                std::string_view method, std::string_view path,
                                std::string_view timestamp,
                                std::string_view nonce, std::string_view body) {
  return "v1=" + digest::hex(hmacSha256(
                     secret, signedText(method, path, timestamp, nonce, body)));
}

std::vector<std::pair<std::string, std::string>>
httpauth::signRequest(std::string_view secret, std::string_view method,
                      std::string_view path, std::string_view body) {
  // 128 random bits from the system's entropy source.
  std::random_device rd;
  std::string raw(16, '\0');
  for (size_t i = 0; i < raw.size(); i += 4) {
    uint32_t r = rd();
    for (size_t j = 0; j < 4; ++j)
      raw[i + j] = char(r >> (8 * j));
  }
  std::string nonce = digest::hex(raw);
  std::string timestamp =
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count());
  std::string sig = signature(secret, method, path, timestamp, nonce, body);
  return {{kTimestampHeader, std::move(timestamp)},
          {kNonceHeader, std::move(nonce)},
          {kSignatureHeader, std::move(sig)}};
}

bool httpauth::constantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff = diff | (static_cast<unsigned char>(a[i]) ^
                   static_cast<unsigned char>(b[i]));
  return diff == 0;
}

Result<std::string> httpauth::loadSecret(const std::string &file) {
  std::string secret, from;
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
      return Status::error("cannot read the secret file '" + file + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    secret = ss.str();
    if (!secret.empty() && secret.back() == '\n')
      secret.pop_back();
    if (!secret.empty() && secret.back() == '\r')
      secret.pop_back();
    from = "the secret file '" + file + "'";
  } else if (const char *env = std::getenv(kSecretEnv)) {
    secret = env;
    from = std::string("$") + kSecretEnv;
  } else {
    return std::string();
  }
  if (secret.size() < kMinSecretBytes)
    return Status::error(from + " holds " + std::to_string(secret.size()) +
                         " bytes; a shared secret needs at least " +
                         std::to_string(kMinSecretBytes));
  return secret;
}
