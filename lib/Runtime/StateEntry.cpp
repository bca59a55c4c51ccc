//===- StateEntry.cpp - What a state fixes when it is first entered -------===//
//
// See StateEntry.h for the protocol.
//
//===----------------------------------------------------------------------===//
#include "StateEntry.h"

#include "unum/Config/Timestamp.h"
#include "unum/Runtime/Runtime.h"

#include <chrono>

using namespace unum::runtime;

std::string detail::contextTime(const RuntimeOptions &opts) {
  if (opts.clock)
    return config::formatTimestamp(opts.clock());
  auto since = std::chrono::system_clock::now().time_since_epoch();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(since).count();
  return config::formatTimestamp(
      {int64_t(ns / 1000000000), uint32_t(ns % 1000000000)});
}

std::shared_ptr<const Value> detail::newExecution(const Value &input,
                                                  std::string startTime) {
  auto v = std::make_shared<Value>(Value::object());
  v->set("Input", input);
  v->set("StartTime", std::move(startTime));
  return v;
}

std::string detail::enteredName(const std::string &instance) {
  return instance + "#entered";
}

std::string detail::attemptName(const std::string &instance, unsigned k) {
  return instance + "#attempt-" + std::to_string(k);
}

static Status storeCrash(const Status &s, const std::string &what) {
  return Status::crash(what + ": " + s.message());
}

/// A record's JSON, or nullopt for a tombstone (the instance finished
/// without a checkpoint of its own, so it may start over).
static Result<std::optional<Value>> decode(const std::string &rec,
                                           const std::string &name) {
  if (!rec.empty() && rec[0] == record::Done)
    return std::optional<Value>();
  if (rec.empty() || rec[0] != record::Output)
    return Status::error("'" + name + "' is not a record of its state entry");
  auto v = parseJsonValue(std::string_view(rec).substr(1), "'" + name + "'");
  if (!v)
    return v.getStatus();
  return std::optional<Value>(v.take());
}

Result<std::string> detail::pinEnteredTime(DataStore &store,
                                           const std::string &session,
                                           const std::string &instance,
                                           std::string now,
                                           std::vector<std::string> &pinned) {
  std::string name = enteredName(instance);
  std::string rec(1, record::Output);
  appendJson(rec, Value(now));
  auto put = store.putIfAbsent(session, name, std::move(rec), {}, {});
  if (!put)
    return storeCrash(put.getStatus(), "recording the state's EnteredTime");
  pinned.push_back(name);
  if (put->won)
    return now;
  auto v = decode(put->record, name);
  if (!v)
    return v.getStatus();
  if (!*v)
    return now;
  if (!(*v)->isString())
    return Status::error("'" + name + "' does not hold a time");
  return (*v)->getString();
}

/// The counts of an attempt record.
static Status readCounts(const Value &v, const std::string &name,
                         detail::Attempts &attempts) {
  const Value *list = v.find("Retries");
  const Value *delay = v.find("Delay");
  if (!list || !list->isArray() || !delay || !delay->isNumber())
    return Status::error("'" + name + "' has no Retries and Delay");
  attempts.delay = delay->getNumber();
  std::vector<int64_t> &counts = attempts.counts;
  counts.clear();
  for (const Value &c : list->getArray()) {
    if (!c.isInt() || c.getInt() < 0)
      return Status::error("'" + name + "' has a bad retry count");
    counts.push_back(c.getInt());
  }
  return Status::ok();
}

Status detail::loadAttempts(DataStore &store, const std::string &session,
                            const std::string &instance, Attempts &attempts,
                            std::vector<std::string> &pinned) {
  // Every attempt adds a retrier's count, so there are at most as many
  // records as MaxAttempts allow in all; the loop ends at the first gap.
  for (unsigned k = attempts.done + 1;; ++k) {
    std::string name = attemptName(instance, k);
    auto rec = store.get(session, name);
    if (!rec)
      return storeCrash(rec.getStatus(), "reading the retry state");
    if (!*rec)
      return Status::ok();
    auto v = decode(**rec, name);
    if (!v)
      return v.getStatus();
    if (!*v)
      return Status::ok();
    if (Status s = readCounts(**v, name, attempts); !s)
      return s;
    attempts.done = k;
    pinned.push_back(std::move(name));
  }
}

Status detail::saveAttempt(DataStore &store, const std::string &session,
                           const std::string &instance, Attempts &attempts,
                           std::vector<std::string> &pinned) {
  std::string name = attemptName(instance, attempts.done);
  Value v = Value::object();
  Value counts = Value::array();
  for (int64_t c : attempts.counts)
    counts.push(Value(c));
  v.set("Retries", std::move(counts));
  v.set("Delay", attempts.delay);
  std::string rec(1, record::Output);
  appendJson(rec, v);
  auto put = store.putIfAbsent(session, name, std::move(rec), {}, {});
  if (!put)
    return storeCrash(put.getStatus(), "recording the retry state");
  pinned.push_back(name);
  if (put->won)
    return Status::ok();
  auto won = decode(put->record, name);
  if (!won)
    return won.getStatus();
  if (!*won)
    return Status::ok();
  return readCounts(**won, name, attempts);
}
