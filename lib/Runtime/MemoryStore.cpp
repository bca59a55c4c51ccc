//===- MemoryStore.cpp - The in-process data store (tests) ----------------===//

#include "HotPath.h"
#include "unum/Runtime/DataStore.h"

#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

using namespace unum::runtime;

DataStore::~DataStore() = default;

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

private:
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

/// Splits "BASE?ttl=N" into BASE and the options.
static Result<std::pair<std::string, StoreOptions>>
storeOptions(const std::string &uri) {
  StoreOptions opts;
  size_t q = uri.rfind('?');
  if (q == std::string::npos)
    return std::make_pair(uri, opts);
  std::string query = uri.substr(q + 1);
  char *end = nullptr;
  long long ttl = query.rfind("ttl=", 0) == 0
                      ? std::strtoll(query.c_str() + 4, &end, 10)
                      : -1;
  if (ttl <= 0 || !end || *end)
    return Status::error("store '" + uri +
                         "': expected ?ttl=SECONDS (a positive integer)");
  opts.ttlSeconds = ttl;
  return std::make_pair(uri.substr(0, q), opts);
}

Result<std::unique_ptr<DataStore>>
unum::runtime::openDataStore(const std::string &full) {
  if (full == "memory")
    return createMemoryStore();
  auto parsed = storeOptions(full);
  if (!parsed)
    return parsed.getStatus();
  const std::string &uri = parsed->first;
  const StoreOptions &opts = parsed->second;
  if (uri == "memory")
    return Status::error("store '" + full +
                         "': the memory store lives as "
                         "long as the run; ?ttl is for sqlite and redis");
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
                       "' (expected memory, sqlite:PATH or redis://HOST:PORT)");
}
