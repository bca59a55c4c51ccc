//===- Aws.h - AWS request signing (SigV4) and an HTTP client ---*- C++ -*-===//
//
// What the DynamoDB store and the Lambda invoker share: credentials from the
// standard environment variables, Signature Version 4 (the one
// implementation of it in the project), and an HTTP(S) POST over libcurl
// with pooled keep-alive connections. Private to the runtime library.
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_LIB_RUNTIME_AWS_H
#define UNUM_LIB_RUNTIME_AWS_H

#include "unum/Runtime/Status.h"

#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace unum::runtime::aws {

struct Credentials {
  std::string accessKeyId, secretAccessKey, sessionToken;
  /// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (the
  /// variables Lambda sets for a function's role); an error names what is
  /// missing.
  static Result<Credentials> fromEnvironment();
};

/// The region: `explicitRegion` if set, else AWS_REGION, else
/// AWS_DEFAULT_REGION, else an error.
Result<std::string> regionFromEnvironment(const std::string &explicitRegion);

using Headers = std::vector<std::pair<std::string, std::string>>;

/// A request to sign. `path` and `query` are as sent (already
/// percent-encoded); `headers` must include Host.
struct Request {
  std::string method = "POST";
  std::string path = "/";
  std::string query; // "a=1&b=2", without '?'
  Headers headers;
  std::string body;
};

/// The parts of a signature, for tests and diagnostics.
struct Signature {
  std::string canonicalRequest, stringToSign, signature, authorization;
};

/// Signs `request` for `service` in `region` at `when` (UTC): adds
/// X-Amz-Date, X-Amz-Security-Token (with a session token) and
/// Authorization to its headers. Every header present is signed.
Signature sign(Request &request, const Credentials &creds,
               const std::string &region, const std::string &service,
               std::time_t when);

/// Hex SHA-256, and RFC 3986 percent-encoding (unreserved characters kept;
/// '/' kept when `keepSlash`).
std::string sha256Hex(const std::string &data);
std::string uriEncode(const std::string &s, bool keepSlash);

/// An endpoint URL split up: "https://host[:port]/path".
struct Endpoint {
  std::string scheme, host, hostHeader, path; // hostHeader: host[:port]
  static Result<Endpoint> parse(const std::string &url);
  std::string url() const { return scheme + "://" + hostHeader + path; }
};

struct Response {
  long status = 0;
  std::string body;
};

/// POSTs over HTTP or HTTPS with libcurl; connections are kept alive and
/// pooled (one handle per concurrent request). Thread-safe.
class HttpClient {
public:
  explicit HttpClient(long timeoutMs);
  ~HttpClient();
  HttpClient(const HttpClient &) = delete;
  HttpClient &operator=(const HttpClient &) = delete;

  /// Sends `request` (signed or not) to `endpoint`; a transport failure
  /// (no connection, time-out) is an error Status, any HTTP answer is a
  /// Response.
  Result<Response> post(const Endpoint &endpoint, const Request &request);

private:
  long timeoutMs;
  std::mutex mu;
  std::vector<void *> idle; // CURL handles
};

} // namespace unum::runtime::aws

#endif // UNUM_LIB_RUNTIME_AWS_H
