//===- AwsSigV4.cpp - AWS Signature Version 4 -----------------------------===//
//
// The signing process of the AWS General Reference: a canonical request
// (method, URI-encoded path, sorted query, sorted lower-case headers with
// trimmed values, the signed header names, the hex SHA-256 of the body), a
// string to sign over its hash and the credential scope, and an HMAC-SHA256
// chain from "AWS4" + secret through date, region, service and
// "aws4_request". Paths are encoded once more as the non-S3 services expect
// (the path as sent is already percent-encoded).
//
//===----------------------------------------------------------------------===//

#include "Aws.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

using namespace unum::runtime;
using namespace unum::runtime::aws;

namespace {
std::string hex(const unsigned char *data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

std::string hmac(const std::string &key, const std::string &data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  HMAC(EVP_sha256(), key.data(), int(key.size()),
       reinterpret_cast<const unsigned char *>(data.data()), data.size(), out,
       &len);
  return std::string(reinterpret_cast<char *>(out), len);
}

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Leading and trailing blanks dropped, inner runs of blanks made one space.
std::string trimValue(const std::string &v) {
  std::string out;
  bool blank = false;
  for (char c : v) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      blank = !out.empty();
      continue;
    }
    if (blank)
      out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::string canonicalQuery(const std::string &query) {
  if (query.empty())
    return "";
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t at = 0; at <= query.size();) {
    size_t amp = query.find('&', at);
    if (amp == std::string::npos)
      amp = query.size();
    std::string item = query.substr(at, amp - at);
    size_t eq = item.find('=');
    pairs.emplace_back(item.substr(0, eq),
                       eq == std::string::npos ? "" : item.substr(eq + 1));
    at = amp + 1;
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto &[k, v] : pairs)
    out += (out.empty() ? "" : "&") + k + "=" + v;
  return out;
}
} // namespace

std::string aws::sha256Hex(const std::string &data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char *>(data.data()), data.size(),
         digest);
  return hex(digest, sizeof digest);
}

std::string aws::uriEncode(const std::string &s, bool keepSlash) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keepSlash && c == '/')) {
      out += char(c);
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

Signature aws::sign(Request &request, const Credentials &creds,
                    const std::string &region, const std::string &service,
                    std::time_t when) {
  std::tm utc{};
  gmtime_r(&when, &utc);
  char stamp[32], day[16];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  std::strftime(day, sizeof day, "%Y%m%d", &utc);

  // Replace what an earlier signing added (a request signed again on retry).
  auto drop = [&](const char *name) {
    request.headers.erase(
        std::remove_if(request.headers.begin(), request.headers.end(),
                       [&](const auto &h) { return lower(h.first) == name; }),
        request.headers.end());
  };
  drop("authorization");
  drop("x-amz-date");
  drop("x-amz-security-token");
  request.headers.emplace_back("X-Amz-Date", stamp);
  if (!creds.sessionToken.empty())
    request.headers.emplace_back("X-Amz-Security-Token", creds.sessionToken);

  // Repeated names are joined with commas, in the order given.
  std::map<std::string, std::string> canon;
  for (const auto &[name, value] : request.headers) {
    std::string &slot = canon[lower(name)];
    slot += (slot.empty() ? "" : ",") + trimValue(value);
  }
  std::string headers, signedHeaders;
  for (const auto &[name, value] : canon) {
    headers += name + ":" + value + "\n";
    signedHeaders += (signedHeaders.empty() ? "" : ";") + name;
  }

  Signature sig;
  sig.canonicalRequest = request.method + "\n" +
                         uriEncode(request.path, /*keepSlash=*/true) + "\n" +
                         canonicalQuery(request.query) + "\n" + headers + "\n" +
                         signedHeaders + "\n" + sha256Hex(request.body);
  std::string scope =
      std::string(day) + "/" + region + "/" + service + "/aws4_request";
  sig.stringToSign = std::string("AWS4-HMAC-SHA256\n") + stamp + "\n" + scope +
                     "\n" + sha256Hex(sig.canonicalRequest);
  std::string key = hmac("AWS4" + creds.secretAccessKey, day);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, "aws4_request");
  std::string mac = hmac(key, sig.stringToSign);
  sig.signature =
      hex(reinterpret_cast<const unsigned char *>(mac.data()), mac.size());
  sig.authorization = "AWS4-HMAC-SHA256 Credential=" + creds.accessKeyId + "/" +
                      scope + ", SignedHeaders=" + signedHeaders +
                      ", Signature=" + sig.signature;
  request.headers.emplace_back("Authorization", sig.authorization);
  return sig;
}

Result<Credentials> Credentials::fromEnvironment() {
  auto env = [](const char *name) {
    const char *v = std::getenv(name);
    return std::string(v ? v : "");
  };
  Credentials c{env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"),
                env("AWS_SESSION_TOKEN")};
  if (c.accessKeyId.empty() || c.secretAccessKey.empty())
    return Status::error("no AWS credentials: set AWS_ACCESS_KEY_ID and "
                         "AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for "
                         "temporary credentials)");
  return c;
}

Result<std::string>
aws::regionFromEnvironment(const std::string &explicitRegion) {
  if (!explicitRegion.empty())
    return explicitRegion;
  for (const char *name : {"AWS_REGION", "AWS_DEFAULT_REGION"})
    if (const char *v = std::getenv(name); v && *v)
      return std::string(v);
  return Status::error("no AWS region: give ?region=NAME or set AWS_REGION");
}
