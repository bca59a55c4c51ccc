//===- DataStoreTest.cpp - One conformance suite for every store ----------===//

#include "TestUtil.h"

// Internal: DataStore::put, the runner's journal write.
#include "DataStoreInternal.h"

#include "gtest/gtest.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

using namespace unum::runtime;
using namespace unum::runtime::test;

namespace {
class DataStoreTest : public StoreTest {
protected:
  void SetUp() override {
    StoreTest::SetUp();
    session = newSessionId();
  }
  void TearDown() override {
    if (store) {
      EXPECT_TRUE(store->deleteSession(session).isOk());
    }
  }

  std::string session;
};
} // namespace

TEST_P(DataStoreTest, GetMissingIsEmpty) {
  auto r = store->get(session, "A");
  ASSERT_TRUE(r.isOk()) << r.getStatus().message();
  EXPECT_FALSE(r->has_value());
}

TEST_P(DataStoreTest, FirstWriterWins) {
  auto first = store->putIfAbsent(session, "A", "c1", {{"A", "\"x\""}}, {});
  ASSERT_TRUE(first.isOk()) << first.getStatus().message();
  EXPECT_TRUE(first->won);
  auto second = store->putIfAbsent(session, "A", "c2", {{"A", "\"y\""}}, {});
  ASSERT_TRUE(second.isOk());
  EXPECT_FALSE(second->won);
  EXPECT_EQ(second->record, "c1");
  EXPECT_EQ(**store->get(session, "A"), "c1");
  // Only the winner's effects are committed.
  auto fx = store->effects(session);
  ASSERT_TRUE(fx.isOk());
  ASSERT_EQ(fx->size(), 1u);
  EXPECT_EQ((*fx)[0].instance, "A");
  EXPECT_EQ((*fx)[0].value, "\"x\"");
}

TEST_P(DataStoreTest, BinarySafeRecords) {
  std::string rec = std::string("c{\"a\":\"\\u0000\n\xc3\xa9\"}");
  ASSERT_TRUE(
      store->putIfAbsent(session, "A-unumIndex-0.1", rec, {}, {}).isOk());
  EXPECT_EQ(**store->get(session, "A-unumIndex-0.1"), rec);
}

TEST_P(DataStoreTest, PutRetires) {
  for (bool withEffects : {false, true}) {
    std::vector<Effect> fx;
    if (withEffects)
      fx.push_back({"C", "1"});
    std::string suffix = withEffects ? "fx" : "";
    ASSERT_TRUE(store->putIfAbsent(session, "P" + suffix, "c1", {}, {}).isOk());
    std::vector<std::string> retire = {"P" + suffix, "Missing"};
    auto won = store->putIfAbsent(session, "C" + suffix, "c2", fx, retire);
    ASSERT_TRUE(won.isOk()) << won.getStatus().message();
    EXPECT_TRUE(won->won);
    EXPECT_EQ(**store->get(session, "P" + suffix), "t");
    // Retiring an absent record does not create it.
    EXPECT_FALSE(store->get(session, "Missing")->has_value());
    // A loser retires too (both prove the sender is done).
    ASSERT_TRUE(store->putIfAbsent(session, "Q" + suffix, "c3", {}, {}).isOk());
    auto lost =
        store->putIfAbsent(session, "C" + suffix, "c4", fx, {"Q" + suffix});
    ASSERT_TRUE(lost.isOk());
    EXPECT_FALSE(lost->won);
    EXPECT_EQ(lost->record, "c2");
    EXPECT_EQ(**store->get(session, "Q" + suffix), "t");
  }
  EXPECT_EQ(store->effects(session)->size(), 1u);
}

TEST_P(DataStoreTest, RetireAndGetMany) {
  for (const char *n : {"A", "B", "C"})
    ASSERT_TRUE(
        store->putIfAbsent(session, n, std::string("c") + n, {}, {}).isOk());
  ASSERT_TRUE(store->retire(session, {"B"}).isOk());
  auto many = store->getMany(session, {"C", "B", "X", "A"});
  ASSERT_TRUE(many.isOk()) << many.getStatus().message();
  ASSERT_EQ(many->size(), 4u);
  EXPECT_EQ(*(*many)[0], "cC");
  EXPECT_EQ(*(*many)[1], "t");
  EXPECT_FALSE((*many)[2].has_value());
  EXPECT_EQ(*(*many)[3], "cA");
  auto st = store->stats(session);
  ASSERT_TRUE(st.isOk());
  EXPECT_EQ(st->records, 3u);
  EXPECT_EQ(st->dataRecords, 2u);
}

TEST_P(DataStoreTest, CompletionSetHasOneCompleter) {
  using R = DataStore::AddResult;
  auto a = store->addToSet(session, "T|x", "A", 3);
  auto b = store->addToSet(session, "T|x", "B", 3);
  auto b2 = store->addToSet(session, "T|x", "B", 3); // duplicate
  ASSERT_TRUE(a.isOk() && b.isOk() && b2.isOk()) << a.getStatus().message();
  EXPECT_EQ(a->state, R::Pending);
  EXPECT_EQ(b->state, R::Pending);
  EXPECT_EQ(b2->state, R::Pending);
  EXPECT_EQ(b2->count, 2u);
  auto c = store->addToSet(session, "T|x", "C", 3);
  EXPECT_EQ(c->state, R::Completer);
  EXPECT_EQ(c->count, 3u);
  // A retried completer is told again; the others are not.
  EXPECT_EQ(store->addToSet(session, "T|x", "C", 3)->state, R::Completer);
  EXPECT_EQ(store->addToSet(session, "T|x", "A", 3)->state, R::Pending);
  auto st = store->stats(session);
  ASSERT_EQ(st->pendingSets.size(), 1u);
  EXPECT_EQ(st->pendingSets[0].set, "T|x");
  EXPECT_EQ(st->pendingSets[0].count, 3u);
  EXPECT_EQ(st->pendingSets[0].expected, 3u);
  // Consumed: later adds are ignored.
  ASSERT_TRUE(store->consumeSet(session, "T|x").isOk());
  EXPECT_EQ(store->addToSet(session, "T|x", "C", 3)->state, R::Consumed);
  EXPECT_EQ(store->addToSet(session, "T|x", "D", 3)->state, R::Consumed);
  st = store->stats(session);
  EXPECT_TRUE(st->pendingSets.empty());
  EXPECT_EQ(st->consumedSets, 1u);
}

TEST_P(DataStoreTest, CompletionSetOfOne) {
  auto a = store->addToSet(session, "T|one", "A", 1);
  ASSERT_TRUE(a.isOk());
  EXPECT_EQ(a->state, DataStore::AddResult::Completer);
}

TEST_P(DataStoreTest, CompletionSetSizeMismatchIsAnError) {
  ASSERT_TRUE(store->addToSet(session, "T|m", "A", 2).isOk());
  auto b = store->addToSet(session, "T|m", "B", 3);
  ASSERT_FALSE(b.isOk());
  EXPECT_NE(b.getStatus().message().find("expects 2"), std::string::npos)
      << b.getStatus().message();
}

TEST_P(DataStoreTest, SessionsAreIsolated) {
  std::string other = newSessionId();
  ASSERT_TRUE(store->putIfAbsent(session, "A", "c1", {{"A", "1"}}, {}).isOk());
  ASSERT_TRUE(store->addToSet(session, "T|s", "A", 2).isOk());
  EXPECT_FALSE(store->get(other, "A")->has_value());
  auto won = store->putIfAbsent(other, "A", "c2", {}, {});
  EXPECT_TRUE(won->won);
  EXPECT_EQ(store->addToSet(other, "T|s", "B", 2)->count, 1u);
  EXPECT_EQ(store->effects(other)->size(), 0u);
  ASSERT_TRUE(store->deleteSession(other).isOk());
  EXPECT_FALSE(store->get(other, "A")->has_value());
  EXPECT_EQ(**store->get(session, "A"), "c1");
}

TEST_P(DataStoreTest, SessionNamesWithGlobCharacters) {
  std::string odd = "s*?[x]\\";
  std::string plain = "s";
  ASSERT_TRUE(store->putIfAbsent(odd, "A", "c1", {}, {}).isOk());
  ASSERT_TRUE(store->putIfAbsent(plain, "A", "c2", {}, {}).isOk());
  EXPECT_EQ(store->stats(odd)->records, 1u);
  ASSERT_TRUE(store->deleteSession(odd).isOk());
  EXPECT_EQ(**store->get(plain, "A"), "c2");
  ASSERT_TRUE(store->deleteSession(plain).isOk());
}

TEST_P(DataStoreTest, DeleteSessionRemovesEverything) {
  ASSERT_TRUE(store->putIfAbsent(session, "A", "c1", {{"A", "1"}}, {}).isOk());
  ASSERT_TRUE(store->addToSet(session, "T|d", "A", 2).isOk());
  ASSERT_TRUE(detail::StoreAccess::put(*store, session, "k", "v").isOk());
  ASSERT_TRUE(store->deleteSession(session).isOk());
  auto st = store->stats(session);
  EXPECT_EQ(st->records, 0u);
  EXPECT_EQ(st->effects, 0u);
  EXPECT_TRUE(st->pendingSets.empty());
}

TEST_P(DataStoreTest, TombstonesAndConsumedMarkersExpireAfterTheTtl) {
  if (GetParam() == "memory")
    GTEST_SKIP() << "the memory store lives as long as the run: no TTL";
  std::string why;
  auto s = makeStore(GetParam(), tmp, &why, StoreOptions{1});
  ASSERT_TRUE(s) << why;
  ASSERT_TRUE(s->putIfAbsent(session, "A", "c1", {}, {}).isOk());
  ASSERT_TRUE(s->putIfAbsent(session, "B", "c2", {}, {"A"}).isOk());
  ASSERT_EQ(s->addToSet(session, "J|B", "B", 1)->state,
            DataStore::AddResult::Completer);
  ASSERT_TRUE(s->consumeSet(session, "J|B").isOk());
  // Within the TTL the tombstone and the marker still do their work.
  EXPECT_EQ(**s->get(session, "A"), std::string(1, record::Done));
  EXPECT_EQ(s->addToSet(session, "J|B", "B", 1)->state,
            DataStore::AddResult::Consumed);
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  // SQLite purges in a later retirement; Redis expires keys itself;
  // DynamoDB reads skip what expired (its own deletion comes days later).
  ASSERT_TRUE(s->retire(session, {"B"}).isOk());
  EXPECT_FALSE(s->get(session, "A")->has_value());
  EXPECT_EQ(**s->get(session, "B"), std::string(1, record::Done));
  auto st = s->stats(session);
  ASSERT_TRUE(st.isOk()) << st.getStatus().message();
  EXPECT_EQ(st->records, 1u); // B's fresh tombstone
  EXPECT_EQ(st->consumedSets, 0u);
  EXPECT_TRUE(st->pendingSets.empty());
  // A checkpoint that holds data never expires.
  ASSERT_TRUE(s->putIfAbsent(session, "C", "c3", {}, {}).isOk());
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  ASSERT_TRUE(s->retire(session, {"B"}).isOk());
  EXPECT_EQ(**s->get(session, "C"), "c3");
  EXPECT_TRUE(s->deleteSession(session).isOk());
}

TEST(DataStoreUri, TtlOption) {
  TempDir tmp;
  EXPECT_TRUE(openDataStore("sqlite:" + tmp.path() + "/a.db?ttl=60").isOk());
  for (const char *bad : {"?ttl=0", "?ttl=-1", "?ttl=x", "?keep=1", "?ttl="}) {
    auto s = openDataStore("sqlite:" + tmp.path() + "/b.db" + bad);
    ASSERT_FALSE(s.isOk()) << bad;
    EXPECT_NE(s.getStatus().message().find("expected ?ttl=SECONDS"),
              std::string::npos)
        << s.getStatus().message();
  }
  auto mem = openDataStore("memory?ttl=5");
  ASSERT_FALSE(mem.isOk());
  EXPECT_NE(mem.getStatus().message().find("?ttl is for sqlite and redis"),
            std::string::npos);
}

TEST_P(DataStoreTest, ConcurrentPutsHaveOneWinner) {
  constexpr int kThreads = 8, kRounds = 50;
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> winners{0};
    std::set<std::string> seen;
    std::mutex mu;
    std::vector<std::thread> threads;
    std::string name = "X-unumIndex-" + std::to_string(round);
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        auto r = store->putIfAbsent(session, name, "c" + std::to_string(t),
                                    {{name, std::to_string(t)}}, {});
        ASSERT_TRUE(r.isOk()) << r.getStatus().message();
        winners += r->won;
        std::lock_guard<std::mutex> lock(mu);
        seen.insert(r->won ? "c" + std::to_string(t) : r->record);
      });
    for (auto &t : threads)
      t.join();
    EXPECT_EQ(winners.load(), 1);
    EXPECT_EQ(seen.size(), 1u); // everyone continues with the same record
  }
  EXPECT_EQ(store->effects(session)->size(), size_t(kRounds));
}

TEST_P(DataStoreTest, ConcurrentAddsHaveOneCompleter) {
  constexpr int kMembers = 200, kThreads = 4;
  std::atomic<int> completers{0};
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i; (i = next++) < kMembers;) {
        auto r =
            store->addToSet(session, "T|c", "M" + std::to_string(i), kMembers);
        ASSERT_TRUE(r.isOk()) << r.getStatus().message();
        completers += r->state == DataStore::AddResult::Completer;
      }
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(completers.load(), 1);
}

// The outbox: staged changes land with the next write, in order; an
// invocation issued and finished in one batch never reaches the store. (The
// memory store keeps its outbox too, for the process's lifetime.)
TEST_P(DataStoreTest, OutboxChangesLandWithTheNextWrite) {
  store->stageIssued(session, 7, "F", "{\"Data\": 1}");
  store->stageIssued(session, 8, "G", "{\"Data\": 2}");
  store->stageFinished(session, 8, "G"); // same batch: neither is written
  ASSERT_TRUE(store->putIfAbsent(session, "A", "c1", {}, {}).isOk());
  store->stageIssued(session, 9, "F", "{\"Data\": 3}");
  store->stageFinished(session, 7, "F"); // an earlier batch's entry
  auto pending = store->outbox(session); // flushes first
  ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, 9u);
  EXPECT_EQ((*pending)[0].function, "F");
  EXPECT_EQ((*pending)[0].payload, "{\"Data\": 3}");
  auto unfinished = store->unfinishedSessions();
  ASSERT_TRUE(unfinished.isOk());
  EXPECT_EQ(std::count(unfinished->begin(), unfinished->end(), session), 1);
  // Outbox entries are not checkpoints.
  auto st = store->stats(session);
  ASSERT_TRUE(st.isOk());
  EXPECT_EQ(st->records, 1u);
  store->stageFinished(session, 9, "F");
  ASSERT_TRUE(store->flushOutbox().isOk());
  EXPECT_TRUE(store->outbox(session)->empty());
  ASSERT_TRUE(detail::StoreAccess::put(*store, session, "out:B", "2").isOk());
  ASSERT_TRUE(detail::StoreAccess::put(*store, session, "out:A", "1").isOk());
  ASSERT_TRUE(detail::StoreAccess::put(*store, session, "run", "{}").isOk());
  auto outs = store->scan(session, "out:");
  ASSERT_TRUE(outs.isOk()) << outs.getStatus().message();
  ASSERT_EQ(outs->size(), 2u);
  EXPECT_EQ((*outs)[0].first, "out:A");
  EXPECT_EQ((*outs)[1].second, "2");
}

// Sessions whose names extend one another's with '#' and digits (the shape
// of DynamoDB's outbox sort keys, SESSION#ID) keep their outboxes apart;
// deleting a session takes its outbox entries with it, and only its own.
TEST_P(DataStoreTest, OutboxesOfSessionsWithSharedPrefixes) {
  const std::string longer = session + "#00000000000000000012";
  const std::string other = session + "#x";
  store->stageIssued(session, 12, "F", "{\"Data\": 1}");
  store->stageIssued(longer, 5, "G", "{\"Data\": 2}");
  store->stageIssued(other, 6, "H", "{\"Data\": 3}");
  ASSERT_TRUE(store->flushOutbox().isOk());
  for (auto &[s, id, fn] :
       {std::tuple<std::string, uint64_t, std::string>{session, 12, "F"},
        {longer, 5, "G"},
        {other, 6, "H"}}) {
    auto pending = store->outbox(s);
    ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
    ASSERT_EQ(pending->size(), 1u) << s;
    EXPECT_EQ((*pending)[0].id, id);
    EXPECT_EQ((*pending)[0].function, fn);
  }
  auto unfinished = store->unfinishedSessions();
  ASSERT_TRUE(unfinished.isOk()) << unfinished.getStatus().message();
  for (const std::string &s : {session, longer, other})
    EXPECT_EQ(std::count(unfinished->begin(), unfinished->end(), s), 1) << s;
  ASSERT_TRUE(store->deleteSession(session).isOk());
  EXPECT_TRUE(store->outbox(session)->empty());
  EXPECT_EQ(store->outbox(longer)->size(), 1u);
  EXPECT_EQ(store->outbox(other)->size(), 1u);
  unfinished = store->unfinishedSessions();
  ASSERT_TRUE(unfinished.isOk());
  EXPECT_EQ(std::count(unfinished->begin(), unfinished->end(), session), 0);
  ASSERT_TRUE(store->deleteSession(longer).isOk());
  ASSERT_TRUE(store->deleteSession(other).isOk());
  EXPECT_TRUE(store->outbox(other)->empty());
}

// Every session has an entry 0 (the runner's report entry): two sessions
// pending at once keep theirs (SQLite keyed its outbox by id alone and the
// second replaced the first: a killed first session was never resumed).
TEST_P(DataStoreTest, EverySessionKeepsItsOwnEntryZero) {
  const std::string other = session + "-other";
  store->stageIssued(session, 0, "", "");
  store->stageIssued(other, 0, "", "");
  ASSERT_TRUE(store->flushOutbox().isOk());
  for (const std::string &s : {session, other}) {
    auto pending = store->outbox(s);
    ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
    ASSERT_EQ(pending->size(), 1u) << s;
    EXPECT_EQ((*pending)[0].id, 0u);
  }
  auto unfinished = store->unfinishedSessions();
  ASSERT_TRUE(unfinished.isOk()) << unfinished.getStatus().message();
  for (const std::string &s : {session, other})
    EXPECT_EQ(std::count(unfinished->begin(), unfinished->end(), s), 1) << s;
  store->stageFinished(session, 0, "");
  ASSERT_TRUE(store->flushOutbox().isOk());
  EXPECT_TRUE(store->outbox(session)->empty());
  EXPECT_EQ(store->outbox(other)->size(), 1u);
  ASSERT_TRUE(store->deleteSession(other).isOk());
  EXPECT_TRUE(store->outbox(other)->empty());
  unfinished = store->unfinishedSessions();
  ASSERT_TRUE(unfinished.isOk());
  for (const std::string &s : {session, other})
    EXPECT_EQ(std::count(unfinished->begin(), unfinished->end(), s), 0) << s;
}

// A chain's outbox: each step's checkpoint carries its own invocation's
// issue and its sender's finish (SQLite keeps such an entry in the
// checkpoint's row). Every pending entry stays listed, through a lost put,
// a retirement before its finish and the end of the session's report
// entry, until it is finished.
TEST_P(DataStoreTest, OutboxEntriesWrittenWithCheckpoints) {
  auto ids = [&] {
    std::set<uint64_t> out;
    auto pending = store->outbox(session);
    EXPECT_TRUE(pending.isOk()) << pending.getStatus().message();
    if (pending)
      for (const DataStore::Pending &p : *pending)
        out.insert(p.id);
    return out;
  };
  auto listed = [&] {
    auto u = store->unfinishedSessions();
    EXPECT_TRUE(u.isOk()) << u.getStatus().message();
    return u && std::count(u->begin(), u->end(), session) == 1;
  };
  store->stageIssued(session, 0, "", "");
  store->stageIssued(session, 21, "F0", "{\"Data\": 0}");
  ASSERT_TRUE(store->putIfAbsent(session, "F0", "c0", {}, {}).isOk());
  EXPECT_EQ(ids(), (std::set<uint64_t>{0, 21}));
  store->stageIssued(session, 22, "F1", "{\"Data\": 1}");
  store->stageFinished(session, 21, "F0");
  ASSERT_TRUE(store->putIfAbsent(session, "F1", "c1", {}, {"F0"}).isOk());
  EXPECT_EQ(ids(), (std::set<uint64_t>{0, 22}));
  auto pending = store->outbox(session);
  ASSERT_TRUE(pending.isOk());
  for (const DataStore::Pending &p : *pending)
    if (p.id == 22) {
      EXPECT_EQ(p.function, "F1");
      EXPECT_EQ(p.payload, "{\"Data\": 1}");
    }
  // A duplicate delivery of F1 loses its put: its entry is kept all the same.
  store->stageIssued(session, 23, "F1", "{\"Data\": 1}");
  auto lost = store->putIfAbsent(session, "F1", "c1", {}, {"F0"});
  ASSERT_TRUE(lost.isOk());
  EXPECT_FALSE(lost->won);
  EXPECT_EQ(ids(), (std::set<uint64_t>{0, 22, 23}));
  // Retired before its entry is finished (a fan-in target retires its
  // inputs): still listed.
  ASSERT_TRUE(store->retire(session, {"F1"}).isOk());
  EXPECT_EQ(ids(), (std::set<uint64_t>{0, 22, 23}));
  // The report entry goes first: the session is still unfinished.
  store->stageFinished(session, 0, "");
  ASSERT_TRUE(store->flushOutbox().isOk());
  EXPECT_EQ(ids(), (std::set<uint64_t>{22, 23}));
  EXPECT_TRUE(listed());
  store->stageFinished(session, 22, "F1");
  store->stageFinished(session, 23, "F1");
  ASSERT_TRUE(store->flushOutbox().isOk());
  EXPECT_TRUE(ids().empty());
  EXPECT_FALSE(listed());
}

// An entry staged more than once in one batch (finished twice: a
// redelivery ran it again before the first finish was flushed; or finished,
// then delivered and issued again): the last change is what lands.
TEST_P(DataStoreTest, OutboxEntryStagedTwiceInOneBatch) {
  store->stageIssued(session, 10, "F", "{\"Data\": 1}");
  store->stageIssued(session, 11, "G", "{\"Data\": 2}");
  ASSERT_TRUE(store->flushOutbox().isOk());
  store->stageFinished(session, 10, "F");
  store->stageFinished(session, 10, "F");
  store->stageFinished(session, 11, "G");
  store->stageIssued(session, 11, "G", "{\"Data\": 3}");
  ASSERT_TRUE(store->flushOutbox().isOk());
  auto pending = store->outbox(session);
  ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, 11u);
  EXPECT_EQ((*pending)[0].payload, "{\"Data\": 3}");
  // Nothing was left staged by a refused write.
  ASSERT_TRUE(store->putIfAbsent(session, "K", "c1", {}, {}).isOk());
  EXPECT_EQ(store->outbox(session)->size(), 1u);
}

// What a function host does before its 202 (LocalRunner::accept): stage
// the invocation, look for the instance's checkpoint, flush. The entry is
// durable afterwards on every store; Redis sends it with the lookup, in
// one round trip.
TEST_P(DataStoreTest, StagedIssueThenLookupThenFlush) {
  ASSERT_TRUE(store->putIfAbsent(session, "B", "cB", {}, {}).isOk());
  store->stageIssued(session, 12, "A", "{\"Data\": 1}");
  uint64_t before = store->operationCount();
  auto rec = store->get(session, "A");
  ASSERT_TRUE(rec.isOk()) << rec.getStatus().message();
  EXPECT_FALSE(rec->has_value());
  ASSERT_TRUE(store->flushOutbox().isOk());
  if (GetParam() == std::string("redis")) {
    EXPECT_EQ(store->operationCount() - before, 1u);
  }
  store->stageIssued(session, 13, "B", "{\"Data\": 2}");
  auto found = store->get(session, "B");
  ASSERT_TRUE(found.isOk());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(**found, "cB");
  ASSERT_TRUE(store->flushOutbox().isOk());
  auto pending = store->outbox(session);
  ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
  ASSERT_EQ(pending->size(), 2u);
  std::set<uint64_t> ids;
  for (const DataStore::Pending &p : *pending)
    ids.insert(p.id);
  EXPECT_EQ(ids, (std::set<uint64_t>{12, 13}));
}

namespace {
/// Holds the first outbox batch taken in flight until released.
struct BatchHold {
  std::mutex mu;
  std::condition_variable cv;
  bool held = false, released = false;
} hold;

void holdBatch() {
  std::unique_lock<std::mutex> lock(hold.mu);
  if (hold.held)
    return;
  hold.held = true;
  hold.cv.notify_all();
  hold.cv.wait(lock, [] { return hold.released; });
}
} // namespace

// A change staged before flushOutbox() or an outbox read is in the store
// when the call returns, even if another thread (a host's background
// flush) has taken it in a batch that it is still writing: a host answers
// 202 once flushOutbox() returned, and a client takes a session whose
// outbox is empty for finished. (DynamoDB returned at once: the
// multi-process test lost the fan-in target's output.) Deterministic: the
// other thread's batch is held in flight until this call has returned, or
// for 150 ms; a call that returns while it is held fails.
TEST_P(DataStoreTest, OutboxCallsWaitForABatchInFlight) {
  for (uint64_t id : {30, 31}) { // flushOutbox(), then outbox()
    {
      std::lock_guard<std::mutex> lock(hold.mu);
      hold.held = hold.released = false;
    }
    detail::StoreAccess::onOutboxBatchTaken(holdBatch);
    store->stageIssued(session, id, "F", "{\"Data\": 1}");
    std::thread flusher([&] { EXPECT_TRUE(store->flushOutbox().isOk()); });
    {
      std::unique_lock<std::mutex> lock(hold.mu);
      hold.cv.wait(lock, [] { return hold.held; });
    }
    bool early = false, returned = false;
    Result<std::vector<DataStore::Pending>> pending =
        std::vector<DataStore::Pending>();
    std::thread caller([&] {
      Status s = Status::ok();
      if (id == 30)
        s = store->flushOutbox();
      else
        pending = store->outbox(session);
      EXPECT_TRUE(s.isOk() && pending.isOk());
      std::lock_guard<std::mutex> lock(hold.mu);
      early = !hold.released;
      returned = true;
      hold.cv.notify_all();
    });
    {
      std::unique_lock<std::mutex> lock(hold.mu);
      hold.cv.wait_for(lock, std::chrono::milliseconds(150),
                       [&] { return returned; });
      hold.released = true;
      hold.cv.notify_all();
    }
    flusher.join();
    caller.join();
    detail::StoreAccess::onOutboxBatchTaken(nullptr);
    EXPECT_FALSE(early) << "returned while the batch with entry " << id
                        << " was still being written";
    if (id == 31) {
      ASSERT_TRUE(pending.isOk());
      EXPECT_EQ(pending->size(), 2u); // 30 and 31
    }
  }
}

// DataStore::putIfAbsentIssuing: the continuations' outbox entries exist if
// and only if the put won, written in the same atomic operation (staged
// changes go first, as for any write); a losing put writes none, but
// retires what it was asked to, as putIfAbsent does. A store that cannot
// refuses (and writes no record), so that a caller never half-succeeds.
TEST_P(DataStoreTest, PutWithIssuesIsAtomicAndOnlyOnWin) {
  const std::vector<DataStore::Pending> first{{11, "G", "{\"Data\": 1}"},
                                              {12, "H", "{\"Data\": 2}"}};
  if (!store->issuesWithPut()) {
    auto refused = store->putIfAbsentIssuing(session, "A", "c1", {}, {}, first);
    EXPECT_FALSE(refused.isOk());
    EXPECT_FALSE(store->get(session, "A")->has_value());
    // Without issues it is putIfAbsent.
    auto plain = store->putIfAbsentIssuing(session, "A", "c1", {}, {}, {});
    ASSERT_TRUE(plain.isOk()) << plain.getStatus().message();
    EXPECT_TRUE(plain->won);
    return;
  }
  ASSERT_TRUE(store->putIfAbsent(session, "S", "cS", {}, {}).isOk());
  store->stageIssued(session, 5, "F", "{\"Data\": 0}");
  auto won = store->putIfAbsentIssuing(session, "A", "c1", {{"A", "\"x\""}},
                                       std::string("S"), first);
  ASSERT_TRUE(won.isOk()) << won.getStatus().message();
  EXPECT_TRUE(won->won);
  auto lost = store->putIfAbsentIssuing(session, "A", "c2", {{"A", "\"y\""}},
                                        {}, {{13, "G", "{\"Data\": 3}"}});
  ASSERT_TRUE(lost.isOk()) << lost.getStatus().message();
  EXPECT_FALSE(lost->won);
  EXPECT_EQ(lost->record, "c1");
  auto pending = store->outbox(session);
  ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
  std::map<uint64_t, std::pair<std::string, std::string>> byId;
  for (const DataStore::Pending &e : *pending)
    byId[e.id] = {e.function, e.payload};
  ASSERT_EQ(byId.size(), 3u); // the staged one and the winner's two
  EXPECT_EQ(byId[5].first, "F");
  EXPECT_EQ(byId[11],
            std::make_pair(std::string("G"), std::string("{\"Data\": 1}")));
  EXPECT_EQ(byId[12].first, "H");
  EXPECT_EQ(**store->get(session, "A"), "c1");
  EXPECT_EQ(**store->get(session, "S"), std::string(1, record::Done));
  auto fx = store->effects(session);
  ASSERT_TRUE(fx.isOk());
  ASSERT_EQ(fx->size(), 1u);
  EXPECT_EQ((*fx)[0].value, "\"x\"");
  // Entries written so are retired like any other.
  for (uint64_t id : {5, 11, 12})
    store->stageFinished(session, id, "");
  ASSERT_TRUE(store->flushOutbox().isOk());
  EXPECT_TRUE(store->outbox(session)->empty());
}

// Many executions of one instance race with entries of their own: exactly
// one wins, and the outbox holds exactly the winner's entries.
TEST_P(DataStoreTest, ConcurrentPutsWithIssuesLeaveOnlyTheWinnersEntries) {
  if (!store->issuesWithPut())
    GTEST_SKIP() << store->describe() << " journals before it answers";
  constexpr int kThreads = 8;
  std::atomic<int> winners{0}, winner{-1};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<DataStore::Pending> issues;
      for (uint64_t k = 0; k < 3; ++k)
        issues.push_back({uint64_t(100 * (t + 1) + k), "G", "{}"});
      auto r = store->putIfAbsentIssuing(session, "A", "c" + std::to_string(t),
                                         {}, {}, issues);
      if (r.isOk() && r->won) {
        ++winners;
        winner = t;
      }
    });
  for (std::thread &t : threads)
    t.join();
  ASSERT_EQ(winners.load(), 1);
  EXPECT_EQ(**store->get(session, "A"), "c" + std::to_string(winner.load()));
  auto pending = store->outbox(session);
  ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
  std::set<uint64_t> ids;
  for (const DataStore::Pending &e : *pending)
    ids.insert(e.id);
  const uint64_t base = 100 * uint64_t(winner.load() + 1);
  EXPECT_EQ(ids, (std::set<uint64_t>{base, base + 1, base + 2}));
}

TEST_P(DataStoreTest, CountsOperations) {
  uint64_t before = store->operationCount();
  ASSERT_TRUE(detail::StoreAccess::put(*store, session, "k", "v").isOk());
  (void)store->get(session, "A");
  EXPECT_EQ(store->operationCount() - before, 2u);
}

INSTANTIATE_TEST_SUITE_P(Stores, DataStoreTest,
                         ::testing::Values("memory", "sqlite", "redis",
                                           "dynamodb"),
                         [](const auto &info) { return info.param; });

TEST(DataStoreOpen, Uris) {
  EXPECT_TRUE(openDataStore("memory").isOk());
  auto bad = openDataStore("postgres://x");
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.getStatus().message().find("unknown store"), std::string::npos);
  EXPECT_FALSE(openDataStore("sqlite:").isOk());
  EXPECT_FALSE(openDataStore("redis://127.0.0.1:notaport").isOk());
  auto dir = openDataStore("sqlite:/nonexistent-dir/x.db");
  ASSERT_FALSE(dir.isOk());
  EXPECT_NE(dir.getStatus().message().find("cannot open"), std::string::npos);
  // Nothing listens on port 1.
  auto down = openDataStore("redis://127.0.0.1:1");
  ASSERT_FALSE(down.isOk());
  EXPECT_NE(down.getStatus().message().find("cannot connect"),
            std::string::npos);
}

TEST(DataStoreOpen, SqliteIsSharedAcrossConnections) {
  TempDir tmp;
  std::string path = "sqlite:" + tmp.path() + "/shared.db";
  auto a = openDataStore(path);
  auto b = openDataStore(path);
  ASSERT_TRUE(a.isOk() && b.isOk());
  auto w1 = (*a)->putIfAbsent("s", "A", "c1", {}, {});
  auto w2 = (*b)->putIfAbsent("s", "A", "c2", {}, {});
  EXPECT_TRUE(w1->won);
  EXPECT_FALSE(w2->won);
  EXPECT_EQ(w2->record, "c1");
}

// SQLite keeps an entry issued with a checkpoint in that checkpoint's row
// (lib/Runtime/SqliteStore.cpp). Another connection (a process resuming the
// session) lists it and finishes it without knowing the row; a tombstone
// that holds a pending entry does not expire.
TEST(DataStoreOpen, SqliteOutboxEntriesInCheckpointRows) {
  TempDir tmp;
  std::string path = tmp.path() + "/rows.db";
  auto a = openSqliteStore(path, StoreOptions{1});
  auto b = openSqliteStore(path);
  ASSERT_TRUE(a.isOk() && b.isOk());
  std::string session = newSessionId();
  (*a)->stageIssued(session, 0, "", "");
  (*a)->stageIssued(session, 31, "F0", "{\"Data\": 0}");
  ASSERT_TRUE((*a)->putIfAbsent(session, "F0", "c0", {}, {}).isOk());
  (*a)->stageIssued(session, 32, "F1", "{\"Data\": 1}");
  (*a)->stageFinished(session, 31, "F0");
  ASSERT_TRUE((*a)->putIfAbsent(session, "F1", "c1", {}, {"F0"}).isOk());
  ASSERT_TRUE((*a)->retire(session, {"F1"}).isOk());
  auto inRows = [&] {
    sqlite3 *db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt *s = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT group_concat(instance || '=' || ob_id) FROM "
                       "unum_records WHERE ob_id IS NOT NULL",
                       -1, &s, nullptr);
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
      out = reinterpret_cast<const char *>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
  };
  EXPECT_EQ(inRows(), "F1=32"); // F0's went with F0's retirement
  // The TTL passes; a later retirement purges the expired tombstones.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_TRUE((*a)->retire(session, {"Z"}).isOk());
  EXPECT_FALSE((*a)->get(session, "F0")->has_value()); // purged
  EXPECT_EQ(**(*a)->get(session, "F1"), std::string(1, record::Done));
  auto pending = (*b)->outbox(session);
  ASSERT_TRUE(pending.isOk()) << pending.getStatus().message();
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[1].id, 32u);
  EXPECT_EQ((*pending)[1].function, "F1");
  (*b)->stageFinished(session, 32, "F1");
  ASSERT_TRUE((*b)->flushOutbox().isOk());
  EXPECT_EQ(inRows(), "");
  EXPECT_EQ((*a)->outbox(session)->size(), 1u); // the report entry
  // An entry in a row issued again moves to unum_outbox: listed once, and
  // gone with its finish.
  (*a)->stageIssued(session, 41, "F2", "{\"Data\": 2}");
  ASSERT_TRUE((*a)->putIfAbsent(session, "F2", "c2", {}, {}).isOk());
  EXPECT_EQ(inRows(), "F2=41");
  (*a)->stageIssued(session, 41, "F2", "{\"Data\": 3}");
  ASSERT_TRUE((*a)->flushOutbox().isOk());
  EXPECT_EQ(inRows(), "");
  pending = (*a)->outbox(session);
  ASSERT_TRUE(pending.isOk());
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[1].payload, "{\"Data\": 3}");
  (*a)->stageFinished(session, 41, "F2");
  ASSERT_TRUE((*a)->putIfAbsent(session, "F3", "c3", {}, {"F2"}).isOk());
  EXPECT_EQ((*a)->outbox(session)->size(), 1u);
  EXPECT_TRUE((*a)->deleteSession(session).isOk());
}

// A host's continuation entries written with its checkpoint (SQLite's
// putIfAbsentIssuing) are in the file: another connection, as another
// host's process would open it, lists them and retires them.
TEST(DataStoreOpen, SqliteEntriesWrittenWithAPutAreSharedByTheFile) {
  TempDir tmp;
  std::string path = tmp.path() + "/issues.db";
  auto sender = openSqliteStore(path);
  auto receiver = openSqliteStore(path);
  ASSERT_TRUE(sender.isOk() && receiver.isOk());
  ASSERT_TRUE((*sender)->issuesWithPut());
  std::string session = newSessionId();
  auto put = (*sender)->putIfAbsentIssuing(session, "F", "c1", {}, {},
                                           {{901, "G", "{\"Data\": 1}"}});
  ASSERT_TRUE(put.isOk()) << put.getStatus().message();
  ASSERT_TRUE(put->won);
  auto seen = (*receiver)->outbox(session);
  ASSERT_TRUE(seen.isOk()) << seen.getStatus().message();
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ((*seen)[0].id, 901u);
  EXPECT_EQ((*seen)[0].function, "G");
  EXPECT_EQ((*seen)[0].payload, "{\"Data\": 1}");
  (*receiver)->stageFinished(session, 901, "G");
  ASSERT_TRUE((*receiver)->flushOutbox().isOk());
  EXPECT_TRUE((*sender)->outbox(session)->empty());
}

TEST(DataStoreOpen, SqliteIsSafeAcrossProcesses) {
  // Four processes race on the same file: one winner per checkpoint name,
  // one completer for the set they fill together.
  TempDir tmp;
  std::string path = tmp.path() + "/procs.db";
  constexpr int kProcs = 4, kNames = 150;
  ASSERT_TRUE(openSqliteStore(path).isOk()); // create the schema first
  std::vector<std::pair<pid_t, int>> children;
  for (int p = 0; p < kProcs; ++p) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      int wins = 0, completers = 0, errors = 0;
      auto store = openSqliteStore(path);
      if (!store)
        _exit(2);
      for (int i = 0; i < kNames; ++i) {
        std::string name = "X-unumIndex-" + std::to_string(i);
        auto r = (*store)->putIfAbsent("s", name, "c" + std::to_string(p),
                                       {{name, std::to_string(p)}}, {});
        if (!r)
          ++errors;
        else
          wins += r->won;
        auto a = (*store)->addToSet(
            "s", "T|all", name + "/" + std::to_string(p), kProcs * kNames);
        if (!a)
          ++errors;
        else
          completers += a->state == DataStore::AddResult::Completer;
      }
      int out[3] = {wins, completers, errors};
      (void)!write(fds[1], out, sizeof(out));
      _exit(0);
    }
    close(fds[1]);
    children.push_back({pid, fds[0]});
  }
  int wins = 0, completers = 0, errors = 0;
  for (auto [pid, fd] : children) {
    int out[3] = {0, 0, 1};
    ASSERT_EQ(read(fd, out, sizeof(out)), ssize_t(sizeof(out)));
    close(fd);
    int status;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wins += out[0];
    completers += out[1];
    errors += out[2];
  }
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(wins, kNames);
  EXPECT_EQ(completers, 1);
  auto store = openSqliteStore(path);
  EXPECT_EQ((*store)->effects("s")->size(), size_t(kNames));
}
