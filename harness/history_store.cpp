#include "harness/history_store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <map>
#include <tuple>

#include "harness/errors.hpp"
#include "harness/paths.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

sqlite3* handle(void* p) { return static_cast<sqlite3*>(p); }

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::filesystem::path& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
      throw InputError(fmt::format("history {}: {}", path.string(), sqlite3_errmsg(db)));
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return s_; }
  void text(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.c_str(), -1, SQLITE_TRANSIENT); }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

std::string column_text(sqlite3_stmt* s, int i) {
  const auto* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace

std::filesystem::path default_history_path() { return rooftop_home() / "history.sqlite"; }

HistoryStore::HistoryStore(const std::filesystem::path& path) : path_(path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw InputError(fmt::format("history {}: cannot open ({})", path.string(), why));
  }
  db_ = db;
  sqlite3_busy_timeout(db, 2000);  // another writer: wait a little, then say so
  try {
    // The version check reads the file: a file that is not a database fails here.
    int version = 0;
    {
      const auto not_history = [&] {
        return InputError(fmt::format("history {}: {}: not a rooftop history (an SQLite file); move it aside or name "
                                      "another file with --db", path.string(), sqlite3_errmsg(db)));
      };
      sqlite3_stmt* s = nullptr;
      const bool read = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, nullptr) == SQLITE_OK &&
                        sqlite3_step(s) == SQLITE_ROW;
      if (read) version = sqlite3_column_int(s, 0);
      sqlite3_finalize(s);
      if (!read) throw not_history();
    }
    if (version == 0) {
      exec("BEGIN IMMEDIATE");
      exec("CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, tier TEXT NOT NULL, "
           "created TEXT NOT NULL, git_commit TEXT, origin TEXT, UNIQUE (fingerprint, tier, created))");
      exec("CREATE TABLE IF NOT EXISTS points (run INTEGER NOT NULL REFERENCES runs(id), benchmark TEXT NOT NULL, "
           "median_s REAL NOT NULL, repetitions INTEGER NOT NULL)");
      exec("CREATE INDEX IF NOT EXISTS points_by_benchmark ON points (benchmark)");
      exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str());
      exec("COMMIT");
    } else if (version != kSchemaVersion) {
      throw InputError(fmt::format("history {}: schema version {}, this rooftop reads version {}: use the rooftop that "
                                   "wrote it, or start a new file with --db",
                                   path.string(), version, kSchemaVersion));
    }
  } catch (...) {
    sqlite3_close(handle(db_));
    throw;
  }
}

HistoryStore::~HistoryStore() { sqlite3_close(handle(db_)); }

void HistoryStore::exec(const char* sql) const {
  char* error = nullptr;
  if (sqlite3_exec(handle(db_), sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    const int code = sqlite3_errcode(handle(db_));
    const bool busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
    sqlite3_exec(handle(db_), "ROLLBACK", nullptr, nullptr, nullptr);  // nothing half-written
    throw InputError(fmt::format("history {}: {}{}", path_.string(), why,
                                 busy ? ": another rooftop holds it; try again when it is done" : ""));
  }
}

int HistoryStore::add(const RunResults& run, const std::string& origin) {
  const auto& m = run.meta;
  if (m.fingerprint.empty() || m.tier.empty())
    throw InputError(fmt::format("{}: no device fingerprint or tier: not a results file of rooftop run", origin));
  if (!m.complete)
    throw InputError(fmt::format("{}: an incomplete run (interrupted?): its medians would not be the night's", origin));
  exec("BEGIN IMMEDIATE");
  try {
    {
      Statement s(handle(db_), "INSERT INTO runs (fingerprint, tier, created, git_commit, origin) VALUES (?, ?, ?, ?, ?)", path_);
      s.text(1, m.fingerprint);
      s.text(2, m.tier);
      s.text(3, m.created);
      s.text(4, m.git_commit);
      s.text(5, origin);
      if (sqlite3_step(s.get()) != SQLITE_DONE) {
        const bool duplicate = sqlite3_extended_errcode(handle(db_)) == SQLITE_CONSTRAINT_UNIQUE;
        throw InputError(duplicate ? fmt::format("{}: this run ({} at {}) is already in the history", origin,
                                                 m.fingerprint, m.created)
                                   : fmt::format("history {}: {}", path_.string(), sqlite3_errmsg(handle(db_))));
      }
    }
    const auto run_id = sqlite3_last_insert_rowid(handle(db_));
    int added = 0;
    Statement s(handle(db_), "INSERT INTO points (run, benchmark, median_s, repetitions) VALUES (?, ?, ?, ?)", path_);
    for (const auto& r : run.results) {
      if (r.status != Status::ok || r.samples.empty()) continue;
      const auto t = r.seconds();
      sqlite3_reset(s.get());
      sqlite3_bind_int64(s.get(), 1, run_id);
      s.text(2, r.problem.name());
      sqlite3_bind_double(s.get(), 3, median(t));
      sqlite3_bind_int(s.get(), 4, static_cast<int>(t.size()));
      if (sqlite3_step(s.get()) != SQLITE_DONE)
        throw InputError(fmt::format("history {}: {}", path_.string(), sqlite3_errmsg(handle(db_))));
      ++added;
    }
    exec("COMMIT");
    return added;
  } catch (...) {
    sqlite3_exec(handle(db_), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<HistorySeries> HistoryStore::series() const {
  Statement s(handle(db_),
              "SELECT r.fingerprint, r.tier, p.benchmark, r.created, r.git_commit, p.median_s FROM points p "
              "JOIN runs r ON p.run = r.id ORDER BY r.fingerprint, r.tier, p.benchmark, r.created, r.id",
              path_);
  std::vector<HistorySeries> out;
  int rc = 0;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    const auto fp = column_text(s.get(), 0), tier = column_text(s.get(), 1), bench = column_text(s.get(), 2);
    if (out.empty() || out.back().fingerprint != fp || out.back().tier != tier || out.back().benchmark != bench)
      out.push_back({fp, tier, bench, {}});
    out.back().points.push_back({column_text(s.get(), 3), column_text(s.get(), 4), sqlite3_column_double(s.get(), 5)});
  }
  if (rc != SQLITE_DONE) throw InputError(fmt::format("history {}: {}", path_.string(), sqlite3_errmsg(handle(db_))));
  return out;
}

}  // namespace rooftop
