//===- TestUtil.h - Helpers shared by the runtime tests ---------*- C++ -*-===//
#ifndef UNUM_UNITTESTS_RUNTIME_TESTUTIL_H
#define UNUM_UNITTESTS_RUNTIME_TESTUTIL_H

#include "unum/Runtime/App.h"
#include "unum/Runtime/DataStore.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace unum::runtime::test {

/// This thread's CPU time in seconds. The complexity tests bound it rather
/// than wall time, which a loaded 2-core CI box stretches several-fold.
double threadCpuSeconds();

/// A redis-server started for the test binary on a free 127.0.0.1 port and
/// stopped when the binary exits. Null (with `whyNot`) when redis-server is
/// not installed or does not come up.
class RedisServer {
public:
  static RedisServer *shared(std::string *whyNot = nullptr);
  ~RedisServer();
  std::string uri() const;
  int port() const { return portNumber; }

private:
  int portNumber = 0;
  int pid = -1;
  std::string dir;
};

/// dynalite (utils/dynalite, an independent DynamoDB implementation on
/// Node.js) started for the test binary on a free 127.0.0.1 port and stopped
/// when the binary exits; the tests' AWS credentials and region are set in
/// the environment. Null (with `whyNot`) when node or dynalite is missing.
class DynaliteServer {
public:
  static DynaliteServer *shared(std::string *whyNot = nullptr);
  ~DynaliteServer();
  /// dynamodb://127.0.0.1:PORT/TABLE?create=1 (the table is created once).
  std::string uri(const std::string &table = "unum-test") const;
  int port() const { return portNumber; }

private:
  int portNumber = 0;
  int pid = -1;
};

/// A fresh temporary directory, removed on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return dir; }

private:
  std::string dir;
};

/// A store of the given kind ("memory", "sqlite", "redis", "dynamodb") with
/// fresh state; nullptr with `whyNot` when it cannot be had (redis or
/// dynalite not installed).
std::unique_ptr<DataStore> makeStore(const std::string &kind,
                                     const TempDir &tmp, std::string *whyNot,
                                     StoreOptions options = {});

/// A test run once per store kind (the parameter): `store` is a fresh store
/// of that kind; the test is skipped, saying why, when it cannot be had.
class StoreTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    std::string why;
    store = makeStore(GetParam(), tmp, &why);
    if (!store)
      GTEST_SKIP() << why;
  }
  TempDir tmp;
  std::unique_ptr<DataStore> store;
};

/// Decodes configs (JSON texts) into an App; fails the test on error.
App appFromJson(const std::vector<std::string> &configs);

/// The repository's source directory (UNUM_SOURCE_DIR or the build default).
std::string sourceDir();

} // namespace unum::runtime::test

#endif // UNUM_UNITTESTS_RUNTIME_TESTUTIL_H
