//===- RedisStore.cpp - The distributed data store (hiredis) --------------===//
//
// Every multi-key operation is one Lua script, so it is atomic on the server.
// Keys of a session share the hash tag {session}, which keeps a session on
// one Redis Cluster slot. Connections are pooled: a thread takes one for the
// duration of an operation.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/DataStore.h"

#include <hiredis/hiredis.h>

#include <memory>
#include <mutex>

using namespace unum::runtime;

namespace {
const char *const kPutScript = R"lua(
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  for i = 2, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  for i = 3, #KEYS do redis.call('SET', KEYS[i], 't', 'XX') end
  return {1}
end
return {0, redis.call('GET', KEYS[1])}
)lua";

const char *const kRetireScript = R"lua(
for i = 1, #KEYS do redis.call('SET', KEYS[i], 't', 'XX') end
return 1
)lua";

const char *const kAddScript = R"lua(
local meta = redis.call('HMGET', KEYS[2], 'expected', 'completer', 'consumed')
if meta[3] then return {2, tonumber(meta[1]) or 0} end
local expected = tonumber(ARGV[2])
if meta[1] then
  if tonumber(meta[1]) ~= expected then
    return redis.error_reply('completion set ' .. ARGV[3] .. ' expects ' ..
                             meta[1] .. ' members, not ' .. ARGV[2])
  end
else
  redis.call('HSET', KEYS[2], 'expected', ARGV[2])
  redis.call('SADD', KEYS[3], ARGV[3])
end
local added = redis.call('SADD', KEYS[1], ARGV[1])
local n = redis.call('SCARD', KEYS[1])
if added == 1 and n == expected then
  redis.call('HSET', KEYS[2], 'completer', ARGV[1])
  return {1, n}
end
if added == 0 and meta[2] == ARGV[1] then return {1, n} end
return {0, n}
)lua";

const char *const kConsumeScript = R"lua(
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'consumed', '1')
redis.call('SADD', KEYS[3], ARGV[1])
return 1
)lua";

struct ReplyDeleter {
  void operator()(redisReply *r) const {
    if (r)
      freeReplyObject(r);
  }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;
struct ContextDeleter {
  void operator()(redisContext *c) const {
    if (c)
      redisFree(c);
  }
};
using Connection = std::unique_ptr<redisContext, ContextDeleter>;

std::string prefix(const std::string &session) {
  return "unum:{" + session + "}:";
}

/// Escapes glob characters for SCAN MATCH.
std::string globEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

class RedisStore final : public DataStore {
public:
  RedisStore(std::string host, int port) : host(std::move(host)), port(port) {}

  Status connectCheck() {
    auto c = acquire();
    if (!c)
      return c.getStatus();
    Reply r(command(c->get(), {"PING"}));
    if (!r)
      return Status::error(where() + ": " + (*c)->errstr);
    release(c.take());
    return Status::ok();
  }

  std::string describe() const override {
    return "redis://" + host + ":" + std::to_string(port);
  }

  Result<std::optional<std::string>> get(const std::string &session,
                                         const std::string &instance) override {
    auto r = run({"GET", prefix(session) + "c:" + instance});
    if (!r)
      return r.getStatus();
    redisReply *rep = r->get();
    if (rep->type == REDIS_REPLY_NIL)
      return std::optional<std::string>();
    return std::optional<std::string>(std::string(rep->str, rep->len));
  }

  Result<std::vector<std::optional<std::string>>>
  getMany(const std::string &session,
          const std::vector<std::string> &instances) override {
    std::vector<std::optional<std::string>> out;
    if (instances.empty())
      return out;
    std::vector<std::string> args{"MGET"};
    for (const std::string &i : instances)
      args.push_back(prefix(session) + "c:" + i);
    auto r = run(args);
    if (!r)
      return r.getStatus();
    redisReply *rep = r->get();
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements != instances.size())
      return Status::error(where() + ": unexpected MGET reply");
    for (size_t i = 0; i < rep->elements; ++i) {
      redisReply *e = rep->element[i];
      out.push_back(e->type == REDIS_REPLY_STRING
                        ? std::optional(std::string(e->str, e->len))
                        : std::nullopt);
    }
    return out;
  }

  Result<PutResult> putIfAbsent(const std::string &session,
                                const std::string &instance,
                                const std::string &rec,
                                const std::vector<Effect> &effects,
                                const std::vector<std::string> &retireList) override {
    std::string p = prefix(session);
    std::vector<std::string> args{"EVAL", kPutScript,
                                  std::to_string(2 + retireList.size()),
                                  p + "c:" + instance, p + "fx"};
    for (const std::string &r : retireList)
      args.push_back(p + "c:" + r);
    args.push_back(rec);
    for (const Effect &e : effects)
      args.push_back(e.instance + '\n' + e.value);
    auto r = run(args);
    if (!r)
      return r.getStatus();
    redisReply *rep = r->get();
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 1)
      return Status::error(where() + ": unexpected checkpoint reply");
    if (rep->element[0]->integer == 1)
      return PutResult{true, rec};
    if (rep->elements < 2 || rep->element[1]->type != REDIS_REPLY_STRING)
      return Status::error(where() + ": checkpoint vanished after a lost put");
    return PutResult{false,
                     std::string(rep->element[1]->str, rep->element[1]->len)};
  }

  Status retire(const std::string &session,
                const std::vector<std::string> &instances) override {
    if (instances.empty())
      return Status::ok();
    std::string p = prefix(session);
    std::vector<std::string> args{"EVAL", kRetireScript,
                                  std::to_string(instances.size())};
    for (const std::string &i : instances)
      args.push_back(p + "c:" + i);
    auto r = run(args);
    return r ? Status::ok() : r.getStatus();
  }

  Result<AddResult> addToSet(const std::string &session, const std::string &set,
                             const std::string &member,
                             size_t expected) override {
    std::string p = prefix(session);
    auto r = run({"EVAL", kAddScript, "3", p + "s:" + set, p + "m:" + set,
                  p + "sets", member, std::to_string(expected), set});
    if (!r)
      return r.getStatus();
    redisReply *rep = r->get();
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2)
      return Status::error(where() + ": unexpected completion-set reply");
    long long state = rep->element[0]->integer;
    size_t n = size_t(rep->element[1]->integer);
    return AddResult{state == 1   ? AddResult::Completer
                     : state == 2 ? AddResult::Consumed
                                  : AddResult::Pending,
                     n};
  }

  Status consumeSet(const std::string &session,
                    const std::string &set) override {
    std::string p = prefix(session);
    auto r = run({"EVAL", kConsumeScript, "3", p + "s:" + set, p + "m:" + set,
                  p + "sets", set});
    return r ? Status::ok() : r.getStatus();
  }

  Status appendEffects(const std::string &session,
                       const std::vector<Effect> &effects) override {
    if (effects.empty())
      return Status::ok();
    std::vector<std::string> args{"RPUSH", prefix(session) + "fx"};
    for (const Effect &e : effects)
      args.push_back(e.instance + '\n' + e.value);
    auto r = run(args);
    return r ? Status::ok() : r.getStatus();
  }

  Result<std::vector<Effect>> effects(const std::string &session) override {
    auto r = run({"LRANGE", prefix(session) + "fx", "0", "-1"});
    if (!r)
      return r.getStatus();
    std::vector<Effect> out;
    redisReply *rep = r->get();
    for (size_t i = 0; i < rep->elements; ++i) {
      std::string s(rep->element[i]->str, rep->element[i]->len);
      size_t nl = s.find('\n');
      out.push_back({s.substr(0, nl), s.substr(nl + 1)});
    }
    return out;
  }

  Status put(const std::string &session, const std::string &key,
             const std::string &value) override {
    auto r = run({"SET", prefix(session) + "kv:" + key, value});
    return r ? Status::ok() : r.getStatus();
  }

  Result<Stats> stats(const std::string &session) override {
    Stats st;
    std::string p = prefix(session);
    auto keys = scan(globEscape(p) + "c:*");
    if (!keys)
      return keys.getStatus();
    st.records = keys->size();
    for (size_t i = 0; i < keys->size(); i += 1000) {
      std::vector<std::string> args{"MGET"};
      for (size_t j = i; j < keys->size() && j < i + 1000; ++j)
        args.push_back((*keys)[j]);
      auto r = run(args);
      if (!r)
        return r.getStatus();
      for (size_t j = 0; j < (*r)->elements; ++j) {
        redisReply *e = (*r)->element[j];
        st.dataRecords += e->type == REDIS_REPLY_STRING &&
                          !(e->len == 1 && e->str[0] == record::Done);
      }
    }
    auto sets = run({"SMEMBERS", p + "sets"});
    if (!sets)
      return sets.getStatus();
    for (size_t i = 0; i < (*sets)->elements; ++i) {
      std::string name((*sets)->element[i]->str, (*sets)->element[i]->len);
      auto meta = run({"HMGET", p + "m:" + name, "expected", "consumed"});
      auto card = run({"SCARD", p + "s:" + name});
      if (!meta || !card)
        return Status::error(where() + ": reading completion sets");
      redisReply *m = meta->get();
      if (m->element[1]->type == REDIS_REPLY_STRING) {
        ++st.consumedSets;
        continue;
      }
      size_t expected = m->element[0]->type == REDIS_REPLY_STRING
                            ? std::strtoull(m->element[0]->str, nullptr, 10)
                            : 0;
      st.pendingSets.push_back({name, size_t((*card)->integer), expected});
    }
    auto fx = run({"LLEN", p + "fx"});
    if (!fx)
      return fx.getStatus();
    st.effects = size_t((*fx)->integer);
    return st;
  }

  Status deleteSession(const std::string &session) override {
    auto keys = scan(globEscape(prefix(session)) + "*");
    if (!keys)
      return keys.getStatus();
    for (size_t i = 0; i < keys->size(); i += 1000) {
      std::vector<std::string> args{"UNLINK"};
      for (size_t j = i; j < keys->size() && j < i + 1000; ++j)
        args.push_back((*keys)[j]);
      auto r = run(args);
      if (!r)
        return r.getStatus();
    }
    return Status::ok();
  }

private:
  std::string where() const { return describe(); }

  Result<Connection> acquire() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!pool.empty()) {
        Connection c = std::move(pool.back());
        pool.pop_back();
        return c;
      }
    }
    timeval timeout{5, 0};
    Connection c(redisConnectWithTimeout(host.c_str(), port, timeout));
    if (!c)
      return Status::error(where() + ": out of memory");
    if (c->err)
      return Status::error("cannot connect to " + where() + ": " + c->errstr);
    return c;
  }

  void release(Connection c) {
    std::lock_guard<std::mutex> lock(mu);
    pool.push_back(std::move(c));
  }

  static redisReply *command(redisContext *c,
                             const std::vector<std::string> &args) {
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    argv.reserve(args.size());
    lens.reserve(args.size());
    for (const std::string &a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    return static_cast<redisReply *>(
        redisCommandArgv(c, int(args.size()), argv.data(), lens.data()));
  }

  /// One command on a pooled connection; an error reply becomes a Status.
  Result<Reply> run(const std::vector<std::string> &args) {
    countOp();
    auto c = acquire();
    if (!c)
      return c.getStatus();
    Reply r(command(c->get(), args));
    if (!r) // the connection is broken: drop it
      return Status::error(where() + ": " + (*c)->errstr);
    release(c.take());
    if (r->type == REDIS_REPLY_ERROR)
      return Status::error(where() + ": " + std::string(r->str, r->len));
    return r;
  }

  Result<std::vector<std::string>> scan(const std::string &pattern) {
    std::vector<std::string> keys;
    std::string cursor = "0";
    do {
      auto r = run({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
      if (!r)
        return r.getStatus();
      redisReply *rep = r->get();
      if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2)
        return Status::error(where() + ": unexpected SCAN reply");
      cursor.assign(rep->element[0]->str, rep->element[0]->len);
      for (size_t i = 0; i < rep->element[1]->elements; ++i)
        keys.emplace_back(rep->element[1]->element[i]->str,
                          rep->element[1]->element[i]->len);
    } while (cursor != "0");
    return keys;
  }

  std::string host;
  int port;
  std::mutex mu;
  std::vector<Connection> pool;
};
} // namespace

Result<std::unique_ptr<DataStore>>
unum::runtime::openRedisStore(const std::string &host, int port) {
  auto store = std::make_unique<RedisStore>(host, port);
  if (Status s = store->connectCheck(); !s)
    return s;
  return std::unique_ptr<DataStore>(std::move(store));
}
