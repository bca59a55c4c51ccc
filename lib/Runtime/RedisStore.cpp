//===- RedisStore.cpp - The distributed data store (hiredis) --------------===//
//
// Every multi-key operation is one Lua script, so it is atomic on the server.
// Keys of a session share the hash tag {session}, which keeps a session on
// one Redis Cluster slot. Connections are pooled: a thread takes one for the
// duration of an operation.
//
// Every command has a time limit (StoreOptions::timeoutSeconds). One that
// times out or loses its connection is sent again on a new connection, at
// most kAttempts times in all: safe, since every operation of the protocol
// may be repeated (a redelivered step repeats them anyway), except
// appendEffects, which is at-least-once by definition. After that the store
// is down: for the next 10 timeouts every operation fails at once with the
// same message, so a paused server ends a run quickly and says so once.
//
// The outbox (DataStore::stageIssued) lives in the hash unum:{session}:ob
// (id -> function, newline, payload). Staged changes go out ahead of the
// next write, in the same round trip for a checkpoint without effects; not
// in its transaction (Redis has none across a pipeline), which keeps the
// order that matters: an issue is durable before any write that follows it.
// One batch is in flight at a time, so that batches land in order.
// putIfAbsentIssuing writes a step's continuations into the outbox inside
// its put script: on a win only, atomically with the checkpoint.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/DataStore.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

using namespace unum::runtime;

namespace {
constexpr int kAttempts = 3;

// ARGV[1] of the put and retire scripts is the tombstones' TTL in ms ("0":
// kept until the session is deleted).
const char *const kPutScript = R"lua(
local function retire(key)
  if ARGV[1] ~= '0' then redis.call('SET', key, 't', 'XX', 'PX', ARGV[1])
  else redis.call('SET', key, 't', 'XX') end
end
for i = 3, #KEYS do retire(KEYS[i]) end
if redis.call('SET', KEYS[1], ARGV[2], 'NX') then
  for i = 3, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  return {1}
end
return {0, redis.call('GET', KEYS[1])}
)lua";

// The put that also journals its continuations (putIfAbsentIssuing): the
// outbox entries (ARGV pairs id, value after the ARGV[2] effects) are
// written only if SET NX wins, in the same script: a losing put leaves none.
// KEYS: the checkpoint, the effects list, the outbox hash. The retirements
// are plain commands after it in the same round trip (idempotent: winner
// and loser may both apply them): each redis.call costs the server more
// than the command sent on its own, and a step's put is its latency.
const char *const kPutIssuingScript = R"lua(
local old = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'GET')
if old then return {0, old} end
local ne = tonumber(ARGV[2])
for i = 3, 2 + ne do redis.call('RPUSH', KEYS[2], ARGV[i]) end
for i = 3 + ne, #ARGV - 1, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
return {1}
)lua";

const char *const kRetireScript = R"lua(
for i = 1, #KEYS do
  if ARGV[1] ~= '0' then redis.call('SET', KEYS[i], 't', 'XX', 'PX', ARGV[1])
  else redis.call('SET', KEYS[i], 't', 'XX') end
end
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

// ARGV[2]: the consumed marker's TTL in ms ("0": kept).
const char *const kConsumeScript = R"lua(
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'consumed', '1')
redis.call('SADD', KEYS[3], ARGV[1])
if ARGV[2] ~= '0' then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
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

/// Commands in RESP (arrays of bulk strings), written in place: a step's
/// put is formatted without building its arguments as strings first.
class Resp {
public:
  /// Starts a command of `nargs` arguments (then nargs arg() calls).
  Resp &command(size_t nargs) {
    header('*', nargs);
    ++count;
    return *this;
  }
  /// One argument, the concatenation of `parts`.
  Resp &arg(std::initializer_list<std::string_view> parts) {
    size_t n = 0;
    for (std::string_view p : parts)
      n += p.size();
    header('$', n);
    for (std::string_view p : parts)
      out.append(p);
    out += "\r\n";
    return *this;
  }
  Resp &arg(std::string_view a) { return arg({a}); }
  Resp &arg(uint64_t n) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    return arg(std::string_view(digits, size_t(end - digits)));
  }
  /// `other`'s commands after these.
  Resp &append(const Resp &other) {
    out += other.out;
    count += other.count;
    return *this;
  }
  bool empty() const { return count == 0; }
  void reserve(size_t bytes) { out.reserve(bytes); }

  std::string out;  // the protocol's bytes
  size_t count = 0; // commands, so replies to read

private:
  void header(char kind, size_t n) {
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
    out += kind;
    out.append(digits, end);
    out += "\r\n";
  }
};

class RedisStore final : public DataStore {
public:
  RedisStore(std::string host, int port, StoreOptions options)
      : host(std::move(host)), port(port),
        ttlMs(std::to_string(options.ttlSeconds * 1000)),
        timeoutMs(std::max<int64_t>(
            1, int64_t(std::llround(options.timeoutSeconds * 1000)))) {}

  Status connectCheck() {
    auto r = runRaw({"PING"});
    return r ? Status::ok() : r.getStatus();
  }

  std::string describe() const override {
    return "redis://" + host + ":" + std::to_string(port);
  }
  bool persistent() const override { return true; }

  Result<std::optional<std::string>> get(const std::string &session,
                                         const std::string &instance) override {
    // Staged outbox changes go first, in the same round trip: a host that
    // journals an invocation and looks for its checkpoint before answering
    // (LocalRunner::accept) pays one round trip for both.
    Resp cmd;
    cmd.command(2).arg("GET").arg({prefix(session), "c:", instance});
    auto replies = withStaged(cmd);
    if (!replies)
      return replies.getStatus();
    redisReply *rep = replies->back().get();
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
                                const std::string &instance, std::string rec,
                                const std::vector<Effect> &effects,
                                NameList retireList) override {
    std::string p = prefix(session);
    if (effects.empty()) {
      // The common case needs no script (EVAL costs about two round trips
      // of a plain command): SET NX GET is the conditional put, and the
      // retirement is idempotent, so winner and loser may both apply it.
      // No MULTI either: a retirement lost with the connection only keeps
      // data until the session is deleted.
      // Staged outbox changes go first, in the same round trip.
      Resp cmds;
      cmds.reserve(256 + rec.size() + retireList.size() * (96 + p.size()));
      cmds.command(5)
          .arg("SET")
          .arg({p, "c:", instance})
          .arg(rec)
          .arg("NX")
          .arg("GET");
      for (const std::string &r : retireList)
        retireCommand(cmds, p, r);
      auto replies = withStaged(cmds);
      if (!replies)
        return replies.getStatus();
      redisReply *old =
          (*replies)[replies->size() - 1 - retireList.size()].get();
      if (old->type == REDIS_REPLY_NIL)
        return PutResult{true, {}};
      if (old->type != REDIS_REPLY_STRING)
        return Status::error(where() + ": unexpected checkpoint reply");
      return PutResult{false, std::string(old->str, old->len)};
    }
    if (Status s = flushStaged(); !s)
      return s;
    std::vector<std::string> args{"EVAL", kPutScript,
                                  std::to_string(2 + retireList.size()),
                                  p + "c:" + instance, p + "fx"};
    for (const std::string &r : retireList)
      args.push_back(p + "c:" + r);
    args.push_back(ttlMs);
    args.push_back(rec);
    for (const Effect &e : effects)
      args.push_back(e.instance + '\n' + e.value);
    auto r = run(args);
    if (!r)
      return r.getStatus();
    return putReply(r->get());
  }

  bool issuesWithPut() const override { return true; }

  Result<PutResult>
  putIfAbsentIssuing(const std::string &session, const std::string &instance,
                     std::string rec, const std::vector<Effect> &effects,
                     NameList retireList,
                     const std::vector<Pending> &issues) override {
    if (issues.empty())
      return putIfAbsent(session, instance, std::move(rec), effects,
                         retireList);
    const std::string p = prefix(session);
    // EVALSHA, or with `body` EVAL with the script's body: a server that
    // lost the script (restarted, SCRIPT FLUSH) gets it. Staged outbox
    // changes go first, in the same round trip, the retirements after the
    // put (as putIfAbsent's).
    size_t bytes = 512 + rec.size();
    for (const Effect &e : effects)
      bytes += 32 + e.instance.size() + e.value.size();
    for (const Pending &e : issues)
      bytes += 64 + e.function.size() + e.payload.size();
    auto put = [&](bool body) {
      Resp cmds;
      cmds.reserve(bytes + (body ? std::strlen(kPutIssuingScript) : 0) +
                   retireList.size() * (96 + p.size()));
      cmds.command(3 + 3 + 2 + effects.size() + 2 * issues.size());
      if (body)
        cmds.arg("EVAL").arg(kPutIssuingScript);
      else
        cmds.arg("EVALSHA").arg(putIssuingSha());
      cmds.arg("3").arg({p, "c:", instance}).arg({p, "fx"}).arg({p, "ob"});
      cmds.arg(rec).arg(uint64_t(effects.size()));
      for (const Effect &e : effects)
        cmds.arg({e.instance, "\n", e.value});
      for (const Pending &e : issues)
        cmds.arg(e.id).arg({e.function, "\n", e.payload});
      for (const std::string &r : retireList)
        retireCommand(cmds, p, r);
      return cmds;
    };
    auto replies = withStaged(put(false));
    if (!replies &&
        replies.getStatus().message().find("NOSCRIPT") != std::string::npos)
      replies = withStaged(put(true));
    if (!replies)
      return replies.getStatus();
    return putReply((*replies)[replies->size() - 1 - retireList.size()].get());
  }

  Status retire(const std::string &session, NameList instances) override {
    if (instances.empty())
      return Status::ok();
    if (Status st = flushStaged(); !st)
      return st;
    std::string p = prefix(session);
    std::vector<std::string> args{"EVAL", kRetireScript,
                                  std::to_string(instances.size())};
    for (const std::string &i : instances)
      args.push_back(p + "c:" + i);
    args.push_back(ttlMs);
    auto r = run(args);
    return r ? Status::ok() : r.getStatus();
  }

  Result<AddResult> addToSet(const std::string &session, const std::string &set,
                             const std::string &member,
                             size_t expected) override {
    if (Status st = flushStaged(); !st)
      return st;
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
    if (Status st = flushStaged(); !st)
      return st;
    std::string p = prefix(session);
    auto r = run({"EVAL", kConsumeScript, "3", p + "s:" + set, p + "m:" + set,
                  p + "sets", set, ttlMs});
    return r ? Status::ok() : r.getStatus();
  }

  Status appendEffects(const std::string &session,
                       const std::vector<Effect> &effects) override {
    if (effects.empty())
      return Status::ok();
    if (Status st = flushStaged(); !st)
      return st;
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
    if (Status st = flushStaged(); !st)
      return st;
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
      if (m->element[0]->type == REDIS_REPLY_NIL &&
          m->element[1]->type == REDIS_REPLY_NIL && (*card)->integer == 0)
        continue; // a consumed marker that expired
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
    if (Status st = flushStaged(); !st)
      return st;
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

  Status flushOutbox() override {
    // A batch that another thread took (maybe with this thread's changes)
    // may still be on its way: once it has landed, or been put back after a
    // failure, whatever this thread staged is sent or durable. flushMu is
    // held from that wait to the end of this flush, so no other thread can
    // take this thread's changes in between and leave them on the way.
    std::lock_guard<std::mutex> flushing(flushMu);
    return flushLocked();
  }

  Result<std::vector<Pending>> outbox(const std::string &session) override {
    if (Status s = flushOutbox(); !s) // a batch in flight lands first
      return s;
    auto r = run({"HGETALL", prefix(session) + "ob"});
    if (!r)
      return r.getStatus();
    std::vector<Pending> out;
    redisReply *rep = r->get();
    for (size_t i = 0; i + 1 < rep->elements; i += 2) {
      std::string v(rep->element[i + 1]->str, rep->element[i + 1]->len);
      size_t nl = v.find('\n');
      if (nl == std::string::npos)
        return Status::error(where() + ": a malformed outbox entry");
      out.push_back({std::strtoull(rep->element[i]->str, nullptr, 10),
                     v.substr(0, nl), v.substr(nl + 1)});
    }
    return out;
  }

  Result<std::vector<std::string>> unfinishedSessions() override {
    if (Status s = flushOutbox(); !s)
      return s;
    auto keys = scan("unum:{*}:ob");
    if (!keys)
      return keys.getStatus();
    std::vector<std::string> out;
    for (const std::string &k : *keys) // unum:{SESSION}:ob
      out.push_back(k.substr(6, k.size() - 6 - 4));
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<std::vector<std::pair<std::string, std::string>>>
  scan(const std::string &session, const std::string &keyPrefix) override {
    std::string p = prefix(session) + "kv:";
    auto keys = scan(globEscape(p + keyPrefix) + "*");
    if (!keys)
      return keys.getStatus();
    std::sort(keys->begin(), keys->end());
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string &k : *keys) {
      auto r = run({"GET", k});
      if (!r)
        return r.getStatus();
      if ((*r)->type == REDIS_REPLY_STRING)
        out.emplace_back(k.substr(p.size()), std::string((*r)->str, (*r)->len));
    }
    return out;
  }

private:
  std::string where() const { return describe(); }

  /// Replaces checkpoint `instance` (of the session with key prefix `p`),
  /// if it is there, by a tombstone, which expires after the TTL if any.
  void retireCommand(Resp &cmds, const std::string &p,
                     const std::string &instance) const {
    const bool ttl = ttlMs != "0";
    cmds.command(ttl ? 6 : 4)
        .arg("SET")
        .arg({p, "c:", instance})
        .arg("t")
        .arg("XX");
    if (ttl)
      cmds.arg("PX").arg(ttlMs);
  }

  /// A put script's reply: {1} won, {0, the winner's record} lost.
  Result<PutResult> putReply(const redisReply *rep) const {
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 1)
      return Status::error(where() + ": unexpected checkpoint reply");
    if (rep->element[0]->integer == 1)
      return PutResult{true, {}};
    if (rep->elements < 2 || rep->element[1]->type != REDIS_REPLY_STRING)
      return Status::error(where() + ": checkpoint vanished after a lost put");
    return PutResult{false,
                     std::string(rep->element[1]->str, rep->element[1]->len)};
  }

  Result<Connection> acquire() {
    std::lock_guard<std::mutex> lock(mu);
    return acquireLocked();
  }

  Result<Connection> acquireLocked() {
    if (!pool.empty()) {
      Connection c = std::move(pool.back());
      pool.pop_back();
      return c;
    }
    timeval timeout{timeoutMs / 1000, (timeoutMs % 1000) * 1000};
    Connection c(redisConnectWithTimeout(host.c_str(), port, timeout));
    if (!c)
      return Status::error(where() + ": out of memory");
    if (c->err)
      return Status::error("cannot connect to " + where() + ": " +
                           reason(c.get()));
    // Replies too: a paused server must not hold a command forever.
    if (redisSetTimeout(c.get(), timeout) != REDIS_OK)
      return Status::error(where() + ": cannot set the command time limit");
    return c;
  }

  void release(Connection c) {
    std::lock_guard<std::mutex> lock(mu);
    pool.push_back(std::move(c));
  }

  /// Why a connection failed, in words (a time-out says how long).
  std::string reason(const redisContext *c) const {
    std::string err = c->errstr;
    if (err.find("temporarily unavailable") != std::string::npos ||
        err.find("timed out") != std::string::npos ||
        err.find("Timeout") != std::string::npos) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "no reply within %g s",
                    double(timeoutMs) / 1000);
      return buf;
    }
    return err;
  }

  static int64_t nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  /// `cmds` in RESP, one after the other.
  static Resp format(const std::vector<std::vector<std::string>> &cmds) {
    Resp out;
    for (const auto &args : cmds) {
      out.command(args.size());
      for (const std::string &a : args)
        out.arg(a);
    }
    return out;
  }

  /// Sends `cmds` on one connection and reads their replies. A connection
  /// that fails (time-out, reset) is dropped and the whole is sent again on
  /// a new one, kAttempts times at most; then the store is down (see the
  /// file comment). Error replies are returned as replies.
  Result<std::vector<Reply>> roundTrip(const Resp &cmds) {
    countOp();
    if (int64_t until = downUntil.load(); until && nowMs() < until) {
      std::lock_guard<std::mutex> lock(mu);
      return Status::error(downMessage);
    }
    std::string why;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      if (attempt > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
      auto c = acquire();
      if (!c) {
        why = c.getStatus().message();
        continue;
      }
      // The commands in the protocol's form, written by Resp (hiredis's
      // formatter costs more than the rest of a step's Redis client).
      redisAppendFormattedCommand(c->get(), cmds.out.data(), cmds.out.size());
      std::vector<Reply> replies;
      replies.reserve(cmds.count);
      bool broken = false;
      for (size_t i = 0; i < cmds.count && !broken; ++i) {
        void *r = nullptr;
        if (redisGetReply(c->get(), &r) != REDIS_OK || !r)
          broken = true;
        else
          replies.emplace_back(static_cast<redisReply *>(r));
      }
      if (broken) { // the connection goes: its state is unknown
        why = where() + ": " + reason(c->get());
        continue;
      }
      release(c.take());
      downUntil.store(0);
      return replies;
    }
    std::string msg = why + " (" + std::to_string(kAttempts) +
                      " attempts); the server is paused, overloaded or "
                      "unreachable";
    {
      std::lock_guard<std::mutex> lock(mu);
      downMessage = msg;
    }
    downUntil.store(nowMs() + 10 * timeoutMs);
    return Status::error(msg);
  }

  /// One command on a pooled connection; an error reply becomes a Status.
  /// EVAL goes out as EVALSHA (the server then neither receives nor hashes
  /// the script body), with EVAL as the fallback when the server does not
  /// know the script yet.
  Result<Reply> run(std::vector<std::string> args) {
    if (args.size() > 1 && args[0] == "EVAL") {
      std::string body = args[1];
      args[0] = "EVALSHA";
      args[1] = sha(body);
      auto r = runRaw(args);
      if (r || r.getStatus().message().find("NOSCRIPT") == std::string::npos)
        return r;
      args[0] = "EVAL";
      args[1] = body;
    }
    return runRaw(args);
  }

  /// sha(kPutIssuingScript), looked up once (its body is the map's key).
  std::string putIssuingSha() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!putIssuingShaCache.empty())
        return putIssuingShaCache;
    }
    std::string out = sha(kPutIssuingScript);
    std::lock_guard<std::mutex> lock(mu);
    if (out != "0")
      putIssuingShaCache = out;
    return out;
  }

  std::string sha(const std::string &body) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = shas.find(body);
      if (it != shas.end())
        return it->second;
    }
    // SCRIPT LOAD gives the SHA1 the server uses; computing it once here
    // avoids shipping a SHA1 implementation.
    auto r = runRaw({"SCRIPT", "LOAD", body});
    if (!r || (*r)->type != REDIS_REPLY_STRING)
      return "0";
    std::string out((*r)->str, (*r)->len);
    std::lock_guard<std::mutex> lock(mu);
    shas.emplace(body, out);
    return out;
  }

  Result<Reply> runRaw(const std::vector<std::string> &args) {
    auto replies = roundTrip(format({args}));
    if (!replies)
      return replies.getStatus();
    Reply r = std::move(replies->front());
    if (r->type == REDIS_REPLY_ERROR)
      return Status::error(where() + ": " + std::string(r->str, r->len));
    return r;
  }

  /// Several commands in one round trip; an error reply fails the whole.
  Result<std::vector<Reply>> pipeline(const Resp &cmds) {
    auto replies = roundTrip(cmds);
    if (!replies)
      return replies.getStatus();
    for (const Reply &r : *replies)
      if (r->type == REDIS_REPLY_ERROR)
        return Status::error(where() + ": " + std::string(r->str, r->len));
    return replies;
  }

  /// The commands that apply staged outbox changes.
  static void outboxCommands(const std::vector<OutboxChange> &changes,
                             Resp &cmds) {
    for (const OutboxChange &c : changes) {
      const std::string key = prefix(c.session) + "ob";
      if (c.issued)
        cmds.command(4).arg("HSET").arg(key).arg(c.id).arg(
            {c.function, "\n", c.payload});
      else
        cmds.command(3).arg("HDEL").arg(key).arg(c.id);
    }
  }

  /// `cmds` with the staged outbox changes ahead of them, in one round
  /// trip; the replies to `cmds` are the last ones. (Under flushMu:
  /// batches taken by two threads must not overtake each other, or an
  /// invocation's removal could land before its insertion.)
  Result<std::vector<Reply>> withStaged(const Resp &cmds) {
    if (!outboxStaged())
      return pipeline(cmds);
    std::lock_guard<std::mutex> flushing(flushMu);
    std::vector<OutboxChange> changes = takeOutbox();
    Resp all;
    size_t bytes = cmds.out.size();
    for (const OutboxChange &c : changes)
      bytes += 96 + c.session.size() + c.function.size() + c.payload.size();
    all.reserve(bytes);
    outboxCommands(changes, all);
    all.append(cmds);
    auto replies = pipeline(all);
    if (!replies)
      restoreOutbox(std::move(changes));
    return replies;
  }

  /// Sends the staged outbox changes ahead of a write.
  Status flushStaged() {
    if (!outboxStaged())
      return Status::ok();
    std::lock_guard<std::mutex> flushing(flushMu); // batches stay in order
    return flushLocked();
  }

  /// flushStaged() under flushMu.
  Status flushLocked() {
    std::vector<OutboxChange> changes = takeOutbox();
    if (changes.empty())
      return Status::ok();
    Resp cmds;
    outboxCommands(changes, cmds);
    auto r = pipeline(cmds);
    if (!r) {
      restoreOutbox(std::move(changes));
      return r.getStatus();
    }
    return Status::ok();
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
  std::string ttlMs; // of tombstones and consumed markers; "0": kept
  int64_t timeoutMs; // per command, and to connect
  std::atomic<int64_t> downUntil{0}; // steady ms; 0: up
  std::string downMessage;           // why it is down (mu)
  std::mutex flushMu;                // one outbox batch in flight at a time
  std::mutex mu;
  std::vector<Connection> pool;
  std::map<std::string, std::string> shas; // script body -> SHA1
  std::string putIssuingShaCache;          // putIssuingSha(), once known
};
} // namespace

Result<std::unique_ptr<DataStore>>
unum::runtime::openRedisStore(const std::string &host, int port,
                              StoreOptions options) {
  auto store = std::make_unique<RedisStore>(host, port, options);
  if (Status s = store->connectCheck(); !s)
    return s;
  return std::unique_ptr<DataStore>(std::move(store));
}
