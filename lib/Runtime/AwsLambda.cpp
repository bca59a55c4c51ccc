//===- AwsLambda.cpp - Invoking AWS Lambda functions asynchronously -------===//
//
// POST /2015-03-31/functions/ARN/invocations with X-Amz-Invocation-Type:
// Event, SigV4-signed for the service "lambda" in the ARN's region. Lambda
// answers 202 once the event is queued; it then runs the function (and
// retries it on error, per the function's asynchronous invocation settings).
//
//===----------------------------------------------------------------------===//

#include "Aws.h"
#include "PayloadInternal.h"
#include "unum/Runtime/Invoker.h"

#include <cstdlib>

using namespace unum::runtime;

namespace {
/// "arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]" -> REGION.
Result<std::string> arnRegion(const std::string &arn) {
  std::vector<std::string> parts;
  for (size_t at = 0; at <= arn.size();) {
    size_t colon = arn.find(':', at);
    if (colon == std::string::npos)
      colon = arn.size();
    parts.push_back(arn.substr(at, colon - at));
    at = colon + 1;
  }
  if (parts.size() < 7 || parts.size() > 8 || parts[0] != "arn" ||
      parts[2] != "lambda" || parts[3].empty() || parts[4].empty() ||
      parts[5] != "function" || parts[6].empty())
    return Status::error("'" + arn +
                         "': expected arn:aws:lambda:REGION:ACCOUNT:function:"
                         "NAME[:QUALIFIER]");
  return parts[3];
}

class LambdaInvoker final : public Invoker {
public:
  LambdaInvoker(std::function<std::string(const std::string &)> arnFor,
                aws::Credentials creds, std::string endpointOverride,
                int timeoutMs)
      : arnFor(std::move(arnFor)), creds(std::move(creds)),
        endpointOverride(std::move(endpointOverride)), http(timeoutMs) {}

  Status invoke(const std::string &function, Payload &&payload) override {
    std::string arn = arnFor(function);
    auto region = arnRegion(arn);
    if (!region)
      return Status::error("invoking " + function + ": " +
                           region.getStatus().message());
    auto endpoint = aws::Endpoint::parse(endpointOverride.empty()
                                             ? "https://lambda." + *region +
                                                   ".amazonaws.com"
                                             : endpointOverride);
    if (!endpoint)
      return Status::error("invoking " + function + ": " +
                           endpoint.getStatus().message());
    aws::Request req;
    req.path = endpoint->path + "/2015-03-31/functions/" +
               aws::uriEncode(arn, /*keepSlash=*/false) + "/invocations";
    req.headers = {{"Host", endpoint->hostHeader},
                   {"Content-Type", "application/json"},
                   {"X-Amz-Invocation-Type", "Event"}};
    req.body = detail::payloadJson(payload);
    aws::sign(req, creds, *region, "lambda", std::time(nullptr));
    auto r = http.post(*endpoint, req);
    std::string what = "invoking " + function + " (" + arn + ")";
    if (!r)
      return Status::crash(what + ": " + r.getStatus().message());
    if (r->status == 202)
      return Status::ok();
    std::string why = what + ": HTTP " + std::to_string(r->status) +
                      (r->body.empty() ? "" : ": " + r->body);
    if (r->status == 429 || r->status >= 500)
      return Status::crash(why);
    return Status::error(why);
  }
  bool blocking() const override { return true; }

private:
  std::function<std::string(const std::string &)> arnFor;
  aws::Credentials creds;
  std::string endpointOverride;
  aws::HttpClient http;
};

class RemoteInvoker final : public Invoker {
public:
  RemoteInvoker(std::function<std::string(const std::string &)> targetFor,
                int timeoutMs, std::string secret)
      : targetFor(std::move(targetFor)), timeoutMs(timeoutMs),
        http(this->targetFor, timeoutMs, std::move(secret)) {}

  Status invoke(const std::string &function, Payload &&payload) override {
    std::string target = targetFor(function);
    if (target.rfind("http://", 0) == 0)
      return http.invoke(function, std::move(payload));
    if (target.rfind("arn:aws:lambda:", 0) != 0)
      return Status::error("invoking " + function + ": '" + target +
                           "' is neither an http:// URL nor an "
                           "arn:aws:lambda: ARN");
    std::unique_lock<std::mutex> lock(mu);
    if (!lambda) {
      auto made = makeLambdaInvoker(targetFor, timeoutMs);
      if (!made)
        return Status::error("invoking " + function + ": " +
                             made.getStatus().message());
      lambda = made.take();
    }
    lock.unlock();
    return lambda->invoke(function, std::move(payload));
  }
  bool blocking() const override { return true; }
  /// Lambda's own refusals are all in invoke()'s Status.
  void setOnRefusal(OnRefusal onRefusal) override {
    http.setOnRefusal(std::move(onRefusal));
  }

private:
  std::function<std::string(const std::string &)> targetFor;
  int timeoutMs;
  HttpInvoker http;
  std::mutex mu;
  std::unique_ptr<Invoker> lambda;
};
} // namespace

Result<std::unique_ptr<Invoker>> unum::runtime::makeLambdaInvoker(
    std::function<std::string(const std::string &)> arnFor, int timeoutMs) {
  auto creds = aws::Credentials::fromEnvironment();
  if (!creds)
    return creds.getStatus();
  std::string endpoint;
  for (const char *name : {"AWS_ENDPOINT_URL_LAMBDA", "AWS_ENDPOINT_URL"})
    if (const char *v = std::getenv(name); v && *v) {
      endpoint = v;
      break;
    }
  if (!endpoint.empty())
    if (auto e = aws::Endpoint::parse(endpoint); !e)
      return Status::error("AWS_ENDPOINT_URL_LAMBDA: " +
                           e.getStatus().message());
  return std::unique_ptr<Invoker>(std::make_unique<LambdaInvoker>(
      std::move(arnFor), creds.take(), endpoint, timeoutMs));
}

std::unique_ptr<Invoker> unum::runtime::makeRemoteInvoker(
    std::function<std::string(const std::string &)> targetFor, int timeoutMs,
    std::string secret) {
  return std::make_unique<RemoteInvoker>(std::move(targetFor), timeoutMs,
                                         std::move(secret));
}
