//===- TestUtil.cpp - Helpers shared by the runtime tests -----------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace unum::runtime;
using namespace unum::runtime::test;
namespace fs = std::filesystem;

static int freePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    close(fd);
    return 0;
  }
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

static std::string findInPath(const std::string &exe) {
  const char *path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  p += ":/usr/sbin:/usr/local/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos)
      end = p.size();
    fs::path candidate = fs::path(p.substr(start, end - start)) / exe;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    start = end + 1;
  }
  return "";
}

RedisServer *RedisServer::shared(std::string *whyNot) {
  static std::string reason;
  static std::unique_ptr<RedisServer> server = []() {
    std::string exe = findInPath("redis-server");
    if (exe.empty()) {
      reason = "redis-server is not installed (utils/bootstrap.sh installs "
               "it)";
      return std::unique_ptr<RedisServer>();
    }
    auto s = std::make_unique<RedisServer>();
    s->dir = TempDir().path(); // name only; recreated below
    fs::create_directories(s->dir);
    for (int attempt = 0; attempt < 5; ++attempt) {
      s->portNumber = freePort();
      std::string port = std::to_string(s->portNumber);
      std::vector<std::string> args = {exe,
                                       "--port",
                                       port,
                                       "--bind",
                                       "127.0.0.1",
                                       "--save",
                                       "",
                                       "--appendonly",
                                       "no",
                                       "--dir",
                                       s->dir,
                                       "--logfile",
                                       s->dir + "/redis.log"};
      std::vector<char *> argv;
      for (std::string &a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      pid_t pid;
      if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(),
                      environ) != 0)
        break;
      s->pid = pid;
      for (int i = 0; i < 100; ++i) {
        auto store = openRedisStore("127.0.0.1", s->portNumber);
        if (store)
          return s;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
          s->pid = -1;
          break; // exited (port taken?): try another port
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, nullptr, 0);
        s->pid = -1;
      }
    }
    reason = "redis-server did not start (see " + s->dir + "/redis.log)";
    return std::unique_ptr<RedisServer>();
  }();
  if (!server && whyNot)
    *whyNot = reason;
  return server.get();
}

RedisServer::~RedisServer() {
  if (pid > 0) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
  std::error_code ec;
  if (!dir.empty())
    fs::remove_all(dir, ec);
}

std::string RedisServer::uri() const {
  return "redis://127.0.0.1:" + std::to_string(portNumber);
}

DynaliteServer *DynaliteServer::shared(std::string *whyNot) {
  static std::string reason;
  static std::unique_ptr<DynaliteServer> server = []() {
    std::string node = findInPath("node");
    std::string cli =
        sourceDir() + "/utils/dynalite/node_modules/dynalite/cli.js";
    if (node.empty() || ::access(cli.c_str(), R_OK) != 0) {
      reason = node.empty() ? "node is not installed (utils/bootstrap.sh "
                              "installs nodejs and dynalite)"
                            : "dynalite is not installed (utils/bootstrap.sh "
                              "installs it in utils/dynalite)";
      return std::unique_ptr<DynaliteServer>();
    }
    // dynalite checks that requests are signed, not the signatures: any
    // credentials do (test/Runtime/aws-sigv4.test checks ours).
    setenv("AWS_ACCESS_KEY_ID", "AKIDUNUMTEST", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "unum-test-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
    auto s = std::make_unique<DynaliteServer>();
    for (int attempt = 0; attempt < 5; ++attempt) {
      s->portNumber = freePort();
      std::string port = std::to_string(s->portNumber);
      std::vector<std::string> args = {node,
                                       cli,
                                       "--port",
                                       port,
                                       "--host",
                                       "127.0.0.1",
                                       "--createTableMs",
                                       "0",
                                       "--deleteTableMs",
                                       "0"};
      std::vector<char *> argv;
      for (std::string &a : args)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      posix_spawn_file_actions_t quiet;
      posix_spawn_file_actions_init(&quiet);
      posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
      pid_t pid;
      int rc = posix_spawn(&pid, node.c_str(), &quiet, nullptr, argv.data(),
                           environ);
      posix_spawn_file_actions_destroy(&quiet);
      if (rc != 0)
        break;
      s->pid = pid;
      for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
          s->pid = -1;
          break; // exited (port taken?): try another port
        }
        if (openDataStore(s->uri()))
          return s;
      }
      if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, nullptr, 0);
        s->pid = -1;
      }
    }
    reason = "dynalite did not start";
    return std::unique_ptr<DynaliteServer>();
  }();
  if (!server && whyNot)
    *whyNot = reason;
  return server.get();
}

DynaliteServer::~DynaliteServer() {
  if (pid > 0) {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
}

std::string DynaliteServer::uri(const std::string &table) const {
  return "dynamodb://127.0.0.1:" + std::to_string(portNumber) + "/" + table +
         "?create=1";
}

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "unum-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()))
    dir = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!dir.empty())
    fs::remove_all(dir, ec);
}

std::unique_ptr<DataStore>
unum::runtime::test::makeStore(const std::string &kind, const TempDir &tmp,
                               std::string *whyNot, StoreOptions options) {
  if (kind == "memory")
    return createMemoryStore();
  if (kind == "sqlite") {
    static int counter = 0;
    auto s = openSqliteStore(
        tmp.path() + "/store" + std::to_string(counter++) + ".db", options);
    if (!s) {
      *whyNot = s.getStatus().message();
      return nullptr;
    }
    return s.take();
  }
  if (kind == "dynamodb") {
    DynaliteServer *server = DynaliteServer::shared(whyNot);
    if (!server)
      return nullptr;
    std::string uri = server->uri();
    if (options.ttlSeconds)
      uri += "&ttl=" + std::to_string(options.ttlSeconds);
    auto s = openDataStore(uri);
    if (!s) {
      *whyNot = s.getStatus().message();
      return nullptr;
    }
    return s.take();
  }
  RedisServer *server = RedisServer::shared(whyNot);
  if (!server)
    return nullptr;
  auto s = openRedisStore("127.0.0.1", server->port(), options);
  if (!s) {
    *whyNot = s.getStatus().message();
    return nullptr;
  }
  return s.take();
}

App unum::runtime::test::appFromJson(const std::vector<std::string> &configs) {
  auto app = App::fromJson(configs);
  EXPECT_TRUE(app.isOk()) << app.getStatus().message();
  return app ? app.take() : App();
}

std::string unum::runtime::test::sourceDir() {
  if (const char *s = std::getenv("UNUM_SOURCE_DIR"))
    return s;
#ifdef UNUM_SOURCE_DIR_DEFAULT
  return UNUM_SOURCE_DIR_DEFAULT;
#else
  return ".";
#endif
}

double unum::runtime::test::threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
