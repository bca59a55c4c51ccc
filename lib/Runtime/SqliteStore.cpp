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
//===----------------------------------------------------------------------===//

#include "unum/Runtime/DataStore.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <unordered_map>

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
// column, then the indexes that find what has expired.
const char *const kExpiryIndexes = R"sql(
CREATE INDEX IF NOT EXISTS unum_records_expires ON unum_records(expires)
  WHERE expires IS NOT NULL;
CREATE INDEX IF NOT EXISTS unum_sets_expires ON unum_sets(expires)
  WHERE expires IS NOT NULL;
)sql";

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
    countOp();
    std::lock_guard<std::mutex> lock(mu);
    return transaction<PutResult>([&]() -> Result<PutResult> {
      if (Status st = retireLocked(session, retireList); !st)
        return st;
      sqlite3_stmt *ins = stmt("INSERT OR IGNORE INTO unum_records"
                               "(session, instance, record) VALUES(?1,?2,?3)");
      bind(ins, 1, session);
      bind(ins, 2, instance);
      bindBlob(ins, 3, rec);
      if (!stepDone(ins))
        return fail("writing checkpoint");
      if (sqlite3_changes(db) == 0) {
        sqlite3_stmt *s = stmt("SELECT record FROM unum_records WHERE "
                               "session=?1 AND instance=?2");
        bind(s, 1, session);
        bind(s, 2, instance);
        int rc = sqlite3_step(s);
        std::string winner = rc == SQLITE_ROW ? column(s, 0) : std::string();
        sqlite3_reset(s);
        if (rc != SQLITE_ROW)
          return fail("reading the winning checkpoint");
        return PutResult{false, winner};
      }
      if (Status st = appendLocked(session, effects); !st)
        return st;
      return PutResult{true, {}};
    });
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
      for (const char *table : {"unum_records", "unum_sets", "unum_members",
                                "unum_effects", "unum_kv", "unum_outbox",
                                "unum_outbox0"}) {
        sqlite3_stmt *d =
            stmt(std::string("DELETE FROM ") + table + " WHERE session=?1");
        bind(d, 1, session);
        if (!stepDone(d))
          return fail("deleting session");
      }
      return true;
    });
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
    sqlite3_stmt *s = stmt("SELECT id, function, payload FROM unum_outbox "
                           "WHERE session=?1 UNION ALL SELECT 0, function, "
                           "payload FROM unum_outbox0 WHERE session=?1");
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
  /// Applies the staged outbox changes (in the caller's transaction).
  Status applyOutbox(const std::vector<OutboxChange> &changes) {
    sqlite3_stmt *ins = stmt("INSERT OR REPLACE INTO unum_outbox(id, session, "
                             "function, payload) VALUES(?1,?2,?3,?4)");
    sqlite3_stmt *del =
        stmt("DELETE FROM unum_outbox WHERE id=?1 AND session=?2");
    for (const OutboxChange &c : changes) {
      if (c.id == 0) {
        if (!applyOutbox0(c))
          return fail("writing the outbox");
        continue;
      }
      sqlite3_stmt *s = c.issued ? ins : del;
      sqlite3_bind_int64(s, 1, int64_t(c.id));
      bind(s, 2, c.session);
      if (c.issued) {
        bind(s, 3, c.function);
        bind(s, 4, c.payload);
      }
      if (!stepDone(s))
        return fail("writing the outbox");
    }
    return Status::ok();
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

  Status retireLocked(const std::string &session, NameList names) {
    if (names.empty())
      return Status::ok();
    sqlite3_stmt *s = stmt("UPDATE unum_records SET record=X'74', expires=?3 "
                           "WHERE session=?1 AND instance=?2");
    for (const std::string &n : names) {
      bind(s, 1, session);
      bind(s, 2, n);
      bindExpiry(s, 3);
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
    for (const char *sql : {"DELETE FROM unum_records WHERE expires <= ?1",
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
  /// changes, rolling back on failure (the changes are staged again).
  template <typename T, typename F> Result<T> transaction(F body) {
    if (Status s = control(Control::BeginImmediate); !s)
      return s;
    std::vector<OutboxChange> changes;
    if (outboxStaged()) {
      changes = takeOutbox();
      if (Status s = applyOutbox(changes); !s) {
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
    return r;
  }

  std::string path;
  int64_t ttlMs = 0, nextPurge = 0;
  sqlite3 *db = nullptr;
  std::mutex mu;
  std::unordered_map<std::string, sqlite3_stmt *> stmts;
  sqlite3_stmt *controls[4] = {};
};
} // namespace

Result<std::unique_ptr<DataStore>>
unum::runtime::openSqliteStore(const std::string &path, StoreOptions options) {
  auto store = std::make_unique<SqliteStore>();
  if (Status s = store->open(path, options); !s)
    return s;
  return std::unique_ptr<DataStore>(std::move(store));
}
