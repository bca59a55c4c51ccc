//===- SqliteStore.cpp - The embedded data store --------------------------===//
//
// One connection per store object, serialised by a mutex: in one process the
// mutex orders writers without SQLite's sleeping busy handler, and across
// processes WAL mode plus a busy timeout and BEGIN IMMEDIATE make every
// operation one atomic transaction. Every write transaction first applies
// the outbox changes staged so far (DataStore::stageIssued), so they commit
// with it: a chain step's checkpoint carries its own invocation's removal
// and its continuation's insertion.
//
// The outbox is a rowid table keyed by the invocation's id alone (ids are
// unique per process, from a random 63-bit start): inserting and deleting
// by an integer key is what costs least, and it holds only pending
// invocations, so reading one session's scans it without an index. The one
// id every session shares, 0 (the runner's report entry), lives in its own
// table keyed by session: two sessions running at once would otherwise
// replace each other's report entry, and a session killed before reporting
// would not be resumed.
//
// An entry issued in a checkpoint's transaction is kept in that checkpoint's
// row instead (columns ob_id, ob_fn, ob_payload of unum_records), and its
// removal clears them, in the statement that retires the row when that is
// in the same transaction (a chain step: its own entry goes into its new
// row, its sender's is cleared with the sender's retirement). A commit then
// writes the pages of the checkpoints alone: an outbox page more per
// transaction cost a chain step a third of its time (a WAL frame and twice
// the checkpointing). outbox() reads both places. Only a session whose
// standing entry (the report entry 0, or a host's start marker) this store
// committed gets entries in its rows, so that unfinishedSessions() still
// finds every session in the outbox tables; removing that standing entry
// moves any entry left in the rows back to unum_outbox. Tombstones holding
// an entry do not expire.
//
// putIfAbsentIssuing (issuesWithPut: a host's continuations to other hosts,
// docs/Deploy.md) inserts its entries into unum_outbox in the put's
// transaction once the record's insert has won; a lost put writes none.
// Their ids derive from the sender's entry, so they are not this process's
// and never go into rows.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/DataStore.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

using namespace unum::runtime;

namespace {
const char *const kSchema = R"sql(
CREATE TABLE IF NOT EXISTS unum_records(
  session TEXT NOT NULL, instance TEXT NOT NULL, record BLOB NOT NULL,
  expires INTEGER,
  PRIMARY KEY(session, instance)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unum_sets(
  session TEXT NOT NULL, name TEXT NOT NULL, expected INTEGER NOT NULL,
  count INTEGER NOT NULL DEFAULT 0, completer TEXT,
  consumed INTEGER NOT NULL DEFAULT 0, expires INTEGER,
  PRIMARY KEY(session, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unum_members(
  session TEXT NOT NULL, name TEXT NOT NULL, member TEXT NOT NULL,
  PRIMARY KEY(session, name, member)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unum_effects(
  id INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL,
  instance TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS unum_effects_session ON unum_effects(session);
CREATE TABLE IF NOT EXISTS unum_kv(
  session TEXT NOT NULL, key TEXT NOT NULL, value BLOB,
  PRIMARY KEY(session, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS unum_outbox(
  id INTEGER PRIMARY KEY, session TEXT NOT NULL, function TEXT NOT NULL,
  payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS unum_outbox0(
  session TEXT PRIMARY KEY, function TEXT NOT NULL, payload TEXT NOT NULL)
  WITHOUT ROWID;
)sql";

// After kSchema: databases written before tombstones could expire gain the
// column (and those before outbox entries in checkpoint rows ob_id, ob_fn,
// ob_payload), then the indexes that find what has expired.
const char *const kExpiryIndexes = R"sql(
CREATE INDEX IF NOT EXISTS unum_records_expires ON unum_records(expires)
  WHERE expires IS NOT NULL;
CREATE INDEX IF NOT EXISTS unum_sets_expires ON unum_sets(expires)
  WHERE expires IS NOT NULL;
)sql";

// A checkpoint's insert and a retirement; the second of each also writes
// an outbox entry into the row, or clears the one ?4 names.
const char *const kInsert = "INSERT OR IGNORE INTO unum_records(session, "
                            "instance, record) VALUES(?1,?2,?3)";
const char *const kInsertWithEntry =
    "INSERT OR IGNORE INTO unum_records(session, instance, record, ob_id, "
    "ob_fn, ob_payload) VALUES(?1,?2,?3,?4,?5,?6)";
const char *const kRetire = "UPDATE unum_records SET record=X'74', "
                            "expires=?3 WHERE session=?1 AND instance=?2";
const char *const kRetireClearing =
    "UPDATE unum_records SET record=X'74', expires=?3, ob_id=CASE WHEN "
    "ob_id=?4 THEN NULL ELSE ob_id END, ob_fn=CASE WHEN ob_id=?4 THEN NULL "
    "ELSE ob_fn END, ob_payload=CASE WHEN ob_id=?4 THEN NULL ELSE ob_payload "
    "END WHERE session=?1 AND instance=?2";

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class SqliteStore final : public DataStore {
public:
  ~SqliteStore() override {
    for (auto &[sql, stmt] : stmts)
      sqlite3_finalize(stmt);
    for (sqlite3_stmt *c : controls)
      sqlite3_finalize(c);
    if (db)
      sqlite3_close(db);
  }

  Status open(const std::string &file, StoreOptions options) {
    path = file;
    ttlMs = options.ttlSeconds * 1000;
    int rc = sqlite3_open_v2(file.c_str(), &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                 SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK)
      return Status::error("cannot open sqlite database '" + file +
                           "': " + (db ? sqlite3_errmsg(db) : "out of memory"));
    sqlite3_busy_timeout(db, 60000);
    if (Status s = exec("PRAGMA journal_mode=WAL"); !s)
      return s;
    if (Status s = exec("PRAGMA synchronous=NORMAL"); !s)
      return s;
    if (Status s = exec("BEGIN IMMEDIATE"); !s)
      return s;
    Status s = exec(kSchema);
    for (const char *table : {"unum_records", "unum_sets"})
      if (s && !hasColumn(table, "expires"))
        s = exec((std::string("ALTER TABLE ") + table +
                  " ADD COLUMN expires INTEGER")
                     .c_str());
    if (s && !hasColumn("unum_records", "ob_id"))
      s = exec("ALTER TABLE unum_records ADD COLUMN ob_id INTEGER;"
               "ALTER TABLE unum_records ADD COLUMN ob_fn TEXT;"
               "ALTER TABLE unum_records ADD COLUMN ob_payload TEXT");
    if (s)
      s = exec(kExpiryIndexes);
    if (!s) {
      (void)exec("ROLLBACK");
      return s;
    }
    return exec("COMMIT");
  }

  std::string describe() const override { return "sqlite:" + path; }
  bool persistent() const override { return true; }

  Result<std::optional<std::string>> get(const std::string &session,
                                         const std::string &instance) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    sqlite3_stmt *s = stmt("SELECT record FROM unum_records WHERE session=?1 "
                           "AND instance=?2");
    bind(s, 1, session);
    bind(s, 2, instance);
    int rc = sqlite3_step(s);
    std::optional<std::string> out;
    if (rc == SQLITE_ROW)
      out = column(s, 0);
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
      return fail("reading checkpoint");
    return out;
  }

  Result<std::vector<std::optional<std::string>>>
  getMany(const std::string &session,
          const std::vector<std::string> &instances) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    if (Status s = control(Control::Begin); !s)
      return s;
    sqlite3_stmt *s = stmt("SELECT record FROM unum_records WHERE session=?1 "
                           "AND instance=?2");
    std::vector<std::optional<std::string>> out;
    out.reserve(instances.size());
    for (const std::string &instance : instances) {
      bind(s, 1, session);
      bind(s, 2, instance);
      int rc = sqlite3_step(s);
      out.push_back(rc == SQLITE_ROW ? std::optional(column(s, 0))
                                     : std::nullopt);
      sqlite3_reset(s);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        Status st = fail("reading checkpoints");
        (void)control(Control::Rollback);
        return st;
      }
    }
    if (Status st = control(Control::Commit); !st)
      return st;
    return out;
  }

  Result<PutResult> putIfAbsent(const std::string &session,
                                const std::string &instance, std::string rec,
                                const std::vector<Effect> &effects,
                                NameList retireList) override {
    return checkpointPut(session, instance, std::move(rec), effects, retireList,
                         {});
  }

  // The entries go into unum_outbox in the put's transaction, after the
  // record's insert won (a lost put rolls nothing back: it wrote none).
  bool issuesWithPut() const override { return true; }
  Result<PutResult>
  putIfAbsentIssuing(const std::string &session, const std::string &instance,
                     std::string rec, const std::vector<Effect> &effects,
                     NameList retireList,
                     const std::vector<Pending> &issues) override {
    return checkpointPut(session, instance, std::move(rec), effects, retireList,
                         issues);
  }

  Result<PutResult> checkpointPut(const std::string &session,
                                  const std::string &instance, std::string rec,
                                  const std::vector<Effect> &effects,
                                  NameList retireList,
                                  const std::vector<Pending> &issues) {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    Put put{session, instance, retireList, nullptr, {}};
    return transaction<PutResult>(
        [&]() -> Result<PutResult> {
          if (Status st = retireLocked(session, retireList, &put); !st)
            return st;
          // (Without an entry, the statement the floor measures.)
          sqlite3_stmt *ins = stmt(put.entry ? kInsertWithEntry : kInsert);
          bind(ins, 1, session);
          bind(ins, 2, instance);
          bindBlob(ins, 3, rec);
          if (put.entry)
            bindEntry(ins, 4, *put.entry);
          if (!stepDone(ins))
            return fail("writing checkpoint");
          if (sqlite3_changes(db) == 0) {
            // Lost: the entry goes where every other does.
            if (put.entry) {
              if (!insertOutbox(*put.entry))
                return fail("writing the outbox");
              put.entry = nullptr;
            }
            sqlite3_stmt *s = stmt("SELECT record FROM unum_records WHERE "
                                   "session=?1 AND instance=?2");
            bind(s, 1, session);
            bind(s, 2, instance);
            int rc = sqlite3_step(s);
            std::string winner =
                rc == SQLITE_ROW ? column(s, 0) : std::string();
            sqlite3_reset(s);
            if (rc != SQLITE_ROW)
              return fail("reading the winning checkpoint");
            return PutResult{false, winner};
          }
          if (Status st = appendLocked(session, effects); !st)
            return st;
          for (const Pending &p : issues)
            if (!insertOutbox({session, p.id, true, p.function, p.payload}))
              return fail("writing the outbox");
          return PutResult{true, {}};
        },
        &put);
  }

  Status retire(const std::string &session, NameList instances) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    auto r = transaction<bool>([&]() -> Result<bool> {
      if (Status st = retireLocked(session, instances); !st)
        return st;
      return true;
    });
    return r ? Status::ok() : r.getStatus();
  }

  Result<AddResult> addToSet(const std::string &session, const std::string &set,
                             const std::string &member,
                             size_t expected) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    return transaction<AddResult>([&]() -> Result<AddResult> {
      sqlite3_stmt *q = stmt("SELECT expected, count, completer, consumed "
                             "FROM unum_sets WHERE session=?1 AND name=?2");
      bind(q, 1, session);
      bind(q, 2, set);
      int rc = sqlite3_step(q);
      bool exists = rc == SQLITE_ROW;
      size_t have = 0, count = 0;
      std::string completer;
      bool consumed = false;
      if (exists) {
        have = size_t(sqlite3_column_int64(q, 0));
        count = size_t(sqlite3_column_int64(q, 1));
        if (sqlite3_column_type(q, 2) != SQLITE_NULL)
          completer = column(q, 2);
        consumed = sqlite3_column_int(q, 3) != 0;
      }
      sqlite3_reset(q);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail("reading completion set");
      if (consumed)
        return AddResult{AddResult::Consumed, have};
      if (exists && have != expected)
        return Status::error("completion set '" + set + "' expects " +
                             std::to_string(have) + " members, not " +
                             std::to_string(expected));
      if (!exists) {
        sqlite3_stmt *c = stmt("INSERT INTO unum_sets(session, name, expected)"
                               " VALUES(?1,?2,?3)");
        bind(c, 1, session);
        bind(c, 2, set);
        sqlite3_bind_int64(c, 3, int64_t(expected));
        if (!stepDone(c))
          return fail("creating completion set");
      }
      sqlite3_stmt *m = stmt("INSERT OR IGNORE INTO unum_members(session, "
                             "name, member) VALUES(?1,?2,?3)");
      bind(m, 1, session);
      bind(m, 2, set);
      bind(m, 3, member);
      if (!stepDone(m))
        return fail("adding to completion set");
      bool added = sqlite3_changes(db) == 1;
      if (!added)
        return AddResult{completer == member ? AddResult::Completer
                                             : AddResult::Pending,
                         count};
      ++count;
      bool completes = count == expected;
      sqlite3_stmt *u = stmt("UPDATE unum_sets SET count=?3, completer="
                             "CASE WHEN ?4 THEN ?5 ELSE completer END "
                             "WHERE session=?1 AND name=?2");
      bind(u, 1, session);
      bind(u, 2, set);
      sqlite3_bind_int64(u, 3, int64_t(count));
      sqlite3_bind_int(u, 4, completes);
      bind(u, 5, member);
      if (!stepDone(u))
        return fail("updating completion set");
      return AddResult{completes ? AddResult::Completer : AddResult::Pending,
                       count};
    });
  }

  Status consumeSet(const std::string &session,
                    const std::string &set) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    auto r = transaction<bool>([&]() -> Result<bool> {
      sqlite3_stmt *d = stmt("DELETE FROM unum_members WHERE session=?1 AND "
                             "name=?2");
      bind(d, 1, session);
      bind(d, 2, set);
      if (!stepDone(d))
        return fail("dropping completion set members");
      sqlite3_stmt *u = stmt("INSERT INTO unum_sets(session, name, expected, "
                             "consumed, expires) VALUES(?1,?2,0,1,?3) ON "
                             "CONFLICT(session, name) DO UPDATE SET "
                             "consumed=1, expires=?3");
      bind(u, 1, session);
      bind(u, 2, set);
      bindExpiry(u, 3);
      if (!stepDone(u))
        return fail("marking completion set consumed");
      if (Status st = purgeExpired(); !st)
        return st;
      return true;
    });
    return r ? Status::ok() : r.getStatus();
  }

  Status appendEffects(const std::string &session,
                       const std::vector<Effect> &effects) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    auto r = transaction<bool>([&]() -> Result<bool> {
      if (Status st = appendLocked(session, effects); !st)
        return st;
      return true;
    });
    return r ? Status::ok() : r.getStatus();
  }

  Result<std::vector<Effect>> effects(const std::string &session) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    sqlite3_stmt *s = stmt("SELECT instance, value FROM unum_effects WHERE "
                           "session=?1 ORDER BY id");
    bind(s, 1, session);
    std::vector<Effect> out;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
      out.push_back({column(s, 0), column(s, 1)});
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
      return fail("reading effects");
    return out;
  }

  Status put(const std::string &session, const std::string &key,
             const std::string &value) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    auto r = transaction<bool>([&]() -> Result<bool> {
      sqlite3_stmt *s = stmt("INSERT OR REPLACE INTO unum_kv(session, key, "
                             "value) VALUES(?1,?2,?3)");
      bind(s, 1, session);
      bind(s, 2, key);
      bindBlob(s, 3, value);
      if (!stepDone(s))
        return fail("writing");
      return true;
    });
    return r ? Status::ok() : r.getStatus();
  }

  Result<Stats> stats(const std::string &session) override {
    std::lock_guard<std::mutex> lock(mu);
    Stats st;
    sqlite3_stmt *r =
        stmt("SELECT count(*), coalesce(sum(hex(substr(record,1,1))"
             " != '74'), 0) FROM unum_records WHERE session=?1");
    bind(r, 1, session);
    if (sqlite3_step(r) == SQLITE_ROW) {
      st.records = size_t(sqlite3_column_int64(r, 0));
      st.dataRecords = size_t(sqlite3_column_int64(r, 1));
    }
    sqlite3_reset(r);
    sqlite3_stmt *s = stmt("SELECT name, count, expected, consumed FROM "
                           "unum_sets WHERE session=?1 ORDER BY name");
    bind(s, 1, session);
    while (sqlite3_step(s) == SQLITE_ROW) {
      if (sqlite3_column_int(s, 3))
        ++st.consumedSets;
      else
        st.pendingSets.push_back({column(s, 0),
                                  size_t(sqlite3_column_int64(s, 1)),
                                  size_t(sqlite3_column_int64(s, 2))});
    }
    sqlite3_reset(s);
    sqlite3_stmt *e = stmt("SELECT count(*) FROM unum_effects WHERE "
                           "session=?1");
    bind(e, 1, session);
    if (sqlite3_step(e) == SQLITE_ROW)
      st.effects = size_t(sqlite3_column_int64(e, 0));
    sqlite3_reset(e);
    return st;
  }

  Status deleteSession(const std::string &session) override {
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    auto r = transaction<bool>([&]() -> Result<bool> {
      for (const char *table :
           {"unum_records", "unum_sets", "unum_members", "unum_effects",
            "unum_kv", "unum_outbox", "unum_outbox0"}) {
        sqlite3_stmt *d =
            stmt(std::string("DELETE FROM ") + table + " WHERE session=?1");
        bind(d, 1, session);
        if (!stepDone(d))
          return fail("deleting session");
      }
      return true;
    });
    if (r) {
      anchored.erase(session);
      forgetRows(session);
    }
    return r ? Status::ok() : r.getStatus();
  }

  Status flushOutbox() override {
    std::lock_guard<std::mutex> lock(mu);
    if (!outboxStaged())
      return Status::ok();
    countOp();
    auto r = transaction<bool>([] { return Result<bool>(true); });
    return r ? Status::ok() : r.getStatus();
  }

  Result<std::vector<Pending>> outbox(const std::string &session) override {
    if (Status s = flushOutbox(); !s)
      return s;
    std::lock_guard<std::mutex> lock(mu);
    // (GROUP BY: an entry issued again may be in a row and in unum_outbox.)
    sqlite3_stmt *s = stmt(
        "SELECT id, function, payload FROM (SELECT id, function, payload "
        "FROM unum_outbox WHERE session=?1 UNION ALL SELECT 0, function, "
        "payload FROM unum_outbox0 WHERE session=?1 UNION ALL SELECT ob_id, "
        "ob_fn, ob_payload FROM unum_records WHERE session=?1 AND ob_id IS "
        "NOT NULL) GROUP BY id");
    bind(s, 1, session);
    std::vector<Pending> out;
    if (!eachRow(s, [&] {
          out.push_back({uint64_t(sqlite3_column_int64(s, 0)), column(s, 1),
                         column(s, 2)});
        }))
      return fail("reading the outbox");
    return out;
  }

  Result<std::vector<std::string>> unfinishedSessions() override {
    std::vector<std::string> out;
    Status st = flushOutbox();
    std::lock_guard<std::mutex> lock(mu);
    sqlite3_stmt *s =
        stmt("SELECT session FROM unum_outbox UNION SELECT session FROM "
             "unum_outbox0 ORDER BY session");
    if (st && !eachRow(s, [&] { out.push_back(column(s, 0)); }))
      st = fail("reading the outbox");
    if (!st)
      return st;
    return out;
  }

  Result<std::vector<std::pair<std::string, std::string>>>
  scan(const std::string &session, const std::string &prefix) override {
    std::lock_guard<std::mutex> lock(mu);
    sqlite3_stmt *s = stmt("SELECT key, value FROM unum_kv WHERE session=?1 "
                           "AND substr(key, 1, length(?2))=?2 ORDER BY key");
    bind(s, 1, session);
    bind(s, 2, prefix);
    std::vector<std::pair<std::string, std::string>> out;
    if (!eachRow(s, [&] { out.emplace_back(column(s, 0), column(s, 1)); }))
      return fail("reading the session's records");
    return out;
  }

private:
  /// A checkpoint's put, for the outbox changes of its transaction: the
  /// entry kept in its new row, and the entries in the rows it retires that
  /// the changes finish (see the file comment).
  struct Put {
    const std::string &session, &instance;
    NameList retire;
    const OutboxChange *entry = nullptr;
    std::vector<std::pair<const std::string *, uint64_t>> cleared;
  };

  /// A standing entry: the report entry 0, or a host's start marker (no
  /// function). A session has one while it may have entries in its rows.
  static bool standing(const OutboxChange &c) {
    return c.id == 0 || c.function.empty();
  }

  /// Applies the staged outbox changes (in the caller's transaction); with
  /// a put, leaves it the entry for its row and the entries it clears.
  Status applyOutbox(const std::vector<OutboxChange> &changes, Put *put) {
    if (put)
      planPut(changes, *put);
    for (const OutboxChange &c : changes) {
      if (put && &c == put->entry)
        continue;
      bool ok = c.id == 0  ? applyOutbox0(c)
                : c.issued ? insertOutbox(c)
                           : finishOutbox(c, put && cleared(*put, c));
      if (ok && !c.issued && standing(c))
        ok = unanchor(c.session);
      if (!ok)
        return fail("writing the outbox");
    }
    return Status::ok();
  }

  /// Which entry goes into the put's row (one its session issues, if the
  /// session has a standing entry that stays), and which finished entries
  /// the put's retirement clears (those in the rows it retires).
  void planPut(const std::vector<OutboxChange> &changes, Put &put) {
    bool anchor = anchored.count(put.session) != 0, unanchors = false;
    for (const OutboxChange &c : changes)
      if (c.session == put.session && standing(c))
        (c.issued ? anchor : unanchors) = true;
    if (unanchors)
      return;
    for (const OutboxChange &c : changes) {
      if (c.session != put.session)
        continue;
      if (c.issued) {
        // (An id already in a row, issued again, goes to unum_outbox:
        // insertOutbox takes it out of that row.)
        if (anchor && !put.entry && !standing(c) && !inRows.count(c.id))
          put.entry = &c;
        continue;
      }
      auto it = inRows.find(c.id);
      if (it != inRows.end() && it->second.first == c.session)
        for (const std::string &n : put.retire)
          if (n == it->second.second)
            put.cleared.emplace_back(&n, c.id);
    }
  }

  static bool cleared(const Put &put, const OutboxChange &c) {
    if (c.issued)
      return false;
    for (const auto &[name, id] : put.cleared)
      if (id == c.id)
        return true;
    return false;
  }

  /// Writes an entry to unum_outbox (out of the row this store put it in,
  /// should it be issued again: each id is in one place).
  bool insertOutbox(const OutboxChange &c) {
    auto it = inRows.find(c.id);
    if (it != inRows.end() && it->second.first == c.session && !clearRow(c))
      return false;
    sqlite3_stmt *s = stmt("INSERT OR REPLACE INTO unum_outbox(id, session, "
                           "function, payload) VALUES(?1,?2,?3,?4)");
    sqlite3_bind_int64(s, 1, int64_t(c.id));
    bind(s, 2, c.session);
    bind(s, 3, c.function);
    bind(s, 4, c.payload);
    return stepDone(s);
  }

  /// Clears the row this store put entry `c` in (inRows).
  bool clearRow(const OutboxChange &c) {
    sqlite3_stmt *s = stmt("UPDATE unum_records SET ob_id=NULL, ob_fn=NULL, "
                           "ob_payload=NULL WHERE session=?2 AND instance=?3 "
                           "AND ob_id=?1");
    sqlite3_bind_int64(s, 1, int64_t(c.id));
    bind(s, 2, c.session);
    bind(s, 3, inRows.at(c.id).second);
    return stepDone(s);
  }

  /// Removes an entry: from the row this store put it in (`inRow`: that
  /// row's retirement in this transaction clears it), else from
  /// unum_outbox, else from whichever of the session's rows holds it
  /// (another process put it there).
  bool finishOutbox(const OutboxChange &c, bool inRow = false) {
    if (inRow)
      return true;
    auto it = inRows.find(c.id);
    if (it != inRows.end() && it->second.first == c.session) {
      if (!clearRow(c))
        return false;
      if (sqlite3_changes(db) > 0)
        return true;
    }
    for (const char *sql :
         {"DELETE FROM unum_outbox WHERE id=?1 AND session=?2",
          "UPDATE unum_records SET ob_id=NULL, ob_fn=NULL, ob_payload=NULL "
          "WHERE session=?2 AND ob_id=?1"}) {
      sqlite3_stmt *s = stmt(sql);
      sqlite3_bind_int64(s, 1, int64_t(c.id));
      bind(s, 2, c.session);
      if (!stepDone(s))
        return false;
      if (sqlite3_changes(db) > 0)
        return true;
    }
    return true;
  }

  /// Entry 0 of a session (unum_outbox0). Finishing it also removes an
  /// entry 0 that a database written before that table keeps in unum_outbox.
  bool applyOutbox0(const OutboxChange &c) {
    if (c.issued) {
      sqlite3_stmt *s = stmt("INSERT OR REPLACE INTO unum_outbox0(session, "
                             "function, payload) VALUES(?1,?2,?3)");
      bind(s, 1, c.session);
      bind(s, 2, c.function);
      bind(s, 3, c.payload);
      return stepDone(s);
    }
    for (const char *sql :
         {"DELETE FROM unum_outbox0 WHERE session=?1",
          "DELETE FROM unum_outbox WHERE id=0 AND session=?1"}) {
      sqlite3_stmt *s = stmt(sql);
      bind(s, 1, c.session);
      if (!stepDone(s))
        return false;
    }
    return true;
  }

  /// A session's standing entry goes: the entries in its rows move back to
  /// unum_outbox, where unfinishedSessions() finds them.
  bool unanchor(const std::string &session) {
    for (const char *sql :
         {"INSERT OR REPLACE INTO unum_outbox(id, session, function, payload) "
          "SELECT ob_id, session, ob_fn, ob_payload FROM unum_records WHERE "
          "session=?1 AND ob_id IS NOT NULL",
          "UPDATE unum_records SET ob_id=NULL, ob_fn=NULL, ob_payload=NULL "
          "WHERE session=?1 AND ob_id IS NOT NULL"}) {
      sqlite3_stmt *s = stmt(sql);
      bind(s, 1, session);
      if (!stepDone(s))
        return false;
    }
    return true;
  }

  void forgetRows(const std::string &session) {
    for (auto it = inRows.begin(); it != inRows.end();)
      it = it->second.first == session ? inRows.erase(it) : std::next(it);
  }

  /// After a commit: which entries are in which rows, which sessions have a
  /// standing entry.
  void committed(const std::vector<OutboxChange> &changes, const Put *put) {
    for (const OutboxChange &c : changes) {
      if (c.issued) {
        if (standing(c))
          anchored.insert(c.session);
        else if (!put || &c != put->entry)
          inRows.erase(c.id); // in unum_outbox now (insertOutbox)
        continue;
      }
      inRows.erase(c.id);
      if (standing(c)) { // unanchor() moved the session's entries
        anchored.erase(c.session);
        forgetRows(c.session);
      }
    }
    if (put && put->entry)
      inRows.emplace(put->entry->id,
                     std::make_pair(put->session, put->instance));
  }

  Status exec(const char *sql) {
    char *msg = nullptr;
    int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
    if (rc == SQLITE_OK)
      return Status::ok();
    std::string text = msg ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
    return Status::error("sqlite '" + path + "': " + text);
  }

  /// BEGIN, BEGIN IMMEDIATE, COMMIT and ROLLBACK as statements prepared
  /// once: sqlite3_exec would parse them again in every transaction (a
  /// sixth of a chain step's instructions).
  enum class Control { Begin, BeginImmediate, Commit, Rollback };
  Status control(Control c) {
    static const char *const sql[] = {"BEGIN", "BEGIN IMMEDIATE", "COMMIT",
                                      "ROLLBACK"};
    sqlite3_stmt *&s = controls[int(c)];
    if (!s && sqlite3_prepare_v2(db, sql[int(c)], -1, &s, nullptr) != SQLITE_OK)
      return fail(sql[int(c)]);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
      sqlite3_reset(s);
      return Status::ok();
    }
    Status st = Status::error("sqlite '" + path + "': " + sqlite3_errmsg(db));
    sqlite3_reset(s);
    return st;
  }

  Status fail(const std::string &what) {
    return Status::error("sqlite '" + path + "': " + what + ": " +
                         sqlite3_errmsg(db));
  }

  sqlite3_stmt *stmt(const std::string &sql) {
    auto it = stmts.find(sql);
    if (it != stmts.end())
      return it->second;
    sqlite3_stmt *s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      return nullptr; // only on a broken schema; sqlite3_step(NULL) errors
    stmts.emplace(sql, s);
    return s;
  }

  static void bind(sqlite3_stmt *s, int i, const std::string &v) {
    sqlite3_bind_text(s, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
  }
  /// An outbox entry's id, function and payload at i, i+1, i+2.
  static void bindEntry(sqlite3_stmt *s, int i, const OutboxChange &c) {
    sqlite3_bind_int64(s, i, int64_t(c.id));
    bind(s, i + 1, c.function);
    bind(s, i + 2, c.payload);
  }
  static void bindBlob(sqlite3_stmt *s, int i, const std::string &v) {
    sqlite3_bind_blob(s, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
  }
  static std::string column(sqlite3_stmt *s, int i) {
    const void *p = sqlite3_column_blob(s, i);
    int n = sqlite3_column_bytes(s, i);
    return p ? std::string(static_cast<const char *>(p), size_t(n))
             : std::string();
  }
  /// Calls `row` for each row of `s`; false on an error.
  template <typename F> static bool eachRow(sqlite3_stmt *s, F row) {
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
      row();
    sqlite3_reset(s);
    return rc == SQLITE_DONE;
  }
  static bool stepDone(sqlite3_stmt *s) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE;
  }

  Status appendLocked(const std::string &session,
                      const std::vector<Effect> &effects) {
    sqlite3_stmt *s = stmt("INSERT INTO unum_effects(session, instance, value)"
                           " VALUES(?1,?2,?3)");
    for (const Effect &e : effects) {
      bind(s, 1, session);
      bind(s, 2, e.instance);
      bind(s, 3, e.value);
      if (!stepDone(s))
        return fail("writing effects");
    }
    return Status::ok();
  }

  /// Retires `names`; in a put's transaction, also clears the outbox entry
  /// in a retired row that the transaction's changes finish (put->cleared).
  Status retireLocked(const std::string &session, NameList names,
                      const Put *put = nullptr) {
    if (names.empty())
      return Status::ok();
    for (const std::string &n : names) {
      const uint64_t *clear = nullptr;
      if (put)
        for (const auto &[instance, id] : put->cleared)
          if (*instance == n)
            clear = &id;
      sqlite3_stmt *s = stmt(clear ? kRetireClearing : kRetire);
      bind(s, 1, session);
      bind(s, 2, n);
      bindExpiry(s, 3);
      if (clear)
        sqlite3_bind_int64(s, 4, int64_t(*clear));
      if (!stepDone(s))
        return fail("retiring checkpoint");
    }
    return purgeExpired();
  }

  /// With a TTL: when it expires, or NULL (kept).
  void bindExpiry(sqlite3_stmt *s, int i) {
    if (ttlMs > 0)
      sqlite3_bind_int64(s, i, nowMs() + ttlMs);
    else
      sqlite3_bind_null(s, i);
  }

  /// Deletes expired tombstones and consumed markers, at most once a second
  /// per store (inside the caller's transaction).
  Status purgeExpired() {
    if (ttlMs <= 0)
      return Status::ok();
    int64_t now = nowMs();
    if (now < nextPurge)
      return Status::ok();
    nextPurge = now + std::min<int64_t>(ttlMs, 1000);
    for (const char *sql : {"DELETE FROM unum_records WHERE expires <= ?1 "
                            "AND ob_id IS NULL",
                            "DELETE FROM unum_sets WHERE expires <= ?1"}) {
      sqlite3_stmt *d = stmt(sql);
      sqlite3_bind_int64(d, 1, now);
      if (!stepDone(d))
        return fail("deleting expired records");
    }
    return Status::ok();
  }

  bool hasColumn(const char *table, const char *column) {
    sqlite3_stmt *s = nullptr;
    std::string sql = std::string("PRAGMA table_info(") + table + ")";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      return false;
    bool found = false;
    while (!found && sqlite3_step(s) == SQLITE_ROW)
      found = std::string(reinterpret_cast<const char *>(
                  sqlite3_column_text(s, 1))) == column;
    sqlite3_finalize(s);
    return found;
  }

  /// Runs `body` in BEGIN IMMEDIATE ... COMMIT, after the staged outbox
  /// changes, rolling back on failure (the changes are staged again). With
  /// `put`, the body is that checkpoint's put (applyOutbox).
  template <typename T, typename F>
  Result<T> transaction(F body, Put *put = nullptr) {
    if (Status s = control(Control::BeginImmediate); !s)
      return s;
    std::vector<OutboxChange> changes;
    if (outboxStaged()) {
      changes = takeOutbox();
      if (Status s = applyOutbox(changes, put); !s) {
        (void)control(Control::Rollback);
        restoreOutbox(std::move(changes));
        return s;
      }
    }
    Result<T> r = body();
    if (!r) {
      (void)control(Control::Rollback);
      restoreOutbox(std::move(changes));
      return r;
    }
    if (Status s = control(Control::Commit); !s) {
      (void)control(Control::Rollback);
      restoreOutbox(std::move(changes));
      return s;
    }
    committed(changes, changes.empty() ? nullptr : put);
    return r;
  }

  std::string path;
  int64_t ttlMs = 0, nextPurge = 0;
  sqlite3 *db = nullptr;
  std::mutex mu;
  std::unordered_map<std::string, sqlite3_stmt *> stmts;
  sqlite3_stmt *controls[4] = {};
  /// Entries this store put in checkpoint rows: id -> (session, instance).
  std::unordered_map<uint64_t, std::pair<std::string, std::string>> inRows;
  /// Sessions whose standing entry this store committed (see standing()).
  std::unordered_set<std::string> anchored;
};
} // namespace

Result<std::unique_ptr<DataStore>>
unum::runtime::openSqliteStore(const std::string &path, StoreOptions options) {
  auto store = std::make_unique<SqliteStore>();
  if (Status s = store->open(path, options); !s)
    return s;
  return std::unique_ptr<DataStore>(std::move(store));
}
