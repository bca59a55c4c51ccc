//===- InvokerTest.cpp - Subprocess handlers and the HTTP invoker ---------===//

#include "Apps.h"
#include "TestUtil.h"

#include "PayloadInternal.h"

#include "unum/Runtime/HttpServer.h"
#include "unum/Runtime/Runtime.h"

#include "gtest/gtest.h"

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <filesystem>
#include <fstream>
#include <pthread.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace unum::runtime;
using namespace unum::runtime::test;
namespace fs = std::filesystem;

namespace {
std::string writeScript(const std::string &dir, const std::string &name,
                        const std::string &body) {
  fs::create_directories(dir);
  std::string path = dir + "/" + name;
  std::ofstream(path) << body;
  chmod(path.c_str(), 0755);
  return path;
}
} // namespace

TEST(Subprocess, JsonInJsonOut) {
  TempDir tmp;
  std::string exe = writeScript(
      tmp.path(), "handler",
      "#!/bin/sh\n"
      "read -r input\n"
      "echo \"{\\\"got\\\": $input, \\\"fn\\\": \\\"$UNUM_FUNCTION\\\", "
      "\\\"inst\\\": \\\"$UNUM_INSTANCE\\\", \\\"pwd\\\": \\\"$(pwd)\\\"}\"\n");
  auto h = makeSubprocessHandler(exe, tmp.path());
  Context ctx;
  ctx.function = "F";
  ctx.instance = "F-unumIndex-2";
  HandlerResult r = h->call(*parseJsonValue(R"({"x": [1, 2]})"), ctx);
  ASSERT_TRUE(r.ok) << r.cause;
  EXPECT_EQ(*r.output.find("got"), *parseJsonValue(R"({"x": [1, 2]})"));
  EXPECT_EQ(*r.output.find("fn"), Value("F"));
  EXPECT_EQ(*r.output.find("inst"), Value("F-unumIndex-2"));
  EXPECT_EQ(fs::canonical(r.output.find("pwd")->getString()),
            fs::canonical(tmp.path()));
}

// A handler starts with no signal blocked, even when the thread that runs
// it blocks SIGTERM (unum-serve waits for it with sigwait).
TEST(Subprocess, HandlerStartsWithNoSignalBlocked) {
  TempDir tmp;
  // Prints the mask as a JSON string.
  std::string exe = writeScript(
      tmp.path(), "handler",
      "#!/bin/sh\n"
      "cat >/dev/null\n"
      "echo \"\\\"$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/self/status)"
      "\\\"\"\n");
  auto h = makeSubprocessHandler(exe, tmp.path());
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  Context ctx;
  ctx.function = "F";
  ctx.instance = "F";
  HandlerResult r = h->call(Value(int64_t(1)), ctx);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(r.ok) << r.cause;
  EXPECT_EQ(r.output, Value("0000000000000000"));
}

// Function URLs: entries, the "*" template, and the errors of each source.
TEST(FunctionUrls, EntriesTemplateAndErrors) {
  FunctionUrls urls;
  ASSERT_TRUE(bool(urls.addEntry("A=http://h:1/a", "--peer")));
  EXPECT_EQ(urls.urlFor("A"), "http://h:1/a");
  EXPECT_EQ(urls.urlFor("B"), "");
  ASSERT_TRUE(bool(urls.addEntry("*=http://h:2/fn/{function}", "--peer")));
  EXPECT_EQ(urls.urlFor("B"), "http://h:2/fn/B");
  EXPECT_EQ(urls.urlFor("A"), "http://h:1/a");
  EXPECT_EQ(urls.addEntry("A", "--peer").message(),
            "--peer: expected NAME=URL, got 'A'");
  EXPECT_EQ(urls.addEntry("A=https://h/", "--peer").message(),
            "--peer: 'A': expected an http:// URL or an arn:aws:lambda: ARN, "
            "got 'https://h/'");
  // A Lambda function's ARN is a target too (makeRemoteInvoker invokes it).
  const std::string arn = "arn:aws:lambda:us-east-1:123456789012:function:C";
  ASSERT_TRUE(bool(urls.addEntry("C=" + arn, "--peer")));
  EXPECT_EQ(urls.urlFor("C"), arn);
  TempDir tmp;
  std::string bad = tmp.path() + "/map.json";
  std::ofstream(bad) << R"({"A": 7})";
  EXPECT_EQ(urls.addFile(bad).message(),
            bad + ": 'A': expected an http:// URL or an arn:aws:lambda: ARN");
}

TEST(Subprocess, LargePayloadsDoNotDeadlock) {
  TempDir tmp;
  std::string exe = writeScript(tmp.path(), "handler", "#!/bin/sh\nexec cat\n");
  auto h = makeSubprocessHandler(exe, tmp.path());
  Value big = Value::array();
  for (int i = 0; i < 200000; ++i)
    big.push(Value("item-" + std::to_string(i)));
  Context ctx;
  HandlerResult r = h->call(big, ctx);
  ASSERT_TRUE(r.ok) << r.cause;
  EXPECT_EQ(r.output, big);
}

TEST(Subprocess, FailuresQuoteStderr) {
  TempDir tmp;
  Context ctx;
  auto exit3 = makeSubprocessHandler(
      writeScript(tmp.path(), "a", "#!/bin/sh\necho 'bad thing' >&2\nexit 3\n"),
      tmp.path());
  HandlerResult r = exit3->call(Value(1), ctx);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error, "States.TaskFailed");
  EXPECT_NE(r.cause.find("exited with status 3: bad thing"), std::string::npos)
      << r.cause;
  auto garbage = makeSubprocessHandler(
      writeScript(tmp.path(), "b", "#!/bin/sh\necho 'not json'\n"), tmp.path());
  r = garbage->call(Value(1), ctx);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.cause.find("output"), std::string::npos) << r.cause;
  // A handler that ignores its stdin is fine.
  auto noRead = makeSubprocessHandler(
      writeScript(tmp.path(), "c", "#!/bin/sh\necho 42\n"), tmp.path());
  Value big = Value(std::string(1 << 20, 'x'));
  r = noRead->call(big, ctx);
  ASSERT_TRUE(r.ok) << r.cause;
  EXPECT_EQ(r.output, Value(42));
  auto missing = makeSubprocessHandler(tmp.path() + "/nope", tmp.path());
  r = missing->call(Value(1), ctx);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.cause.find("cannot start"), std::string::npos) << r.cause;
}

TEST(Subprocess, EffectsOnASideChannel) {
  // Effects go to UNUM_EFFECTS_FD, one JSON value per line, from any
  // language; stdout stays the output. Blank lines are skipped.
  TempDir tmp;
  auto sh = makeSubprocessHandler(
      writeScript(tmp.path(), "sh",
                  "#!/bin/sh\n"
                  "read -r x\n"
                  "echo \"{\\\"mail\\\": $x}\" >&\"$UNUM_EFFECTS_FD\"\n"
                  "echo >&\"$UNUM_EFFECTS_FD\"\n"
                  "echo '[1, \"two\", null]' >&\"$UNUM_EFFECTS_FD\"\n"
                  "echo $((x + 1))\n"),
      tmp.path());
  Context ctx;
  ctx.effects.push_back(Value("staged before")); // appended to, not replaced
  HandlerResult r = sh->call(Value(41), ctx);
  ASSERT_TRUE(r.ok) << r.cause;
  EXPECT_EQ(r.output, Value(42));
  ASSERT_EQ(ctx.effects.size(), 3u);
  EXPECT_EQ(ctx.effects[1], *parseJsonValue(R"({"mail": 41})"));
  EXPECT_EQ(ctx.effects[2], *parseJsonValue(R"([1, "two", null])"));

  auto py = makeSubprocessHandler(
      writeScript(tmp.path(), "py",
                  "#!/usr/bin/env python3\n"
                  "import json, os, sys\n"
                  "x = json.load(sys.stdin)\n"
                  "with os.fdopen(int(os.environ['UNUM_EFFECTS_FD']), 'w') as "
                  "fx:\n"
                  "    for i in range(x['n']):\n"
                  "        print(json.dumps({'row': i}), file=fx)\n"
                  "print(json.dumps('done'))\n"),
      tmp.path());
  Context pyCtx;
  r = py->call(*parseJsonValue(R"({"n": 3})"), pyCtx);
  ASSERT_TRUE(r.ok) << r.cause;
  EXPECT_EQ(r.output, Value("done"));
  ASSERT_EQ(pyCtx.effects.size(), 3u);
  EXPECT_EQ(pyCtx.effects[2], *parseJsonValue(R"({"row": 2})"));
}

TEST(Subprocess, BadEffectLinesFailTheCallNamingTheLine) {
  TempDir tmp;
  auto call = [&](const std::string &name, const std::string &body,
                  Context &ctx) {
    return makeSubprocessHandler(writeScript(tmp.path(), name, body),
                                 tmp.path())
        ->call(Value(1), ctx);
  };
  Context ctx;
  HandlerResult r = call("a",
                         "#!/bin/sh\n"
                         "echo '{\"ok\": 1}' >&3\n"
                         "echo '{\"broken\": }' >&3\n"
                         "echo 1\n",
                         ctx);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.cause.find("effect on line 2 of UNUM_EFFECTS_FD is not valid "
                         "JSON (column 12"),
            std::string::npos)
      << r.cause;
  EXPECT_TRUE(ctx.effects.empty()) << "all or nothing";
  // Two values on one line (a pretty-printer's output split differently).
  r = call("b", "#!/bin/sh\necho '1 2' >&3\necho 1\n", ctx);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.cause.find("effect on line 1 of UNUM_EFFECTS_FD holds 2 JSON "
                         "values; write one per line"),
            std::string::npos)
      << r.cause;
  // A failed call stages nothing, whatever it wrote.
  r = call("c", "#!/bin/sh\necho '\"sent\"' >&3\nexit 1\n", ctx);
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(ctx.effects.empty());
}

TEST(Subprocess, ManyEffectsDoNotDeadlock) {
  // Far more than a pipe holds on each of the three channels, written
  // before the input is read: nothing blocks.
  TempDir tmp;
  auto h = makeSubprocessHandler(
      writeScript(tmp.path(), "handler",
                  "#!/bin/sh\n"
                  "yes '{\"k\": \"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\"}' | "
                  "head -n 50000 >&3\n"
                  "yes 'noise on stderr' | head -n 20000 >&2\n"
                  "exec cat\n"),
      tmp.path());
  Value big = Value(std::string(1 << 20, 'x'));
  Context ctx;
  HandlerResult r = h->call(big, ctx);
  ASSERT_TRUE(r.ok) << r.cause.substr(0, 200);
  EXPECT_EQ(r.output, big);
  ASSERT_EQ(ctx.effects.size(), 50000u);
  EXPECT_EQ(ctx.effects.back(),
            *parseJsonValue(R"({"k": "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"})"));
}

TEST(Subprocess, AppDirectoryWithHandlers) {
  // An app as the compiler writes it, with handlers in any language (here
  // sh), including a shared handler ("Handler": "A") and a helper builtin.
  TempDir tmp;
  std::string d = tmp.path();
  auto config = [&](const std::string &fn, const std::string &json) {
    fs::create_directories(d + "/" + fn);
    std::ofstream(d + "/" + fn + "/unum_config.json") << json;
  };
  config("UnumMap0", R"({"Name": "UnumMap0", "Next": {"Name": "A",
      "InputType": "Map"}, "Checkpoint": true, "Start": true})");
  config("A", R"({"Name": "A", "Next": {"Name": "UnumSinkMap0", "InputType":
      {"Fan-in": {"Values": ["A-unumIndex-*"]}}}, "Next Payload Modifiers":
      ["Pop"], "Checkpoint": true})");
  config("UnumSinkMap0", R"({"Name": "UnumSinkMap0", "Next": {"Name": "B",
      "InputType": "Scalar"}, "Checkpoint": true})");
  config("B", R"({"Name": "B", "Handler": "A", "Checkpoint": true})");
  writeScript(d + "/A", "handler", "#!/bin/sh\nread -r x\necho \"[$x]\"\n");
  auto app = App::load(d);
  ASSERT_TRUE(app.isOk()) << app.getStatus().message();
  ASSERT_TRUE(app->validate().isOk()) << app->validate().message();
  auto store = createMemoryStore();
  LocalRunner runner(*app, *store, {});
  RunResult r = runner.run(
      *parseJsonValue(R"({"Data": {"Source": "http", "Value": [1, 2, 3]}})"));
  ASSERT_TRUE(r.ok()) << r.errors[0];
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs["B"], *parseJsonValue("[[[1],[2],[3]]]"));
}

TEST(Subprocess, MissingHandlerIsReported) {
  TempDir tmp;
  fs::create_directories(tmp.path() + "/F");
  std::ofstream(tmp.path() + "/F/unum_config.json")
      << R"({"Name": "F", "Start": true})";
  auto app = App::load(tmp.path());
  ASSERT_TRUE(app.isOk());
  Status s = app->validate();
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("function 'F' has no handler"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("F/handler"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// HTTP: every function behind its own URL on a small local server
//===----------------------------------------------------------------------===//

namespace {
/// Accepts POST /fn/<Name>, answers 202 (404 for unknown functions), then
/// hands the payload to `handle` on a worker thread: a FaaS gateway on the
/// runtime's own HttpServer.
class LocalServer {
public:
  using Handle =
      std::function<void(const std::string &fn, const std::string &body)>;
  LocalServer(Handle handle, std::function<bool(const std::string &)> known)
      : handle(std::move(handle)), known(std::move(known)) {
    auto s = HttpServer::listen(
        "127.0.0.1", 0,
        [this](const std::string &path, const std::string &body) {
          std::string fn = path.rfind("/fn/", 0) == 0 ? path.substr(4) : "";
          if (!this->known(fn))
            return HttpResponse{404, "no such fn"};
          std::lock_guard<std::mutex> lock(mu);
          ++pending;
          queue.push_back({fn, body});
          cv.notify_one();
          return HttpResponse{202, ""};
        });
    EXPECT_TRUE(s.isOk()) << s.getStatus().message();
    server = s.take();
    for (int i = 0; i < 4; ++i)
      workers.emplace_back([this] { workLoop(); });
  }
  ~LocalServer() {
    server.reset();
    {
      std::lock_guard<std::mutex> lock(mu);
      stopping = true;
    }
    cv.notify_all();
    for (auto &w : workers)
      w.join();
  }
  int port() const { return server->port(); }
  /// Waits until every accepted request has been handled.
  void waitIdle() {
    std::unique_lock<std::mutex> lock(mu);
    idle.wait(lock, [&] { return pending == 0; });
  }
  int requests() const { return served.load(); }

private:
  void workLoop() {
    for (;;) {
      std::pair<std::string, std::string> job;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty())
          return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      handle(job.first, job.second);
      ++served;
      std::lock_guard<std::mutex> lock(mu);
      if (--pending == 0)
        idle.notify_all();
    }
  }

  Handle handle;
  std::function<bool(const std::string &)> known;
  std::unique_ptr<HttpServer> server;
  std::vector<std::thread> workers;
  std::mutex mu;
  std::condition_variable cv, idle;
  std::deque<std::pair<std::string, std::string>> queue;
  int pending = 0;
  bool stopping = false;
  std::atomic<int> served{0};
};

struct Collect : Observer {
  std::mutex mu;
  std::map<std::string, Value> outputs;
  std::vector<std::string> errors;
  void terminal(const std::string &, const std::string &instance,
                const Value &output) override {
    std::lock_guard<std::mutex> lock(mu);
    outputs[instance] = output;
  }
  void failed(const std::string &, const std::string &, const std::string &,
              const std::string &m) override {
    std::lock_guard<std::mutex> lock(mu);
    errors.push_back(m);
  }
};
} // namespace

TEST(Http, WorkflowOverHttp) {
  TestApp t = mapInParallelApp(5);
  TempDir tmp;
  std::string why;
  auto store = makeStore("sqlite", tmp, &why);
  ASSERT_TRUE(store) << why;
  Collect collect;
  std::unique_ptr<Runtime> rt;
  LocalServer server(
      [&](const std::string &fn, const std::string &body) {
        (void)rt->handleJson(fn, body);
      },
      [&](const std::string &fn) { return t.app.find(fn) != nullptr; });
  std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  HttpInvoker http([&](const std::string &fn) { return base + "/fn/" + fn; });
  RuntimeOptions opts;
  opts.observer = &collect;
  opts.mapConcurrency = 4;
  rt = std::make_unique<Runtime>(t.app, *store, http, opts);

  Payload start;
  start.session = newSessionId();
  start.value = t.input;
  ASSERT_TRUE(http.invoke("S", Payload(start)).isOk());
  server.waitIdle();
  EXPECT_TRUE(collect.errors.empty()) << collect.errors[0];
  Value outputs = Value::object();
  for (auto &[k, v] : collect.outputs)
    outputs.set(k, v);
  EXPECT_EQ(outputs, t.expected) << toJson(outputs);
  // S, M, Z, 5 W, SinkM, Join.
  EXPECT_EQ(server.requests(), 10);
  auto st = store->stats(start.session);
  EXPECT_EQ(st->dataRecords, 0u);
}

TEST(Http, ErrorsAndUnreachableEndpoints) {
  LocalServer server([](const std::string &, const std::string &) {},
                     [](const std::string &fn) { return fn == "A"; });
  std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  HttpInvoker http([&](const std::string &fn) { return base + "/fn/" + fn; });
  Payload p;
  EXPECT_TRUE(http.invoke("A", Payload(p)).isOk());
  Status notFound = http.invoke("B", Payload(p));
  ASSERT_FALSE(notFound.isOk());
  EXPECT_FALSE(notFound.isCrash());
  EXPECT_NE(notFound.message().find("HTTP 404"), std::string::npos)
      << notFound.message();
  server.waitIdle();
  HttpInvoker down([](const std::string &) { return "http://127.0.0.1:1/x"; });
  Status refused = down.invoke("A", Payload(p));
  ASSERT_FALSE(refused.isOk());
  EXPECT_TRUE(refused.isCrash()); // the platform may try again
  HttpInvoker https([](const std::string &) { return "https://example/x"; });
  EXPECT_NE(https.invoke("A", Payload(p)).message().find("only http://"),
            std::string::npos);
}

// A continuation its sender journaled (its payload carries the outbox
// entry) is durable before its POST: HttpInvoker sends it and leaves the
// answer to the connection's next request, so the sender's thread is not
// woken for it. Shown by order, not timing: the handler answers only after
// invoke() returned (an invoker that waited would time out), and the next
// request on the connection reads that answer first, a refusal included.
TEST(Http, AJournaledContinuationDoesNotWaitForItsAnswer) {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> served{0};
  auto server = HttpServer::listen(
      "127.0.0.1", 0, [&](const std::string &path, const std::string &) {
        if (path == "/fn/Slow") {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return open; });
        }
        ++served;
        return path == "/fn/Gone" ? HttpResponse{404, "no such fn"}
                                  : HttpResponse{202, ""};
      });
  ASSERT_TRUE(server.isOk()) << server.getStatus().message();
  std::string base = (*server)->url();
  HttpInvoker http([&](const std::string &fn) { return base + "/fn/" + fn; },
                   /*timeoutMs=*/3000);
  Payload journaled;
  journaled.session = newSessionId();
  detail::hints(journaled).outboxId = 7;
  detail::hints(journaled).issuedMs = 1;
  detail::hints(journaled).fresh = true;
  Status sent = http.invoke("Slow", Payload(journaled));
  EXPECT_TRUE(sent.isOk()) << sent.message();
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(served.load(), 0); // not answered yet: invoke() did not wait
    open = true;
  }
  cv.notify_all();
  // The next request takes the connection, reads the 202 it owes, and
  // gets its own answer.
  Payload plain;
  plain.session = journaled.session;
  EXPECT_TRUE(http.invoke("Fast", Payload(plain)).isOk());
  EXPECT_EQ(served.load(), 2);
  // A journaled POST that is refused is not an error of invoke() (it goes
  // to the OnRefusal callback, none here); the connection stays usable.
  EXPECT_TRUE(http.invoke("Gone", Payload(journaled)).isOk());
  EXPECT_TRUE(http.invoke("Fast", Payload(plain)).isOk());
  EXPECT_EQ(served.load(), 4);
  // A plain invocation is answered before invoke() returns.
  Status refused = http.invoke("Gone", Payload(plain));
  EXPECT_NE(refused.message().find("HTTP 404"), std::string::npos)
      << refused.message();
}

// A journaled POST's refusal for good (a 4xx other than 408 and 429) goes to
// the invoker's OnRefusal with the payload, also when no request follows
// on its connection (the pool's thread reads it); a transient answer (503)
// does not: its entry is left to the receiver's sweep.
TEST(Http, AJournaledContinuationsRefusalIsReported) {
  auto server = HttpServer::listen(
      "127.0.0.1", 0, [&](const std::string &path, const std::string &) {
        if (path == "/fn/Gone")
          return HttpResponse{404, "no function at '/fn/Gone'\n"};
        if (path == "/fn/Old")
          return HttpResponse{400, "payload: unknown field 'Outbox'\n"};
        if (path == "/fn/Busy")
          return HttpResponse{503, "shutting down\n"};
        return HttpResponse{202, ""};
      });
  ASSERT_TRUE(server.isOk()) << server.getStatus().message();
  std::string base = (*server)->url();
  HttpInvoker http([&](const std::string &fn) { return base + "/fn/" + fn; },
                   /*timeoutMs=*/5000);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> refused;
  http.setOnRefusal(
      [&](const std::string &fn, const Payload &p, const std::string &why) {
        std::lock_guard<std::mutex> lock(mu);
        refused.push_back(fn + " " + std::to_string(detail::hints(p).outboxId) +
                          " " + p.session + ": " + why);
        cv.notify_all();
      });
  auto reported = [&](size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10),
                       [&] { return refused.size() >= n; });
  };
  Payload journaled;
  journaled.session = "s1";
  detail::hints(journaled).outboxId = 7;
  detail::hints(journaled).issuedMs = 1;
  ASSERT_TRUE(http.invoke("Gone", Payload(journaled)).isOk());
  ASSERT_TRUE(reported(1)) << "the 404 was not reported";
  EXPECT_EQ(refused[0].find("Gone 7 s1: invoking Gone at " + base +
                            "/fn/Gone: HTTP 404: no function at '/fn/Gone' "
                            "(a continuation its sender journaled"),
            0u)
      << refused[0];
  detail::hints(journaled).outboxId = 8;
  ASSERT_TRUE(http.invoke("Busy", Payload(journaled)).isOk());
  detail::hints(journaled).outboxId = 9;
  ASSERT_TRUE(http.invoke("Old", Payload(journaled)).isOk());
  ASSERT_TRUE(reported(2)) << "the 400 was not reported";
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(refused.size(), 2u) << refused.back(); // not the 503
  EXPECT_NE(refused[1].find("Old 9 s1: "), std::string::npos) << refused[1];
  EXPECT_NE(refused[1].find("HTTP 400: payload: unknown field 'Outbox'"),
            std::string::npos)
      << refused[1];
}

// The connection a journaled POST leaves in the pool is not used again once
// its server closed it (a host that exited after answering): the next
// journaled POST, which nobody waits for, must not go down a dead
// connection and be lost.
TEST(Http, AJournaledPostDoesNotTakeAConnectionItsServerClosed) {
  std::mutex mu;
  std::condition_variable cv;
  int served = 0;
  auto handler = [&](const std::string &, const std::string &) {
    std::lock_guard<std::mutex> lock(mu);
    ++served;
    cv.notify_all();
    return HttpResponse{202, ""};
  };
  auto first = HttpServer::listen("127.0.0.1", 0, handler);
  ASSERT_TRUE(first.isOk()) << first.getStatus().message();
  const int port = (*first)->port();
  const std::string base = (*first)->url();
  HttpInvoker http([&](const std::string &fn) { return base + "/fn/" + fn; },
                   /*timeoutMs=*/5000);
  Payload journaled;
  journaled.session = newSessionId();
  detail::hints(journaled).outboxId = 7;
  detail::hints(journaled).issuedMs = 1;
  auto arrived = [&](int n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(5),
                       [&] { return served >= n; });
  };
  ASSERT_TRUE(http.invoke("A", Payload(journaled)).isOk());
  ASSERT_TRUE(arrived(1));
  first->reset(); // closes the kept-alive connection
  auto second = HttpServer::listen("127.0.0.1", port, handler);
  ASSERT_TRUE(second.isOk()) << second.getStatus().message();
  ASSERT_TRUE(http.invoke("A", Payload(journaled)).isOk());
  EXPECT_TRUE(arrived(2)) << "the second POST was lost";
}
