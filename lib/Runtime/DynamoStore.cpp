//===- DynamoStore.cpp - The data store on Amazon DynamoDB ----------------===//
//
// The original Unum's store. One table, key (pk: the session, sk: the item),
// so that a session is one partition that Query reads and deleteSession
// empties. Items, by sort key:
//
//   c#INSTANCE  a checkpoint: v (binary record), w (the writer's token), fx
//               (the winner's effects), ttl/xp on a tombstone
//   f#INSTANCE  the effects committed with that checkpoint (kept until the
//               session is deleted, unlike a tombstone)
//   g#TIME-RND  effects appended outside a checkpoint
//   s#SET       a completion set: m (string set of members), e (expected), c
//               (the completer), done (consumed), ttl/xp on a consumed marker
//   k#KEY       a plain write (put/scan)
//
// The outbox lives apart from the sessions, in kOutboxShards partitions
// "unum-outbox#K" (K: a hash of the session), an entry's sort key
// SESSION#ID (ID: 20 digits), with fn and p (the wire payload): a
// session's outbox is one Query of one partition, and unfinishedSessions()
// one Query per shard, both strongly consistent, instead of a Scan of the
// whole table (every host sweeps every second: scans of a large table are
// what overloaded dynalite). The shards spread the outbox's writes over
// several partitions. ("unum-outbox#..." is no session's name:
// deleteSession refuses it.) The item (unum-layout, layout) marks a table
// of this layout: a store before it kept its outbox entries as o#ID items
// in the session's partition, which this one does not read, so a table
// without the marker is refused unless it is empty (checkLayout).
//
// DynamoDB makes single items atomic, and that is all the protocol needs
// (DataStore.h), with one twist: a checkpoint's effects are written inside
// the checkpoint item (atomic with it), then copied to their own f# item
// before putIfAbsent returns, by the winner or, should it crash in between,
// by whoever loses to its record or reads it (get: a redelivery that
// continues from it) next; so once anyone continues from a checkpoint, its
// effects are durable apart from it and its tombstone may expire. The
// retirement of the inputs a checkpoint names comes after the checkpoint,
// as a winner's or a loser's (both prove the inputs done). A completion set's
// completer is the member whose add first finds the set full and claims it (a
// conditional write of c): one claim wins, and a retried claimant finds its own
// name there.
//
// TTL: tombstones and consumed markers carry ttl (epoch seconds, rounded up:
// the attribute DynamoDB's own expiry deletes by, which the SAM template
// enables) and xp (epoch milliseconds). DynamoDB deletes expired items late
// (within days) and dynalite never does, so every read treats an item whose
// xp has passed as absent, and a put may overwrite it.
//
// The outbox: staged changes go out as BatchWriteItem (new entries first,
// removals after them) ahead of the next operation, one batch at a time; an
// operation, flushOutbox() and an outbox read wait for a batch that another
// thread took and is still writing (flushStaged).
//
// Every request is SigV4-signed (Aws.h). Time-outs, 5xx answers and
// throttling are retried (3 attempts in all): every operation is idempotent
// (a conditional put recognises its own earlier write by its token) except
// appendEffects, which is at-least-once by definition.
//
//===----------------------------------------------------------------------===//

#include "Aws.h"
#include "Intrinsics.h"
#include "unum/Runtime/DataStore.h"
#include "unum/Runtime/Value.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace unum::runtime;

namespace {
constexpr int kAttempts = 3;
constexpr size_t kBatchWrite = 25, kBatchGet = 100;
constexpr size_t kRetireThreads = 16;

std::string base64(const std::string &in) {
  return intrinsics::base64Encode(in);
}

std::optional<std::string> unbase64(const std::string &in) {
  auto out = intrinsics::base64Decode(in);
  return out ? std::optional<std::string>(out.take()) : std::nullopt;
}

Value S(const std::string &s) {
  Value v = Value::object();
  v.set("S", s);
  return v;
}
Value B(const std::string &s) {
  Value v = Value::object();
  v.set("B", base64(s));
  return v;
}
Value N(int64_t n) {
  Value v = Value::object();
  v.set("N", std::to_string(n));
  return v;
}

/// An attribute of an item (nullptr if absent), by type tag.
const Value *attr(const Value &item, const char *name, const char *type) {
  const Value *a = item.find(name);
  return a ? a->find(type) : nullptr;
}
std::optional<std::string> strAttr(const Value &item, const char *name) {
  const Value *a = attr(item, name, "S");
  if (!a || !a->isString())
    return std::nullopt;
  return a->getString();
}
std::optional<int64_t> numAttr(const Value &item, const char *name) {
  const Value *a = attr(item, name, "N");
  if (!a || !a->isString())
    return std::nullopt;
  return std::strtoll(a->getString().c_str(), nullptr, 10);
}

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Value effectsList(const std::vector<Effect> &effects) {
  Value list = Value::array();
  for (const Effect &e : effects) {
    Value m = Value::object();
    m.set("i", S(e.instance));
    m.set("v", S(e.value));
    Value wrapped = Value::object();
    wrapped.set("M", std::move(m));
    list.push(std::move(wrapped));
  }
  Value out = Value::object();
  out.set("L", std::move(list));
  return out;
}

/// The effects of an item's fx attribute.
void readEffects(const Value &item, std::vector<Effect> &out) {
  const Value *list = attr(item, "fx", "L");
  if (!list || !list->isArray())
    return;
  for (const Value &e : list->getArray()) {
    const Value *m = e.find("M");
    if (!m)
      continue;
    out.push_back(
        {strAttr(*m, "i").value_or(""), strAttr(*m, "v").value_or("")});
  }
}

/// "#a" -> "a" for every name an expression uses.
Value names(std::initializer_list<const char *> list) {
  Value out = Value::object();
  for (const char *n : list)
    out.set(std::string("#") + n, n);
  return out;
}

struct DynamoError {
  std::string type, message;
};

class DynamoStore final : public DataStore {
public:
  DynamoStore(aws::Endpoint endpoint, std::string table, std::string region,
              aws::Credentials creds, StoreOptions options)
      : endpoint(std::move(endpoint)), table(std::move(table)),
        region(std::move(region)), creds(std::move(creds)),
        ttlSeconds(options.ttlSeconds),
        http(std::max<long>(
            1, long(std::llround(options.timeoutSeconds * 1000)))) {}

  /// Checks that the table exists with the store's key schema (creates it
  /// first with `create`).
  Status open(bool create) {
    if (create) {
      Value req = Value::object();
      req.set("TableName", table);
      Value defs = Value::array(), schema = Value::array();
      for (const char *k : {"pk", "sk"}) {
        Value d = Value::object();
        d.set("AttributeName", k);
        d.set("AttributeType", "S");
        defs.push(std::move(d));
        Value s = Value::object();
        s.set("AttributeName", k);
        s.set("KeyType", std::string(k) == "pk" ? "HASH" : "RANGE");
        schema.push(std::move(s));
      }
      req.set("AttributeDefinitions", std::move(defs));
      req.set("KeySchema", std::move(schema));
      req.set("BillingMode", "PAY_PER_REQUEST");
      DynamoError err;
      auto r = call("CreateTable", req, &err);
      if (!r && err.type != "ResourceInUseException")
        return r.getStatus();
    }
    for (int i = 0;; ++i) {
      Value req = Value::object();
      req.set("TableName", table);
      DynamoError err;
      auto r = call("DescribeTable", req, &err);
      if (!r) {
        if (err.type == "ResourceNotFoundException")
          return Status::error(describe() + ": the table '" + table +
                               "' does not exist (deploy creates it; add "
                               "?create=1 to create it here)");
        return r.getStatus();
      }
      const Value *t = r->find("Table");
      const Value *status = t ? t->find("TableStatus") : nullptr;
      const Value *schema = t ? t->find("KeySchema") : nullptr;
      std::string keys;
      if (schema && schema->isArray())
        for (const Value &k : schema->getArray())
          if (const Value *n = k.find("AttributeName"); n && n->isString())
            keys += (keys.empty() ? "" : ",") + n->getString();
      if (keys != "pk,sk")
        return Status::error(describe() + ": the table's key is (" + keys +
                             "), expected (pk, sk): string attributes, pk "
                             "the partition key, sk the sort key");
      if (status && status->isString() && status->getString() == "ACTIVE")
        return checkLayout();
      if (i >= 300)
        return Status::error(describe() + ": the table did not become "
                                          "ACTIVE within 30 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  /// The table's layout marker (kLayoutPk, sk "layout", n = kLayout) says
  /// this layout wrote it. A table without one is adopted (the marker
  /// written) only while it is empty: one that an older store wrote keeps
  /// its outbox in the sessions' partitions (o#ID items), which this store
  /// does not read, so its unfinished sessions would never be resumed, and
  /// it is refused. One Scan of at most one item, once per table.
  Status checkLayout() {
    for (int attempt = 0;; ++attempt) {
      auto marker = getItem(kLayoutPk, "layout");
      if (!marker)
        return marker.getStatus();
      if (*marker) {
        auto n = numAttr(**marker, "n");
        if (n && *n == kLayout)
          return Status::ok();
        return Status::error(describe() + ": the table's layout is " +
                             (n ? std::to_string(*n) : std::string("unknown")) +
                             ", this store reads layout " +
                             std::to_string(kLayout) +
                             ": another version of Unum wrote it");
      }
      if (attempt > 0) // held items, and no marker appeared since
        return Status::error(
            describe() + ": the table '" + table +
            "' holds items but no layout marker: an older Unum store wrote "
            "it, which kept its outbox in the sessions' partitions (o#ID "
            "items), where this store does not look, so its unfinished "
            "sessions would never be resumed. Finish them with the Unum "
            "that wrote the table, then empty or recreate it");
      Value req = request();
      req.set("Limit", int64_t(1));
      req.set("Select", "SPECIFIC_ATTRIBUTES"); // what the IAM policy allows
      req.set("ProjectionExpression", "#pk");
      req.set("ExpressionAttributeNames", names({"pk"}));
      req.set("ConsistentRead", true);
      auto r = call("Scan", req);
      if (!r)
        return r.getStatus();
      const Value *items = r->find("Items");
      if (items && items->isArray() && !items->getArray().empty())
        continue; // another store may have adopted it meanwhile: read again
      Value item = key(kLayoutPk, "layout");
      item.set("n", N(kLayout));
      Value put = request();
      put.set("Item", std::move(item));
      put.set("ConditionExpression", "attribute_not_exists(#pk)");
      put.set("ExpressionAttributeNames", names({"pk"}));
      DynamoError err;
      auto w = call("PutItem", put, &err);
      if (!w && err.type != "ConditionalCheckFailedException")
        return w.getStatus();
      return Status::ok(); // written here, or by another store just now
    }
  }

  std::string describe() const override {
    return "dynamodb://" + endpoint.hostHeader + "/" + table;
  }
  bool persistent() const override { return true; }

  Result<std::optional<std::string>> get(const std::string &session,
                                         const std::string &instance) override {
    auto item = getItem(session, "c#" + instance);
    if (!item)
      return item.getStatus();
    if (!*item)
      return std::optional<std::string>();
    // Whoever reads an instance's own checkpoint continues from it: its
    // effects are copied first, in case the writer died before it did
    // (idempotent; a checkpoint has fx only when it committed effects).
    std::vector<Effect> fx;
    readEffects(**item, fx);
    if (!fx.empty())
      if (Status s = commitEffects(session, instance, fx); !s)
        return s;
    return record(**item);
  }

  Result<std::vector<std::optional<std::string>>>
  getMany(const std::string &session,
          const std::vector<std::string> &instances) override {
    std::map<std::string, std::optional<std::string>> found;
    for (size_t at = 0; at < instances.size(); at += kBatchGet) {
      Value keys = Value::array();
      std::set<std::string> seen; // BatchGetItem refuses duplicate keys
      for (size_t i = at; i < instances.size() && i < at + kBatchGet; ++i)
        if (seen.insert(instances[i]).second)
          keys.push(key(session, "c#" + instances[i]));
      Value request = Value::object();
      request.set("Keys", std::move(keys));
      request.set("ConsistentRead", true);
      while (!request.find("Keys")->getArray().empty()) {
        Value req = Value::object(), items = Value::object();
        items.set(table, request);
        req.set("RequestItems", std::move(items));
        auto r = call("BatchGetItem", req);
        if (!r)
          return r.getStatus();
        if (const Value *rs = r->find("Responses"))
          if (const Value *list = rs->find(table); list && list->isArray())
            for (const Value &item : list->getArray()) {
              auto rec = record(item);
              if (!rec)
                return rec.getStatus();
              found[strAttr(item, "sk").value_or("").substr(2)] = *rec;
            }
        const Value *left = r->find("UnprocessedKeys");
        const Value *mine = left ? left->find(table) : nullptr;
        const Value *leftKeys = mine ? mine->find("Keys") : nullptr;
        request.set("Keys", leftKeys && leftKeys->isArray() ? *leftKeys
                                                            : Value::array());
      }
    }
    std::vector<std::optional<std::string>> out;
    out.reserve(instances.size());
    for (const std::string &i : instances) {
      auto it = found.find(i);
      out.push_back(it == found.end() ? std::nullopt : it->second);
    }
    return out;
  }

  Result<PutResult> putIfAbsent(const std::string &session,
                                const std::string &instance, std::string rec,
                                const std::vector<Effect> &effects,
                                NameList retireList) override {
    if (Status s = flushStaged(); !s)
      return s;
    std::string token = newToken();
    Value item = key(session, "c#" + instance);
    item.set("v", B(rec));
    item.set("w", S(token));
    if (!effects.empty())
      item.set("fx", effectsList(effects));
    Value req = request();
    req.set("Item", std::move(item));
    req.set("ConditionExpression", "attribute_not_exists(#pk) OR #xp <= :now");
    req.set("ExpressionAttributeNames", names({"pk", "xp"}));
    Value vals = Value::object();
    vals.set(":now", N(nowMs()));
    req.set("ExpressionAttributeValues", std::move(vals));
    DynamoError err;
    auto r = call("PutItem", req, &err);
    // The retirement comes after the checkpoint (the winner's or ours) is
    // durable, never before: a writer killed in between would leave its
    // inputs retired and no checkpoint, and its redelivery could not read
    // them again.
    if (r) {
      if (!effects.empty())
        if (Status s = commitEffects(session, instance, effects); !s)
          return s;
      if (Status s = retire(session, retireList); !s)
        return s;
      return PutResult{true, {}};
    }
    if (err.type != "ConditionalCheckFailedException")
      return r.getStatus();
    auto winner = getItem(session, "c#" + instance);
    if (!winner)
      return winner.getStatus();
    if (!*winner)
      return Status::error(describe() +
                           ": checkpoint vanished after a lost put");
    const Value &w = **winner;
    std::vector<Effect> theirs;
    readEffects(w, theirs);
    // Copy the winner's effects in case it died before it did (idempotent).
    if (!theirs.empty())
      if (Status s = commitEffects(session, instance, theirs); !s)
        return s;
    if (Status s = retire(session, retireList); !s)
      return s;
    if (strAttr(w, "w") == token) // our own write, whose answer was lost
      return PutResult{true, {}};
    auto theirRecord = record(w);
    if (!theirRecord)
      return theirRecord.getStatus();
    return PutResult{false, theirRecord->value_or("")};
  }

  /// One UpdateItem per instance (BatchWriteItem cannot update, and a
  /// transaction fails whole on an absent record): a fan-in's many inputs
  /// go out kRetireThreads at a time.
  Status retire(const std::string &session, NameList instances) override {
    if (instances.empty())
      return Status::ok();
    if (Status st = flushStaged(); !st)
      return st;
    auto one = [&](const std::string &i) -> Status {
      Value req = request();
      req.set("Key", key(session, "c#" + i));
      Value vals = Value::object();
      vals.set(":t", B(std::string(1, record::Done)));
      std::string set = "SET #v = :t";
      Value n = names({"pk", "v"});
      if (ttlSeconds > 0) {
        set += ", #ttl = :ttl, #xp = :xp";
        addExpiry(vals, n);
      }
      req.set("UpdateExpression", set);
      req.set("ConditionExpression", "attribute_exists(#pk)");
      req.set("ExpressionAttributeNames", std::move(n));
      req.set("ExpressionAttributeValues", std::move(vals));
      DynamoError err;
      auto r = call("UpdateItem", req, &err);
      if (!r && err.type != "ConditionalCheckFailedException")
        return r.getStatus();
      return Status::ok();
    };
    if (instances.size() < 4) {
      for (const std::string &i : instances)
        if (Status s = one(i); !s)
          return s;
      return Status::ok();
    }
    std::atomic<size_t> next{0};
    std::mutex failMu;
    Status failed = Status::ok();
    auto work = [&] {
      for (size_t at; (at = next++) < instances.size();)
        if (Status s = one(*(instances.begin() + at)); !s) {
          std::lock_guard<std::mutex> lock(failMu);
          if (failed)
            failed = s;
          next = instances.size(); // the others stop too
        }
    };
    std::vector<std::thread> threads;
    for (size_t t = 1; t < std::min(kRetireThreads, instances.size()); ++t)
      threads.emplace_back(work);
    work();
    for (std::thread &t : threads)
      t.join();
    return failed;
  }

  Result<AddResult> addToSet(const std::string &session, const std::string &set,
                             const std::string &member,
                             size_t expected) override {
    if (Status st = flushStaged(); !st)
      return st;
    for (int attempt = 0;; ++attempt) {
      Value req = request();
      req.set("Key", key(session, "s#" + set));
      // A consumed marker that expired counts as absent: the add starts
      // the set afresh (what every store does once the marker is gone).
      req.set("UpdateExpression",
              "ADD #m :mem SET #e = if_not_exists(#e, :e) REMOVE #done, "
              "#ttl, #xp");
      req.set("ConditionExpression",
              "(attribute_not_exists(#done) OR #xp <= :now) AND "
              "(attribute_not_exists(#e) OR #e = :e)");
      req.set("ExpressionAttributeNames",
              names({"m", "e", "done", "ttl", "xp"}));
      Value vals = Value::object(), mem = Value::object();
      Value members = Value::array();
      members.push(member);
      mem.set("SS", std::move(members));
      vals.set(":mem", std::move(mem));
      vals.set(":e", N(int64_t(expected)));
      vals.set(":now", N(nowMs()));
      req.set("ExpressionAttributeValues", std::move(vals));
      req.set("ReturnValues", "ALL_NEW");
      DynamoError err;
      auto r = call("UpdateItem", req, &err);
      if (!r) {
        if (err.type != "ConditionalCheckFailedException")
          return r.getStatus();
        auto item = getItem(session, "s#" + set);
        if (!item)
          return item.getStatus();
        if (*item && (**item).find("done"))
          return AddResult{AddResult::Consumed,
                           size_t(numAttr(**item, "e").value_or(0))};
        if (*item)
          if (auto e = numAttr(**item, "e"); e && size_t(*e) != expected)
            return Status::error("completion set " + set + " expects " +
                                 std::to_string(*e) + " members, not " +
                                 std::to_string(expected));
        if (attempt < kAttempts)
          continue; // changed in between (a marker expired): again
        return r.getStatus();
      }
      const Value *attrs = r->find("Attributes");
      const Value *m = attrs ? attr(*attrs, "m", "SS") : nullptr;
      size_t n = m && m->isArray() ? m->getArray().size() : 0;
      if (auto c = attrs ? strAttr(*attrs, "c") : std::nullopt)
        return AddResult{
            *c == member ? AddResult::Completer : AddResult::Pending, n};
      if (n < expected)
        return AddResult{AddResult::Pending, n};
      auto claimed = claim(session, set, member);
      if (!claimed)
        return claimed.getStatus();
      return AddResult{*claimed ? AddResult::Completer : AddResult::Pending, n};
    }
  }

  Status consumeSet(const std::string &session,
                    const std::string &set) override {
    if (Status st = flushStaged(); !st)
      return st;
    Value req = request();
    req.set("Key", key(session, "s#" + set));
    Value vals = Value::object();
    vals.set(":done", N(1));
    Value n = names({"done", "m", "c"});
    std::string update = "SET #done = :done";
    if (ttlSeconds > 0) {
      update += ", #ttl = :ttl, #xp = :xp";
      addExpiry(vals, n);
    }
    req.set("UpdateExpression", update + " REMOVE #m, #c");
    req.set("ExpressionAttributeNames", std::move(n));
    req.set("ExpressionAttributeValues", std::move(vals));
    auto r = call("UpdateItem", req);
    return r ? Status::ok() : r.getStatus();
  }

  Status appendEffects(const std::string &session,
                       const std::vector<Effect> &effects) override {
    if (effects.empty())
      return Status::ok();
    if (Status st = flushStaged(); !st)
      return st;
    // Sorted by time (then at random): Query returns them in commit order.
    char name[48];
    std::snprintf(name, sizeof name, "g#%016llx-%s",
                  (unsigned long long)
                      std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count(),
                  newToken().c_str());
    Value item = key(session, name);
    item.set("fx", effectsList(effects));
    Value req = request();
    req.set("Item", std::move(item));
    auto r = call("PutItem", req);
    return r ? Status::ok() : r.getStatus();
  }

  Result<std::vector<Effect>> effects(const std::string &session) override {
    std::vector<Effect> out;
    for (const char *p : {"f#", "g#"}) {
      auto items = query(session, p);
      if (!items)
        return items.getStatus();
      for (const Value &item : *items)
        readEffects(item, out);
    }
    return out;
  }

  Status put(const std::string &session, const std::string &k,
             const std::string &value) override {
    if (Status st = flushStaged(); !st)
      return st;
    Value item = key(session, "k#" + k);
    item.set("v", B(value));
    Value req = request();
    req.set("Item", std::move(item));
    auto r = call("PutItem", req);
    return r ? Status::ok() : r.getStatus();
  }

  Result<Stats> stats(const std::string &session) override {
    auto items = query(session, "");
    if (!items)
      return items.getStatus();
    Stats st;
    for (const Value &item : *items) {
      std::string sk = strAttr(item, "sk").value_or("");
      std::string kind = sk.substr(0, 2), name = sk.substr(2);
      if (kind == "c#") {
        ++st.records;
        auto rec = record(item);
        st.dataRecords += rec && *rec && **rec != std::string(1, record::Done);
      } else if (kind == "s#") {
        if (item.find("done")) {
          ++st.consumedSets;
          continue;
        }
        const Value *m = attr(item, "m", "SS");
        st.pendingSets.push_back({name,
                                  m && m->isArray() ? m->getArray().size() : 0,
                                  size_t(numAttr(item, "e").value_or(0))});
      } else if (kind == "f#" || kind == "g#") {
        std::vector<Effect> fx;
        readEffects(item, fx);
        st.effects += fx.size();
      }
    }
    return st;
  }

  Status deleteSession(const std::string &session) override {
    if (session.rfind(kOutboxPartition, 0) == 0 || session == kLayoutPk)
      return Status::error(describe() + ": '" + session +
                           "' is the store's own partition, not a session");
    if (Status st = flushStaged(); !st)
      return st;
    auto items = query(session, "", /*keysOnly=*/true, /*withExpired=*/true);
    if (!items)
      return items.getStatus();
    auto entries = outboxItems(session);
    if (!entries)
      return entries.getStatus();
    std::vector<Value> writes;
    auto remove = [&](const std::string &pk, const Value &item) {
      Value del = Value::object(), k = Value::object();
      k.set("Key", key(pk, strAttr(item, "sk").value_or("")));
      del.set("DeleteRequest", std::move(k));
      writes.push_back(std::move(del));
    };
    for (const Value &item : *items)
      remove(session, item);
    for (const auto &[id, item] : *entries)
      remove(outboxPk(session), item);
    return batchWrite(std::move(writes));
  }

  Status flushOutbox() override { return flushStaged(); }

  Result<std::vector<Pending>> outbox(const std::string &session) override {
    if (Status s = flushStaged(); !s)
      return s;
    auto entries = outboxItems(session);
    if (!entries)
      return entries.getStatus();
    std::vector<Pending> out;
    for (const auto &[id, item] : *entries)
      out.push_back({id, strAttr(item, "fn").value_or(""),
                     strAttr(item, "p").value_or("")});
    return out;
  }

  Result<std::vector<std::string>> unfinishedSessions() override {
    if (Status s = flushStaged(); !s)
      return s;
    std::set<std::string> sessions;
    for (unsigned shard = 0; shard < kOutboxShards; ++shard) {
      auto items = query(kOutboxPartition + std::to_string(shard), "",
                         /*keysOnly=*/true);
      if (!items)
        return items.getStatus();
      for (const Value &item : *items) {
        std::string sk = strAttr(item, "sk").value_or("");
        if (sk.size() > kIdDigits + 1 && sk[sk.size() - kIdDigits - 1] == '#')
          sessions.insert(sk.substr(0, sk.size() - kIdDigits - 1));
      }
    }
    return std::vector<std::string>(sessions.begin(), sessions.end());
  }

  Result<std::vector<std::pair<std::string, std::string>>>
  scan(const std::string &session, const std::string &prefix) override {
    auto items = query(session, "k#" + prefix);
    if (!items)
      return items.getStatus();
    std::vector<std::pair<std::string, std::string>> out;
    for (const Value &item : *items) {
      const Value *v = attr(item, "v", "B");
      auto value = v && v->isString() ? unbase64(v->getString()) : std::nullopt;
      if (!value)
        return Status::error(describe() + ": a malformed plain write");
      out.emplace_back(strAttr(item, "sk").value_or("k#").substr(2), *value);
    }
    return out;
  }

private:
  Value request() const {
    Value req = Value::object();
    req.set("TableName", table);
    return req;
  }

  /// The outbox's partitions (see the file comment).
  static constexpr const char kOutboxPartition[] = "unum-outbox#";
  static constexpr unsigned kOutboxShards = 8;
  static constexpr size_t kIdDigits = 20;
  /// The layout marker's partition, and the layout this store writes (2:
  /// the outbox partitions; 1, unmarked: o#ID items in the sessions).
  static constexpr const char kLayoutPk[] = "unum-layout";
  static constexpr int64_t kLayout = 2;

  /// The session's outbox partition (FNV-1a of its name).
  static std::string outboxPk(const std::string &session) {
    uint32_t h = 2166136261u;
    for (unsigned char c : session)
      h = (h ^ c) * 16777619u;
    return kOutboxPartition + std::to_string(h % kOutboxShards);
  }
  static std::string outboxSk(const std::string &session, uint64_t id) {
    char digits[32];
    std::snprintf(digits, sizeof digits, "%020llu", (unsigned long long)id);
    return session + "#" + digits;
  }

  /// The session's outbox entries: id -> item (an entry of another session
  /// whose name starts with this one's and '#' is left out).
  Result<std::vector<std::pair<uint64_t, Value>>>
  outboxItems(const std::string &session) {
    auto items = query(outboxPk(session), session + "#");
    if (!items)
      return items.getStatus();
    std::vector<std::pair<uint64_t, Value>> out;
    for (Value &item : *items) {
      std::string sk = strAttr(item, "sk").value_or("");
      if (sk.size() != session.size() + 1 + kIdDigits)
        continue;
      uint64_t id = std::strtoull(sk.c_str() + session.size() + 1, nullptr, 10);
      out.emplace_back(id, std::move(item));
    }
    return out;
  }

  static Value key(const std::string &session, const std::string &sk) {
    Value k = Value::object();
    k.set("pk", S(session));
    k.set("sk", S(sk));
    return k;
  }

  /// :ttl (seconds, rounded up) and :xp (ms) for an item that expires.
  void addExpiry(Value &vals, Value &n) const {
    int64_t xp = nowMs() + ttlSeconds * 1000;
    vals.set(":ttl", N((xp + 999) / 1000));
    vals.set(":xp", N(xp));
    n.set("#ttl", "ttl");
    n.set("#xp", "xp");
  }

  static bool expired(const Value &item, int64_t now) {
    auto xp = numAttr(item, "xp");
    return xp && *xp <= now;
  }

  /// A checkpoint item's record (the v attribute).
  Result<std::optional<std::string>> record(const Value &item) const {
    const Value *v = attr(item, "v", "B");
    auto rec = v && v->isString() ? unbase64(v->getString()) : std::nullopt;
    if (!rec)
      return Status::error(describe() + ": a checkpoint item without a "
                                        "record");
    return std::optional<std::string>(std::move(*rec));
  }

  std::string newToken() {
    std::lock_guard<std::mutex> lock(mu);
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)rng());
    return buf;
  }

  /// The item (a strongly consistent read), or nothing if absent or
  /// expired.
  Result<std::optional<Value>> getItem(const std::string &session,
                                       const std::string &sk) {
    Value req = request();
    req.set("Key", key(session, sk));
    req.set("ConsistentRead", true);
    auto r = call("GetItem", req);
    if (!r)
      return r.getStatus();
    const Value *item = r->find("Item");
    if (!item || expired(*item, nowMs()))
      return std::optional<Value>();
    return std::optional<Value>(*item);
  }

  /// The session's items whose sort key starts with `prefix`, in key order
  /// (expired ones left out unless `withExpired`).
  Result<std::vector<Value>> query(const std::string &session,
                                   const std::string &prefix,
                                   bool keysOnly = false,
                                   bool withExpired = false) {
    std::vector<Value> out;
    int64_t now = nowMs();
    Value start;
    do {
      Value req = request();
      Value vals = Value::object();
      vals.set(":s", S(session));
      if (prefix.empty()) {
        req.set("KeyConditionExpression", "#pk = :s");
        req.set("ExpressionAttributeNames", names({"pk"}));
      } else {
        req.set("KeyConditionExpression", "#pk = :s AND begins_with(#sk, :p)");
        req.set("ExpressionAttributeNames", names({"pk", "sk"}));
        vals.set(":p", S(prefix));
      }
      if (keysOnly) {
        req.set("ProjectionExpression", "#pk, #sk");
        req.set("ExpressionAttributeNames", names({"pk", "sk"}));
      }
      req.set("ExpressionAttributeValues", std::move(vals));
      req.set("ConsistentRead", true);
      if (!start.isNull())
        req.set("ExclusiveStartKey", start);
      auto r = call("Query", req);
      if (!r)
        return r.getStatus();
      if (const Value *items = r->find("Items"); items && items->isArray())
        for (const Value &item : items->getArray())
          if (withExpired || !expired(item, now))
            out.push_back(item);
      const Value *next = r->find("LastEvaluatedKey");
      start = next ? *next : Value();
    } while (!start.isNull());
    return out;
  }

  /// Writes the checkpoint's effects to their own item (idempotent).
  Status commitEffects(const std::string &session, const std::string &instance,
                       const std::vector<Effect> &effects) {
    Value item = key(session, "f#" + instance);
    item.set("fx", effectsList(effects));
    Value req = request();
    req.set("Item", std::move(item));
    auto r = call("PutItem", req);
    return r ? Status::ok() : r.getStatus();
  }

  /// Claims the completion set for `member`: true if it is (now) the
  /// completer.
  Result<bool> claim(const std::string &session, const std::string &set,
                     const std::string &member) {
    Value req = request();
    req.set("Key", key(session, "s#" + set));
    req.set("UpdateExpression", "SET #c = :me");
    req.set("ConditionExpression",
            "attribute_exists(#e) AND attribute_not_exists(#done) AND "
            "(attribute_not_exists(#c) OR #c = :me)");
    req.set("ExpressionAttributeNames", names({"c", "e", "done"}));
    Value vals = Value::object();
    vals.set(":me", S(member));
    req.set("ExpressionAttributeValues", std::move(vals));
    DynamoError err;
    auto r = call("UpdateItem", req, &err);
    if (r)
      return true;
    if (err.type == "ConditionalCheckFailedException")
      return false;
    return r.getStatus();
  }

  /// BatchWriteItem in chunks, unprocessed items sent again.
  Status batchWrite(std::vector<Value> writes) {
    for (size_t at = 0; at < writes.size();) {
      Value chunk = Value::array();
      for (size_t i = at; i < writes.size() && i < at + kBatchWrite; ++i)
        chunk.push(std::move(writes[i]));
      at += kBatchWrite;
      for (int round = 0; !chunk.getArray().empty(); ++round) {
        if (round > 0)
          std::this_thread::sleep_for(std::chrono::milliseconds(20 * round));
        Value req = Value::object(), items = Value::object();
        items.set(table, std::move(chunk));
        req.set("RequestItems", std::move(items));
        auto r = call("BatchWriteItem", req);
        if (!r)
          return r.getStatus();
        const Value *left = r->find("UnprocessedItems");
        const Value *mine = left ? left->find(table) : nullptr;
        chunk = mine && mine->isArray() ? *mine : Value::array();
        if (round > 20)
          return Status::error(describe() +
                               ": writes stay unprocessed (throttled)");
      }
    }
    return Status::ok();
  }

  /// Makes every outbox change staged before this call durable, ahead of
  /// the operation that calls it (every write, and the outbox reads).
  /// BatchWriteItem refuses a key twice in one request and applies a
  /// request's items in no particular order: only the last change of each
  /// entry is sent (an entry finished twice, or delivered again after it
  /// finished, stages it more than once).
  ///
  /// A change this thread staged may be in a batch another thread has
  /// taken and is still writing (the host's background flush): then this
  /// call waits for that batch (its writer holds flushMu until it has
  /// landed or been put back) instead of returning at once. Returning
  /// early was the multi-process test's intermittent failure: a host
  /// answered 202 for an invocation that was not durable yet, the sender
  /// removed its own outbox entry, and for a moment (or for good, if the
  /// host was killed then) the session's outbox looked empty: the client
  /// took the session for finished without the fan-in target's output.
  /// The fast path (nothing staged, no batch in flight) is three atomic
  /// loads, in this order: if a batch holding our changes is in flight,
  /// `done` is read before it lands and `taken` after it was counted (a
  /// batch is counted before it is taken, and the changes were taken
  /// before we saw nothing staged).
  Status flushStaged() {
    uint64_t done = batchesDone.load();
    if (!outboxStaged() && done == batchesTaken.load())
      return Status::ok();
    std::lock_guard<std::mutex> flushing(flushMu); // batches stay in order
    // Every earlier batch has landed or was put back (and is staged again).
    if (!outboxStaged())
      return Status::ok();
    uint64_t batch = ++batchesTaken;
    std::vector<OutboxChange> changes = takeOutbox();
    Status s = writeOutbox(changes);
    if (!s)
      restoreOutbox(std::move(changes)); // applying them again is harmless
    batchesDone.store(batch);
    return s;
  }

  /// Writes outbox changes: new entries first, removals after them. A
  /// BatchWriteItem may apply part of a request and return the rest as
  /// UnprocessedItems (DynamoDB does so when throttled): a process killed
  /// before it sent them again must not leave an invocation finished
  /// (removed) whose continuations, issued in the same batch, never
  /// landed.
  Status writeOutbox(const std::vector<OutboxChange> &changes) {
    std::set<std::pair<std::string, uint64_t>> seen;
    std::vector<const OutboxChange *> last;
    for (auto c = changes.rbegin(); c != changes.rend(); ++c)
      if (seen.insert({c->session, c->id}).second)
        last.push_back(&*c);
    std::vector<Value> puts, deletes;
    for (auto it = last.rbegin(); it != last.rend(); ++it) {
      const OutboxChange &c = **it;
      const std::string pk = outboxPk(c.session),
                        sk = outboxSk(c.session, c.id);
      Value w = Value::object(), body = Value::object();
      if (c.issued) {
        Value item = key(pk, sk);
        item.set("fn", S(c.function));
        item.set("p", S(c.payload));
        body.set("Item", std::move(item));
        w.set("PutRequest", std::move(body));
        puts.push_back(std::move(w));
      } else {
        body.set("Key", key(pk, sk));
        w.set("DeleteRequest", std::move(body));
        deletes.push_back(std::move(w));
      }
    }
    if (Status s = batchWrite(std::move(puts)); !s)
      return s;
    return batchWrite(std::move(deletes));
  }

  static bool retryable(long status, const std::string &type) {
    return status >= 500 || type == "ThrottlingException" ||
           type == "ProvisionedThroughputExceededException" ||
           type == "RequestLimitExceeded" || type == "InternalServerError" ||
           type == "LimitExceededException";
  }

  /// One DynamoDB API call; `err` (if given) gets the error's type.
  Result<Value> call(const char *operation, const Value &body,
                     DynamoError *err = nullptr) {
    countOp();
    aws::Request req;
    req.path = endpoint.path.empty() ? "/" : endpoint.path;
    req.headers = {
        {"Host", endpoint.hostHeader},
        {"Content-Type", "application/x-amz-json-1.0"},
        {"X-Amz-Target", std::string("DynamoDB_20120810.") + operation}};
    req.body = toJson(body);
    std::string why;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      if (attempt > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
      aws::sign(req, creds, region, "dynamodb", std::time(nullptr));
      auto resp = http.post(endpoint, req);
      if (!resp) {
        why = resp.getStatus().message();
        continue;
      }
      auto v = parseJsonValue(resp->body, describe() + " answer");
      if (resp->status == 200 && v)
        return v.take();
      DynamoError e;
      if (v) {
        if (const Value *t = v->find("__type"); t && t->isString()) {
          e.type = t->getString();
          e.type = e.type.substr(e.type.rfind('#') + 1);
        }
        for (const char *m : {"message", "Message"})
          if (const Value *msg = v->find(m); msg && msg->isString())
            e.message = msg->getString();
      }
      why = describe() + ": " + operation + ": HTTP " +
            std::to_string(resp->status) +
            (e.type.empty() ? "" : ": " + e.type) +
            (e.message.empty() ? "" : ": " + e.message);
      if (retryable(resp->status, e.type))
        continue;
      if (err)
        *err = e;
      return Status::error(why);
    }
    return Status::error(why + " (" + std::to_string(kAttempts) + " attempts)");
  }

  aws::Endpoint endpoint;
  std::string table, region;
  aws::Credentials creds;
  int64_t ttlSeconds;
  aws::HttpClient http;
  std::mutex mu, flushMu;
  std::atomic<uint64_t> batchesTaken{0}, batchesDone{0}; // outbox batches
  std::mt19937_64 rng{std::random_device{}()};
};

bool loopback(const std::string &host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]";
}
} // namespace

Result<std::unique_ptr<DataStore>>
unum::runtime::openDynamoStore(const std::string &uri,
                               const std::vector<std::string> &query,
                               StoreOptions options) {
  const std::string scheme = "dynamodb://";
  std::string rest = uri.substr(scheme.size());
  size_t slash = rest.find('/');
  if (slash == std::string::npos || slash + 1 >= rest.size())
    return Status::error("store '" + uri +
                         "': expected dynamodb://HOST[:PORT]/TABLE or "
                         "dynamodb:///TABLE");
  std::string host = rest.substr(0, slash), table = rest.substr(slash + 1);
  if (table.size() < 3 || table.size() > 255 ||
      table.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                              "TUVWXYZ0123456789_.-") != std::string::npos)
    return Status::error("store '" + uri + "': '" + table +
                         "' is not a DynamoDB table name (3-255 of a-z A-Z "
                         "0-9 _ . -)");
  std::string explicitRegion;
  bool create = false;
  for (const std::string &item : query) {
    if (item.rfind("region=", 0) == 0)
      explicitRegion = item.substr(7);
    else if (item == "create=1")
      create = true;
    else
      return Status::error("store '" + uri + "': unknown option '" + item +
                           "' (dynamodb takes region=NAME, create=1, "
                           "ttl=SECONDS, timeout=SECONDS)");
  }
  auto region = aws::regionFromEnvironment(explicitRegion);
  if (!region)
    return Status::error("store '" + uri +
                         "': " + region.getStatus().message());
  if (region->empty() ||
      region->find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") !=
          std::string::npos)
    return Status::error("store '" + uri + "': bad region '" + *region + "'");
  if (host.empty())
    host = "dynamodb." + *region + ".amazonaws.com";
  auto endpoint = aws::Endpoint::parse(
      (loopback(host.substr(0, host.rfind(':'))) ? "http://" : "https://") +
      host);
  if (!endpoint)
    return Status::error("store '" + uri +
                         "': " + endpoint.getStatus().message());
  auto creds = aws::Credentials::fromEnvironment();
  if (!creds)
    return Status::error("store '" + uri + "': " + creds.getStatus().message());
  auto store = std::make_unique<DynamoStore>(endpoint.take(), table, *region,
                                             creds.take(), options);
  if (Status s = store->open(create); !s)
    return s;
  return std::unique_ptr<DataStore>(std::move(store));
}
