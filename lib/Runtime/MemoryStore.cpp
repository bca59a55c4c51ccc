//===- MemoryStore.cpp - The in-process data store (tests) ----------------===//

#include "DataStoreInternal.h"
#include "HotPath.h"
#include "unum/Runtime/DataStore.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

using namespace unum::runtime;

DataStore::~DataStore() = default;

static std::atomic<void (*)()> outboxBatchTaken{nullptr};

void detail::StoreAccess::onOutboxBatchTaken(void (*hook)()) {
  outboxBatchTaken.store(hook);
}

void DataStore::stageIssued(const std::string &session, uint64_t id,
                            const std::string &function, std::string payload) {
  std::lock_guard<std::mutex> lock(outboxMu);
  outboxBatch.push_back({session, id, true, function, std::move(payload)});
  staged.store(true, std::memory_order_release);
}

void DataStore::stageFinished(const std::string &session, uint64_t id,
                              const std::string &function) {
  std::lock_guard<std::mutex> lock(outboxMu);
  outboxBatch.push_back({session, id, false, function, {}});
  staged.store(true, std::memory_order_release);
}

std::vector<DataStore::OutboxChange> DataStore::takeOutbox() {
  std::vector<OutboxChange> batch;
  {
    std::lock_guard<std::mutex> lock(outboxMu);
    batch.swap(outboxBatch);
    staged.store(false, std::memory_order_release);
  }
  // An invocation issued and finished in this batch needs neither write
  // (ids are unique per process: the session need not be compared).
  std::unordered_map<uint64_t, size_t> issuedAt;
  std::vector<bool> drop(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].issued) {
      issuedAt[batch[i].id] = i;
      continue;
    }
    auto it = issuedAt.find(batch[i].id);
    if (it != issuedAt.end()) {
      drop[it->second] = drop[i] = true;
      issuedAt.erase(it);
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < batch.size(); ++i)
    if (!drop[i] && kept++ != i)
      batch[kept - 1] = std::move(batch[i]);
  batch.resize(kept);
  if (!batch.empty())
    if (auto hook = outboxBatchTaken.load(std::memory_order_relaxed))
      hook();
  return batch;
}

void DataStore::restoreOutbox(std::vector<OutboxChange> changes) {
  if (changes.empty())
    return;
  std::lock_guard<std::mutex> lock(outboxMu);
  changes.insert(changes.end(), std::make_move_iterator(outboxBatch.begin()),
                 std::make_move_iterator(outboxBatch.end()));
  outboxBatch = std::move(changes);
  staged.store(true, std::memory_order_release);
}

// A store without an outbox keeps nothing: nothing outlives it.
Status DataStore::flushOutbox() {
  (void)takeOutbox();
  return Status::ok();
}

Result<std::vector<DataStore::Pending>> DataStore::outbox(const std::string &) {
  return std::vector<Pending>();
}

Result<std::vector<std::string>> DataStore::unfinishedSessions() {
  return std::vector<std::string>();
}

Result<std::vector<std::pair<std::string, std::string>>>
DataStore::scan(const std::string &, const std::string &) {
  return Status::error(describe() + ": cannot list what a session wrote");
}

namespace {
class MemoryStore final : public DataStore {
  struct CompletionSet {
    std::set<std::string> members;
    size_t expected = 0;
    std::string completer;
    bool consumed = false;
  };
  struct Session {
    std::unordered_map<std::string, std::string> records;
    /// The record the last put inserted (elements of an unordered_map stay
    /// put when it rehashes; records are never erased). A chain step
    /// retires its sender's record, which is this one: no second probe.
    std::pair<const std::string, std::string> *lastPut = nullptr;
    std::map<std::string, CompletionSet> sets;
    std::vector<Effect> effects;
    std::unordered_map<std::string, std::string> kv;
    std::map<uint64_t, Pending> outbox;
  };

public:
  std::string describe() const override { return "memory"; }

  Result<std::optional<std::string>> get(const std::string &session,
                                         const std::string &instance) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    Session &s = sessions[session];
    auto it = s.records.find(instance);
    if (it == s.records.end())
      return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }

  Result<std::vector<std::optional<std::string>>>
  getMany(const std::string &session,
          const std::vector<std::string> &instances) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    Session &s = sessions[session];
    std::vector<std::optional<std::string>> out;
    out.reserve(instances.size());
    for (const std::string &i : instances) {
      auto it = s.records.find(i);
      out.push_back(it == s.records.end() ? std::nullopt
                                          : std::optional(it->second));
    }
    return out;
  }

  UNUM_HOT Result<PutResult> putIfAbsent(const std::string &session,
                                         const std::string &instance,
                                         std::string rec,
                                         const std::vector<Effect> &effects,
                                         NameList retire) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    Session &s = sessions[session];
    retireLocked(s, retire);
    auto [it, inserted] = s.records.try_emplace(instance, std::move(rec));
    if (!inserted)
      return PutResult{false, it->second};
    s.lastPut = &*it;
    s.effects.insert(s.effects.end(), effects.begin(), effects.end());
    return PutResult{true, {}};
  }

  Status retire(const std::string &session, NameList instances) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    retireLocked(sessions[session], instances);
    return Status::ok();
  }

  Result<AddResult> addToSet(const std::string &session, const std::string &set,
                             const std::string &member,
                             size_t expected) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    CompletionSet &cs = sessions[session].sets[set];
    if (cs.consumed)
      return AddResult{AddResult::Consumed, cs.expected};
    if (cs.expected == 0)
      cs.expected = expected;
    else if (cs.expected != expected)
      return Status::error("completion set '" + set + "' expects " +
                           std::to_string(cs.expected) + " members, not " +
                           std::to_string(expected));
    bool added = cs.members.insert(member).second;
    size_t n = cs.members.size();
    if (added && n == expected) {
      cs.completer = member;
      return AddResult{AddResult::Completer, n};
    }
    if (!added && cs.completer == member)
      return AddResult{AddResult::Completer, n};
    return AddResult{AddResult::Pending, n};
  }

  Status consumeSet(const std::string &session,
                    const std::string &set) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    CompletionSet &cs = sessions[session].sets[set];
    cs.members.clear();
    cs.consumed = true;
    return Status::ok();
  }

  Status appendEffects(const std::string &session,
                       const std::vector<Effect> &effects) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    Session &s = sessions[session];
    s.effects.insert(s.effects.end(), effects.begin(), effects.end());
    return Status::ok();
  }

  Result<std::vector<Effect>> effects(const std::string &session) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    return sessions[session].effects;
  }

  Status put(const std::string &session, const std::string &key,
             const std::string &value) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    sessions[session].kv[key] = value;
    return Status::ok();
  }

  Result<Stats> stats(const std::string &session) override {
    std::lock_guard<std::mutex> lock(mu);
    Stats st;
    auto sit = sessions.find(session);
    if (sit == sessions.end())
      return st;
    Session &s = sit->second;
    st.records = s.records.size();
    for (auto &r : s.records)
      st.dataRecords += !r.second.empty() && r.second[0] != record::Done;
    for (auto &[key, cs] : s.sets) {
      if (cs.consumed)
        ++st.consumedSets;
      else
        st.pendingSets.push_back({key, cs.members.size(), cs.expected});
    }
    st.effects = s.effects.size();
    return st;
  }

  Status deleteSession(const std::string &session) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    sessions.erase(session);
    return Status::ok();
  }

  // The outbox is applied when it is read: nothing here outlives the
  // process, so when a change lands does not matter.
  Status flushOutbox() override {
    std::lock_guard<std::mutex> lock(mu);
    flushLocked();
    return Status::ok();
  }

  Result<std::vector<Pending>> outbox(const std::string &session) override {
    std::lock_guard<std::mutex> lock(mu);
    flushLocked();
    std::vector<Pending> out;
    auto it = sessions.find(session);
    if (it != sessions.end())
      for (const auto &[id, p] : it->second.outbox)
        out.push_back(p);
    return out;
  }

  Result<std::vector<std::string>> unfinishedSessions() override {
    std::lock_guard<std::mutex> lock(mu);
    flushLocked();
    std::vector<std::string> out;
    for (const auto &[name, s] : sessions)
      if (!s.outbox.empty())
        out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<std::vector<std::pair<std::string, std::string>>>
  scan(const std::string &session, const std::string &prefix) override {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::pair<std::string, std::string>> out;
    auto it = sessions.find(session);
    if (it != sessions.end())
      for (const auto &[key, value] : it->second.kv)
        if (key.compare(0, prefix.size(), prefix) == 0)
          out.emplace_back(key, value);
    std::sort(out.begin(), out.end());
    return out;
  }

private:
  void flushLocked() {
    if (!outboxStaged())
      return;
    for (OutboxChange &c : takeOutbox()) {
      Session &s = sessions[c.session];
      if (c.issued)
        s.outbox[c.id] =
            Pending{c.id, std::move(c.function), std::move(c.payload)};
      else
        s.outbox.erase(c.id);
    }
  }

  static void retireLocked(Session &s, NameList names) {
    for (const std::string &name : names) {
      std::string *rec;
      if (s.lastPut && s.lastPut->first == name) {
        rec = &s.lastPut->second;
      } else {
        auto it = s.records.find(name);
        if (it == s.records.end())
          continue;
        rec = &it->second;
      }
      // The data goes (a retired record keeps one byte); a short record
      // is overwritten in place.
      if (rec->capacity() > 15) {
        *rec = std::string(1, record::Done);
      } else {
        rec->erase(1); // records are never empty
        (*rec)[0] = record::Done;
      }
    }
  }

  std::mutex mu;
  std::unordered_map<std::string, Session> sessions;
};
} // namespace

std::unique_ptr<DataStore> unum::runtime::createMemoryStore() {
  return std::make_unique<MemoryStore>();
}

/// Splits "BASE?ttl=N&timeout=S" into BASE and the options; items it does
/// not know go to `extra` if given (else they are an error).
static Result<std::pair<std::string, StoreOptions>>
storeOptions(const std::string &uri, std::vector<std::string> *extra) {
  StoreOptions opts;
  size_t q = uri.rfind('?');
  if (q == std::string::npos)
    return std::make_pair(uri, opts);
  std::string query = uri.substr(q + 1);
  for (size_t at = 0; at <= query.size();) {
    size_t amp = query.find('&', at);
    if (amp == std::string::npos)
      amp = query.size();
    std::string item = query.substr(at, amp - at);
    at = amp + 1;
    char *end = nullptr;
    if (item.rfind("ttl=", 0) == 0) {
      long long ttl = std::strtoll(item.c_str() + 4, &end, 10);
      if (ttl <= 0 || item.size() == 4 || *end)
        return Status::error("store '" + uri +
                             "': expected ?ttl=SECONDS (a positive integer)");
      opts.ttlSeconds = ttl;
    } else if (item.rfind("timeout=", 0) == 0) {
      double t = std::strtod(item.c_str() + 8, &end);
      if (!(t > 0) || t > 3600 || item.size() == 8 || *end)
        return Status::error("store '" + uri +
                             "': expected timeout=SECONDS (0 < SECONDS <= "
                             "3600)");
      opts.timeoutSeconds = t;
    } else if (extra) {
      extra->push_back(item);
    } else {
      return Status::error("store '" + uri +
                           "': expected ?ttl=SECONDS (a positive integer)");
    }
  }
  return std::make_pair(uri.substr(0, q), opts);
}

Result<std::unique_ptr<DataStore>>
unum::runtime::openDataStore(const std::string &full) {
  if (full == "memory")
    return createMemoryStore();
  std::vector<std::string> extra;
  const bool dynamo = full.rfind("dynamodb://", 0) == 0;
  auto parsed = storeOptions(full, dynamo ? &extra : nullptr);
  if (!parsed)
    return parsed.getStatus();
  const std::string &uri = parsed->first;
  const StoreOptions &opts = parsed->second;
  if (uri == "memory")
    return Status::error("store '" + full +
                         "': the memory store lives as "
                         "long as the run; ?ttl is for sqlite and redis");
  if (dynamo)
    return openDynamoStore(uri, extra, opts);
  if (uri.rfind("sqlite:", 0) == 0) {
    std::string path = uri.substr(7);
    if (path.empty())
      return Status::error("store '" + uri + "': sqlite needs a path");
    return openSqliteStore(path, opts);
  }
  if (uri.rfind("redis://", 0) == 0) {
    std::string rest = uri.substr(8);
    while (!rest.empty() && rest.back() == '/')
      rest.pop_back();
    size_t colon = rest.rfind(':');
    std::string host =
        colon == std::string::npos ? rest : rest.substr(0, colon);
    int port = 6379;
    if (colon != std::string::npos) {
      char *end = nullptr;
      long p = std::strtol(rest.c_str() + colon + 1, &end, 10);
      if (*end || p <= 0 || p > 65535)
        return Status::error("store '" + uri + "': bad port");
      port = int(p);
    }
    if (host.empty())
      return Status::error("store '" + uri + "': missing host");
    return openRedisStore(host, port, opts);
  }
  return Status::error("unknown store '" + uri +
                       "' (expected memory, sqlite:PATH, redis://HOST:PORT or "
                       "dynamodb://HOST:PORT/TABLE)");
}
