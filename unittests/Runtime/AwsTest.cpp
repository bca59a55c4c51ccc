//===- AwsTest.cpp - SigV4 and the Lambda invoker -------------------------===//
//
// Our SigV4 against AWS's published test-suite vectors and against botocore
// (python3-botocore, an independent implementation) on requests like the
// ones the DynamoDB store and the Lambda invoker send; the Lambda invoker
// against a fake Invoke endpoint that checks each signature with botocore.
// The botocore parts are skipped, saying why, where it is missing.
//
//===----------------------------------------------------------------------===//

#include "Aws.h"
#include "TestUtil.h"

#include "unum/Runtime/Invoker.h"
#include "unum/Runtime/Value.h"

#include "gtest/gtest.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace unum::runtime;
using namespace unum::runtime::test;

namespace {
const aws::Credentials kExample{"AKIDEXAMPLE",
                                "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
constexpr std::time_t kExampleTime = 1440938160; // 20150830T123600Z

std::string python() { return "/usr/bin/python3"; }
std::string checker() {
  return sourceDir() + "/test/Runtime/Inputs/aws-check.py";
}

/// Why botocore cannot be used here, or "".
std::string botocoreMissing() {
  std::string cmd = python() + " -c 'import botocore.auth' 2>/dev/null";
  return std::system(cmd.c_str()) == 0
             ? ""
             : "python3-botocore is not installed for /usr/bin/python3 "
               "(utils/bootstrap.sh installs it)";
}

std::string run(const std::string &cmd, const std::string &input) {
  TempDir tmp;
  std::string in = tmp.path() + "/in", out = tmp.path() + "/out";
  std::ofstream(in) << input;
  if (std::system((cmd + " < " + in + " > " + out).c_str()) != 0)
    return "";
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

aws::Request example(const std::string &method, const std::string &query = "") {
  aws::Request r;
  r.method = method;
  r.query = query;
  r.headers = {{"Host", "example.amazonaws.com"}};
  return r;
}
} // namespace

// The published "aws-sig-v4-test-suite" cases (AWS General Reference).
TEST(SigV4, PublishedVectors) {
  struct Case {
    const char *name;
    aws::Request request;
    const char *signature;
  } cases[] = {
      {"get-vanilla", example("GET"),
       "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
      {"post-vanilla", example("POST"),
       "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
      {"get-vanilla-query-order-key-case",
       example("GET", "Param2=value2&Param1=value1"),
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
      {"get-header-key-duplicate", example("GET"),
       "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"},
  };
  for (const char *v : {"value2", "value2", "value1"})
    cases[3].request.headers.emplace_back("My-Header1", v);
  for (Case &c : cases) {
    aws::Signature s =
        aws::sign(c.request, kExample, "us-east-1", "service", kExampleTime);
    EXPECT_EQ(s.signature, c.signature) << c.name << "\n" << s.canonicalRequest;
  }
  aws::Request r = example("GET");
  aws::Signature s =
      aws::sign(r, kExample, "us-east-1", "service", kExampleTime);
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/"
            "service/aws4_request, SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1"
            "d763fbf31");
  // Signing again (a retry) replaces the previous signature's headers.
  aws::sign(r, kExample, "us-east-1", "service", kExampleTime);
  EXPECT_EQ(r.headers.size(), 3u);
}

TEST(SigV4, AgreesWithBotocore) {
  if (std::string why = botocoreMissing(); !why.empty())
    GTEST_SKIP() << why;
  struct Case {
    aws::Request request;
    std::string region, service;
    aws::Credentials creds;
    std::time_t when;
  };
  std::vector<Case> cases;
  aws::Credentials temp{"ASIAUNUM", "s3cr3t/+=", "FwoGZXIvYXdz//token=="};
  { // a DynamoDB call, with a session token
    aws::Request r;
    r.headers = {{"Host", "127.0.0.1:8000"},
                 {"Content-Type", "application/x-amz-json-1.0"},
                 {"X-Amz-Target", "DynamoDB_20120810.PutItem"}};
    r.body = R"({"TableName":"unum","Item":{"pk":{"S":"s\u00e9"}}})";
    cases.push_back({r, "eu-west-1", "dynamodb", temp, 1700000000});
  }
  { // a Lambda Invoke: an ARN in the path is encoded twice when signed
    aws::Request r;
    r.path = "/2015-03-31/functions/" +
             aws::uriEncode("arn:aws:lambda:us-east-1:123456789012:function:"
                            "Square:live",
                            false) +
             "/invocations";
    r.headers = {{"Host", "lambda.us-east-1.amazonaws.com"},
                 {"Content-Type", "application/json"},
                 {"X-Amz-Invocation-Type", "Event"}};
    r.body = R"({"Data":{"Source":"http","Value":[1,2]}})";
    cases.push_back({r, "us-east-1", "lambda", kExample, 1732400000});
  }
  { // blanks in values, a query, a body of every byte value
    aws::Request r;
    r.path = "/a-b_c.d~e/f";
    r.query = "b=2&a=1&a=0";
    r.headers = {{"Host", "h.example.com"}, {"X-Odd", "  a   b  c "}};
    for (int c = 0; c < 256; ++c)
      r.body += char(c);
    cases.push_back({r, "ap-south-1", "execute-api", temp, 946684800});
  }
  // botocore takes text bodies; the byte-valued one is checked apart.
  Value requests = Value::array();
  std::vector<std::string> ours;
  for (Case &c : cases) {
    aws::Request unsigned_ = c.request;
    if (c.request.body.size() == 256)
      unsigned_.body = c.request.body = "plain text body";
    aws::Signature s =
        aws::sign(c.request, c.creds, c.region, c.service, c.when);
    ours.push_back(s.signature);
    Value req = Value::object(), headers = Value::array();
    for (const auto &[n, v] : unsigned_.headers)
      headers.push(Value(Value::Array{Value(n), Value(v)}));
    std::string host = unsigned_.headers[0].second;
    req.set("method", unsigned_.method);
    req.set("url", "https://" + host + unsigned_.path +
                       (unsigned_.query.empty() ? "" : "?" + unsigned_.query));
    req.set("headers", std::move(headers));
    req.set("body", unsigned_.body);
    req.set("region", c.region);
    req.set("service", c.service);
    req.set("access_key", c.creds.accessKeyId);
    req.set("secret_key", c.creds.secretAccessKey);
    req.set("token", c.creds.sessionToken);
    char stamp[32];
    std::tm utc{};
    gmtime_r(&c.when, &utc);
    std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
    req.set("timestamp", stamp);
    requests.push(std::move(req));
  }
  std::string theirs =
      run(python() + " " + checker() + " sign", toJson(requests));
  std::string expected;
  for (const std::string &s : ours)
    expected += s + "\n";
  EXPECT_EQ(theirs, expected);
}

namespace {
/// The fake Lambda endpoint (aws-check.py lambda), stopped at the end.
class FakeLambda {
public:
  explicit FakeLambda(const std::string &secret) {
    std::string portFile = tmp.path() + "/port";
    log = tmp.path() + "/log";
    setenv("FAKE_AWS_SECRET", secret.c_str(), 1);
    std::vector<std::string> args = {python(), checker(), "lambda", portFile,
                                     log};
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid, args[0].c_str(), nullptr, nullptr, argv.data(),
                    environ) != 0)
      pid = -1;
    for (int i = 0; i < 200 && pid > 0; ++i) {
      std::ifstream f(portFile);
      if (f >> port)
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  ~FakeLambda() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  }
  std::vector<Value> invocations() const {
    std::vector<Value> out;
    std::ifstream f(log);
    for (std::string line; std::getline(f, line);)
      if (auto v = parseJsonValue(line))
        out.push_back(v.take());
    return out;
  }
  TempDir tmp;
  std::string log;
  pid_t pid = -1;
  int port = 0;
};

Payload payloadOf(int n) {
  Payload p;
  p.value = Value(Value::Array{Value(n), Value(n + 1)});
  p.session = "s-" + std::to_string(n);
  return p;
}
} // namespace

TEST(LambdaInvoker, InvokesAsynchronouslyWithABotocoreCheckedSignature) {
  if (std::string why = botocoreMissing(); !why.empty())
    GTEST_SKIP() << why;
  FakeLambda fake("fake-secret/+");
  ASSERT_GT(fake.port, 0) << "the fake Lambda endpoint did not start";
  setenv("AWS_ENDPOINT_URL_LAMBDA",
         ("http://127.0.0.1:" + std::to_string(fake.port)).c_str(), 1);
  setenv("AWS_ACCESS_KEY_ID", "AKIDLAMBDA", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "fake-secret/+", 1);
  setenv("AWS_SESSION_TOKEN", "session//token", 1);
  auto arn = [](const std::string &fn) {
    return fn == "Plain" ? "http://127.0.0.1:1/fn/Plain"
           : fn == "Odd" ? "lambda-but-not-an-arn"
                         : "arn:aws:lambda:eu-central-1:123456789012:"
                           "function:" +
                               fn;
  };
  auto inv = makeRemoteInvoker(arn, 5000);
  Status a = inv->invoke("Square", payloadOf(1));
  EXPECT_TRUE(a.isOk()) << a.message();
  Status b = inv->invoke("Sum", payloadOf(2));
  EXPECT_TRUE(b.isOk()) << b.message();
  // Throttled: delivered again later (a Crash status).
  Status t = inv->invoke("Throttled", payloadOf(3));
  EXPECT_TRUE(t.isCrash()) << t.message();
  Status odd = inv->invoke("Odd", payloadOf(4));
  EXPECT_FALSE(odd.isOk());
  EXPECT_NE(odd.message().find("neither an http:// URL nor an arn:aws:lambda"),
            std::string::npos)
      << odd.message();
  // Signed with a secret the endpoint does not have: refused (not retried).
  setenv("AWS_SECRET_ACCESS_KEY", "wrong", 1);
  auto wrong = makeLambdaInvoker(arn, 5000);
  ASSERT_TRUE(wrong.isOk());
  Status w = (*wrong)->invoke("Square", payloadOf(5));
  EXPECT_FALSE(w.isOk());
  EXPECT_FALSE(w.isCrash());
  EXPECT_NE(w.message().find("HTTP 403"), std::string::npos) << w.message();
  unsetenv("AWS_SESSION_TOKEN");
  unsetenv("AWS_ENDPOINT_URL_LAMBDA");

  std::vector<Value> got = fake.invocations();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(*got[0].find("arn"),
            Value("arn:aws:lambda:eu-central-1:123456789012:function:Square"));
  EXPECT_EQ(*got[0].find("type"), Value("Event"));
  EXPECT_EQ(toJson(*got[0].find("body")), toJson(encodePayload(payloadOf(1))));
  EXPECT_EQ(toJson(*got[1].find("body")), toJson(encodePayload(payloadOf(2))));
}

TEST(LambdaInvoker, NeedsCredentialsAndAnArn) {
  unsetenv("AWS_ACCESS_KEY_ID");
  auto none = makeLambdaInvoker([](const std::string &) { return ""; });
  ASSERT_FALSE(none.isOk());
  EXPECT_NE(none.getStatus().message().find("no AWS credentials"),
            std::string::npos);
  setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "x", 1);
  auto inv = makeLambdaInvoker(
      [](const std::string &) { return "arn:aws:s3:::bucket"; });
  ASSERT_TRUE(inv.isOk());
  Status s = (*inv)->invoke("F", payloadOf(1));
  EXPECT_NE(s.message().find("expected arn:aws:lambda:REGION:ACCOUNT:function:"
                             "NAME[:QUALIFIER]"),
            std::string::npos)
      << s.message();
}
