//===- AwsHttp.cpp - HTTP(S) POST over libcurl ----------------------------===//
//
// A pool of curl easy handles: a handle keeps its connection alive between
// requests, so a store that sends thousands of small requests pays the TCP
// (and TLS) set-up once per concurrent caller.
//
//===----------------------------------------------------------------------===//

#include "Aws.h"

#include <curl/curl.h>

#include <cstdlib>

using namespace unum::runtime;
using namespace unum::runtime::aws;

Result<Endpoint> Endpoint::parse(const std::string &url) {
  Endpoint e;
  size_t sep = url.find("://");
  if (sep == std::string::npos)
    return Status::error("'" + url +
                         "': expected http://HOST[:PORT] or "
                         "https://HOST[:PORT]");
  e.scheme = url.substr(0, sep);
  if (e.scheme != "http" && e.scheme != "https")
    return Status::error("'" + url + "': only http and https are supported");
  std::string rest = url.substr(sep + 3);
  size_t slash = rest.find('/');
  e.hostHeader = rest.substr(0, slash);
  e.path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!e.path.empty() && e.path.back() == '/')
    e.path.pop_back();
  e.host = e.hostHeader;
  if (e.host.empty() || e.host.find_first_of(" @?#") != std::string::npos)
    return Status::error("'" + url + "': bad host");
  size_t colon = e.host.rfind(':');
  if (colon != std::string::npos && e.host.back() != ']') {
    char *end = nullptr;
    long port = std::strtol(e.host.c_str() + colon + 1, &end, 10);
    if (*end || port <= 0 || port > 65535)
      return Status::error("'" + url + "': bad port");
    e.host.resize(colon);
  }
  return e;
}

namespace {
size_t collect(char *data, size_t size, size_t n, void *out) {
  static_cast<std::string *>(out)->append(data, size * n);
  return size * n;
}

void initCurlOnce() {
  static const bool done = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)done;
}
} // namespace

HttpClient::HttpClient(long timeoutMs) : timeoutMs(timeoutMs) {
  initCurlOnce();
}

HttpClient::~HttpClient() {
  for (void *h : idle)
    curl_easy_cleanup(static_cast<CURL *>(h));
}

Result<Response> HttpClient::post(const Endpoint &endpoint,
                                  const Request &request) {
  CURL *h = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!idle.empty()) {
      h = static_cast<CURL *>(idle.back());
      idle.pop_back();
    }
  }
  if (!h && !(h = curl_easy_init()))
    return Status::error("libcurl: cannot create a handle");
  std::string url = endpoint.scheme + "://" + endpoint.hostHeader +
                    request.path +
                    (request.query.empty() ? "" : "?" + request.query);
  curl_slist *headers = nullptr;
  for (const auto &[name, value] : request.headers)
    headers = curl_slist_append(headers, (name + ": " + value).c_str());
  // No "Expect: 100-continue" round trip before a large body.
  headers = curl_slist_append(headers, "Expect:");
  Response resp;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                   curl_off_t(request.body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp.body);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeoutMs);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeoutMs);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    curl_easy_cleanup(h); // its connection's state is unknown
    return Status::error("POST " + endpoint.scheme + "://" +
                         endpoint.hostHeader + request.path + ": " +
                         curl_easy_strerror(rc));
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp.status);
  std::lock_guard<std::mutex> lock(mu);
  idle.push_back(h);
  return resp;
}
