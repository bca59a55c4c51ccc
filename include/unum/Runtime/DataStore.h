//===- DataStore.h - Checkpoints, completion sets, effects ------*- C++ -*-===//
//
// Everything the runtime keeps between invocations lives in a DataStore,
// scoped by session. Each operation is atomic on its own (one SQLite
// transaction, one Redis script, one critical section), which is all the
// exactly-once protocol needs:
//
//  * checkpoints: a conditional put (first writer wins; the loser gets the
//    winner's record back and continues with it). The winner's staged side
//    effects ("effects", an outbox) are committed in the same step, and so
//    is the retirement of the sender's record.
//  * completion sets: an atomic add that tells exactly one member, the one
//    whose add completed the set, that it is the completer (and tells it
//    again if it retries); a consumed set ignores further adds.
//  * retirement: a record whose data is no longer needed is replaced by a
//    tiny tombstone, so a late duplicate of a finished instance sees that it
//    finished and stops instead of running the user code again.
//
// Implementations: memory (tests), sqlite:PATH (the embedded default),
// redis://HOST:PORT, dynamodb://HOST:PORT/TABLE.
//
// The outbox makes local execution durable: every invocation a runner
// accepts is staged as issued, and as finished once it ran; staged changes
// become durable with the store's next write, in the same transaction
// (SQLite). So whatever a write depends on having been issued is durable
// with it, and after a crash the session's outbox lists every invocation
// that may not have finished: delivering them again (the protocol above
// makes redelivery safe) finishes the session (LocalRunner::resume).
//
//===----------------------------------------------------------------------===//
#ifndef UNUM_RUNTIME_DATASTORE_H
#define UNUM_RUNTIME_DATASTORE_H

#include "unum/Runtime/Status.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace unum::runtime {

/// The first byte of a checkpoint record; the rest is JSON (empty for Done).
namespace record {
constexpr char Output = 'c'; // the instance's output
constexpr char Keep = 'k';   // output read by several fan-ins: never retired
                             // by a fan-in target
constexpr char Failed = 'e'; // the error object after retries ran out
constexpr char Done = 't';   // retired: the instance finished, data dropped
} // namespace record

/// Names passed to a store without building a list: a vector or one name.
/// A view: what it refers to must outlive the call.
class NameList {
public:
  NameList() = default;
  NameList(const std::vector<std::string> &names)
      : first(names.data()), n(names.size()) {}
  NameList(const std::string &name) : first(&name), n(1) {}
  const std::string *begin() const { return first; }
  const std::string *end() const { return first + n; }
  size_t size() const { return n; }
  bool empty() const { return n == 0; }

private:
  const std::string *first = nullptr;
  size_t n = 0;
};

/// A side effect staged by user code: committed once per instance name.
struct Effect {
  std::string instance;
  std::string value; // JSON
};

namespace detail {
struct StoreAccess; // lib/Runtime/DataStoreInternal.h
} // namespace detail

/// Where checkpoints, completion sets, effects and the outbox live.
///
/// Thread safety: every operation may be called from several threads at
/// once (one store serves all of a process's workers and runtimes); each
/// is atomic on its own. Lifetime: the store must outlive every Runtime
/// and LocalRunner that uses it; what it holds outlives the process only
/// when persistent().
class DataStore {
public:
  virtual ~DataStore();

  /// "memory", "sqlite:PATH", "redis://HOST:PORT".
  virtual std::string describe() const = 0;

  // --- Checkpoints ---------------------------------------------------------
  virtual Result<std::optional<std::string>>
  get(const std::string &session, const std::string &instance) = 0;
  /// One read for many records (a fan-in target's inputs), in order.
  virtual Result<std::vector<std::optional<std::string>>>
  getMany(const std::string &session,
          const std::vector<std::string> &instances) = 0;

  struct PutResult {
    bool won = false;
    std::string record; // the winner's when we lost; empty when we won (the
                        // caller has its own: no copy on every step)
  };
  /// Conditional put of `record` (taken by value: a store that keeps it
  /// moves it). Only the winner's `effects` are committed, atomically
  /// with the record. `retire` (existing records only) is retired whether
  /// or not the put wins: retirement is idempotent, and both a winner and a
  /// loser prove that the retired instances are done.
  virtual Result<PutResult> putIfAbsent(const std::string &session,
                                        const std::string &instance,
                                        std::string record,
                                        const std::vector<Effect> &effects,
                                        NameList retire) = 0;
  /// Replaces existing records by the Done tombstone.
  virtual Status retire(const std::string &session, NameList instances) = 0;

  // --- Completion sets -----------------------------------------------------
  struct AddResult {
    enum State { Pending, Completer, Consumed };
    State state = Pending;
    size_t count = 0;
  };
  /// Adds `member` to the set. The add that brings the set to `expected`
  /// members returns Completer, and so does any later add of that member
  /// while the set is not consumed (a retried completer). Disagreeing on
  /// `expected` is an error.
  virtual Result<AddResult> addToSet(const std::string &session,
                                     const std::string &set,
                                     const std::string &member,
                                     size_t expected) = 0;
  /// Drops the members and marks the set consumed.
  virtual Status consumeSet(const std::string &session,
                            const std::string &set) = 0;

  // --- Effects -------------------------------------------------------------
  /// Commits effects outside a checkpoint (functions without checkpoints:
  /// at least once).
  virtual Status appendEffects(const std::string &session,
                               const std::vector<Effect> &effects) = 0;
  virtual Result<std::vector<Effect>> effects(const std::string &session) = 0;

  // --- Inspection and cleanup ---------------------------------------------
  struct PendingSet {
    std::string set;
    size_t count = 0, expected = 0;
  };
  struct Stats {
    size_t records = 0;     // checkpoint records, tombstones included
    size_t dataRecords = 0; // records still holding data
    size_t consumedSets = 0;
    std::vector<PendingSet> pendingSets; // not yet consumed
    size_t effects = 0;
  };
  virtual Result<Stats> stats(const std::string &session) = 0;
  /// Removes everything the session left (tombstones, consumed markers,
  /// effects).
  virtual Status deleteSession(const std::string &session) = 0;

  // --- The outbox: invocations issued and not yet finished ----------------
  /// Whether what the store holds outlives the process (sqlite, redis):
  /// only then is an outbox worth keeping.
  virtual bool persistent() const { return false; }

  /// An invocation in a session's outbox.
  struct Pending {
    uint64_t id = 0;
    std::string function;
    std::string payload; // wire JSON (encodePayload)
  };
  /// Whether putIfAbsent can also write outbox entries, atomically with the
  /// record and only when the put wins (putIfAbsentIssuing). A host whose
  /// store can answers a continuation that its sender journaled this way
  /// without any store access (docs/Deploy.md); the others journal it
  /// before answering.
  virtual bool issuesWithPut() const { return false; }
  /// putIfAbsent that also adds `issues` to the session's outbox (as
  /// stageIssued would, by id) if and only if the put wins, in the same
  /// atomic operation: a losing put leaves no entry. Staged outbox changes
  /// are written first, as for any write. Only where issuesWithPut(); the
  /// default fails.
  virtual Result<PutResult>
  putIfAbsentIssuing(const std::string &session, const std::string &instance,
                     std::string record, const std::vector<Effect> &effects,
                     NameList retire, const std::vector<Pending> &issues) {
    if (!issues.empty())
      return Status::error(describe() +
                           ": cannot write outbox entries with a checkpoint");
    return putIfAbsent(session, instance, std::move(record), effects, retire);
  }
  /// Stages `id` as issued to `function`, or as finished. What is staged
  /// becomes durable with the store's next write operation (inside its
  /// transaction on SQLite, just before it on Redis) or at flushOutbox(),
  /// in the order staged: a write that follows an issue is never durable
  /// without it. An invocation issued and finished within one batch never
  /// reaches the store. Cheap and thread-safe. When flushOutbox(), outbox()
  /// or unfinishedSessions() returns, every change staged before the call
  /// is in the store, also one that another thread had taken in a batch it
  /// was still writing (a host answers 202 after flushOutbox()).
  void stageIssued(const std::string &session, uint64_t id,
                   const std::string &function, std::string payload);
  void stageFinished(const std::string &session, uint64_t id,
                     const std::string &function);
  /// Makes what is staged durable now.
  virtual Status flushOutbox();
  /// The session's pending invocations (durable ones: flush first).
  virtual Result<std::vector<Pending>> outbox(const std::string &session);
  /// Sessions with pending invocations.
  virtual Result<std::vector<std::string>> unfinishedSessions();
  /// The session's keyed records whose key starts with `prefix`, sorted by
  /// key: what the runner journals ("run", "out:<instance>",
  /// "err:<instance>"; lib/Runtime/LocalRunner.cpp).
  virtual Result<std::vector<std::pair<std::string, std::string>>>
  scan(const std::string &session, const std::string &prefix);

  /// Operations issued so far (each is one round trip / transaction).
  uint64_t operationCount() const { return ops.load(); }

protected:
  friend struct detail::StoreAccess;
  /// A plain keyed write in the session (the runner's journal, and the
  /// benchmark's floor): only the runtime writes through it
  /// (lib/Runtime/DataStoreInternal.h). Every store implements it.
  virtual Status put(const std::string &session, const std::string &key,
                     const std::string &value) = 0;

  void countOp(uint64_t n = 1) { ops.fetch_add(n, std::memory_order_relaxed); }

  /// One staged outbox change.
  struct OutboxChange {
    std::string session;
    uint64_t id = 0;
    bool issued = false;           // else finished
    std::string function, payload; // payload: issued only
  };
  /// True if anything is staged: a write sees every change staged before
  /// it started (in its thread, or in one it synchronised with).
  bool outboxStaged() const { return staged.load(std::memory_order_acquire); }
  /// Takes what is staged, in order, without the issued-and-finished pairs.
  std::vector<OutboxChange> takeOutbox();
  /// Puts back what a failed write took (in front of anything newer).
  void restoreOutbox(std::vector<OutboxChange> changes);

private:
  std::atomic<uint64_t> ops{0};
  std::mutex outboxMu;
  std::vector<OutboxChange> outboxBatch;
  std::atomic<bool> staged{false};
};

/// What a store keeps, from the URI's query ("sqlite:PATH?ttl=SECONDS").
struct StoreOptions {
  /// Seconds a tombstone (a retired checkpoint) or a consumed completion
  /// set's marker is kept; 0: until the session is deleted. Once one has
  /// expired, a duplicate of that instance or a late report to that set
  /// arriving later is no longer recognised: pick a TTL longer than the
  /// platform's longest redelivery delay.
  int64_t ttlSeconds = 0;
  /// Redis: seconds a command may wait for its reply (and a connection to
  /// open). A command that times out or loses its connection is tried
  /// again, at most 3 times in all; then the store reports itself down and
  /// fails every operation at once for a while (10 timeouts), so that a
  /// paused server fails a run quickly, with one message.
  double timeoutSeconds = 5;
};

/// Opens "memory", "sqlite:PATH[?ttl=SECONDS]",
/// "redis://HOST:PORT[?ttl=SECONDS][&timeout=SECONDS]" (either option may
/// come first) or "dynamodb://HOST[:PORT]/TABLE[?region=NAME][&create=1]
/// [&ttl=SECONDS][&timeout=SECONDS]" (AWS credentials from the standard
/// environment variables; "dynamodb:///TABLE" is the region's AWS endpoint).
Result<std::unique_ptr<DataStore>> openDataStore(const std::string &uri);

std::unique_ptr<DataStore> createMemoryStore();
Result<std::unique_ptr<DataStore>> openSqliteStore(const std::string &path,
                                                   StoreOptions options = {});
Result<std::unique_ptr<DataStore>>
openRedisStore(const std::string &host, int port, StoreOptions options = {});
/// `uri` without its query; `query`: the items openDataStore did not take
/// (region=NAME, create=1).
Result<std::unique_ptr<DataStore>>
openDynamoStore(const std::string &uri, const std::vector<std::string> &query,
                StoreOptions options = {});

} // namespace unum::runtime

#endif // UNUM_RUNTIME_DATASTORE_H
