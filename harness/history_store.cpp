#include "harness/history_store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <fmt/ranges.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "harness/errors.hpp"
#include "harness/injected_slowdown.hpp"
#include "harness/paths.hpp"
#include "harness/printable_text.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

sqlite3* handle(void* p) { return static_cast<sqlite3*>(p); }

// How far after this machine's clock a run's `created` may lie (two machines' clocks a
// little apart). The history orders a series by it: a run dated later would stay the
// newest night of its series, whatever came after, until that date.
constexpr auto kCreatedAheadAllowed = std::chrono::hours(24);

// `created` as rooftop run writes it, YYYY-MM-DDTHH:MM:SSZ (a fraction of a second
// allowed); none when it is not one.
std::optional<std::chrono::sys_seconds> utc_time(std::string_view text) {
  const auto number = [&](std::size_t at, std::size_t digits) -> std::optional<int> {
    int value = 0;
    for (std::size_t i = at; i < at + digits; ++i) {
      if (i >= text.size() || text[i] < '0' || text[i] > '9') return std::nullopt;
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  const auto year = number(0, 4), month = number(5, 2), day = number(8, 2);
  const auto hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  std::size_t end = 19;
  if (text[end] == '.') {
    const std::size_t digits = ++end;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == digits) return std::nullopt;
  }
  if (end + 1 != text.size() || text[end] != 'Z') return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(*year), std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;  // 60: a leap second
  return std::chrono::sys_days(date) + std::chrono::hours(*hour) + std::chrono::minutes(*minute) +
         std::chrono::seconds(*second);
}

// Refuses a run whose `created` is no UTC time, or lies more than kCreatedAheadAllowed
// after this machine's clock.
void check_created(const std::string& created, const std::string& origin) {
  const auto at = utc_time(created);
  if (!at)
    throw InputError(fmt::format("{}: created '{}' is not a UTC time as rooftop run writes it (2026-11-28T03:00:00Z): "
                                 "the history orders its nights by it; correct 'created' in the file",
                                 origin, printable_text(created.substr(0, 40))));
  if (*at > std::chrono::system_clock::now() + kCreatedAheadAllowed)
    throw InputError(fmt::format("{}: created {} is more than a day after this machine's clock (now {}): a night from "
                                 "the future would stay the newest of its series until then; correct the clock of the "
                                 "machine that made it and 'created' in the file, or this machine's clock",
                                 origin, created, utc_now_iso8601()));
}

// The last SQLite error on `db` as an InputError that says the way out.
[[noreturn]] void throw_sqlite_error(sqlite3* db, const std::filesystem::path& path) {
  switch (sqlite3_errcode(db)) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:  // still held after the busy timeout: a valid history, not to be moved aside
      throw InputError(fmt::format("history {} is locked by another process (a nightly still running?): try again "
                                   "when it ends", path.string()));
    case SQLITE_NOTADB:
      throw InputError(fmt::format("history {}: {}: not a rooftop history; move it aside or name another history file",
                                   path.string(), sqlite3_errmsg(db)));
    default:
      throw InputError(fmt::format("history {}: {}", path.string(), sqlite3_errmsg(db)));
  }
}

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::filesystem::path& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) throw_sqlite_error(db, path);
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

HistoryStore::HistoryStore(const std::filesystem::path& path, HistoryAccess access) : path_(path) {
  const bool write = access == HistoryAccess::write;
  if (write && path.has_parent_path()) {
    // ROOFTOP_HOME (or --db's folder) naming a file was a raw filesystem error, exit 1.
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
      throw InputError(fmt::format("history {}: cannot make its folder {}: {}; set ROOFTOP_HOME to a folder you can write, "
                                   "or give --db a file's path",
                                   path.string(), path.parent_path().string(), ec.message()));
  }
  sqlite3* db = nullptr;
  // Reading opens read-write without create: SQLite falls back to read-only by itself where
  // the file cannot be written, and a crashed writer's hot journal can still be rolled back
  // (SQLITE_OPEN_READONLY fails on it until the next add). Nothing else is written.
  const int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw InputError(fmt::format("history {}: cannot open ({})", path.string(), why));
  }
  db_ = db;
  sqlite3_busy_timeout(db, kBusyTimeoutMs);  // another writer: wait a little, then say so
  try {
    adopt(access);
  } catch (...) {
    sqlite3_close(handle(db_));
    throw;
  }
}

void HistoryStore::adopt(HistoryAccess access) {
  const bool write = access == HistoryAccess::write;
  sqlite3* db = handle(db_);
  // Looked at and made in one write transaction: two `history add` never both create it.
  if (write) exec("BEGIN IMMEDIATE");
  try {
    const auto integer = [&](const char* sql) {
      Statement s(db, sql, path_);
      if (sqlite3_step(s.get()) != SQLITE_ROW) fail();
      return sqlite3_column_int(s.get(), 0);
    };
    // The first read of the file: one that is not a database, or locked, fails here.
    const int application_id = integer("PRAGMA application_id");
    const int version = integer("PRAGMA user_version");
    std::vector<std::string> tables;
    {
      Statement s(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                      "ORDER BY name", path_);
      int rc = 0;
      while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) tables.push_back(column_text(s.get(), 0));
      if (rc != SQLITE_DONE) fail();
    }
    const bool ours = application_id == kApplicationId;
    const bool fresh = tables.empty() && version == 0 && (ours || application_id == 0);
    // An older rooftop's history: its two tables and a schema version, but no id yet.
    const bool older = application_id == 0 && version != 0 && tables == std::vector<std::string>{"points", "runs"};
    if (!ours && !fresh && !older)
      throw InputError(fmt::format("{} is an SQLite database of another application (application_id 0x{:08x}, tables: {}): "
                                   "give rooftop a history file of its own (--db)",
                                   path_.string(), static_cast<std::uint32_t>(application_id),
                                   tables.empty() ? std::string("none") : fmt::format("{}", fmt::join(tables, ", "))));
    if (!fresh && version != kSchemaVersion)
      throw InputError(fmt::format("history {}: schema version {}, this rooftop reads version {}: use the rooftop that "
                                   "wrote it, or start a new file with --db",
                                   path_.string(), version, kSchemaVersion));
    if (!write) {
      empty_ = fresh;
      return;
    }
    if (fresh) {
      exec("CREATE TABLE runs (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL, tier TEXT NOT NULL, "
           "created TEXT NOT NULL, git_commit TEXT, origin TEXT, UNIQUE (fingerprint, tier, created))");
      exec("CREATE TABLE points (run INTEGER NOT NULL REFERENCES runs(id), benchmark TEXT NOT NULL, "
           "median_s REAL NOT NULL, repetitions INTEGER NOT NULL)");
      exec("CREATE INDEX points_by_benchmark ON points (benchmark)");
      exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str());
    }
    if (!ours) exec(fmt::format("PRAGMA application_id = {}", kApplicationId).c_str());
    exec("COMMIT");
  } catch (...) {
    if (write) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);  // nothing half-made
    throw;
  }
}

HistoryStore::~HistoryStore() { sqlite3_close(handle(db_)); }

void HistoryStore::fail() const { throw_sqlite_error(handle(db_), path_); }

void HistoryStore::exec(const char* sql) const {
  if (sqlite3_exec(handle(db_), sql, nullptr, nullptr, nullptr) == SQLITE_OK) return;
  try {
    fail();
  } catch (...) {
    sqlite3_exec(handle(db_), "ROLLBACK", nullptr, nullptr, nullptr);  // nothing half-written
    throw;
  }
}

int HistoryStore::add(const RunResults& run, const std::string& origin, bool allow_injected) {
  const auto& m = run.meta;
  if (m.fingerprint.empty() || m.tier.empty())
    throw InputError(fmt::format("{}: no device fingerprint or tier: not a results file of rooftop run", origin));
  if (!m.complete)
    throw InputError(fmt::format("{}: an incomplete run (interrupted?): its medians would not be the night's", origin));
  check_created(m.created, origin);
  if (m.injected_slowdown && !allow_injected)
    throw InputError(fmt::format("{}: made with an injected slowdown ({}, gate calibration): its times were slowed on "
                                 "purpose, not the night's; unset ROOFTOP_INJECT_SLOWDOWN and run again (to calibrate "
                                 "the history check with it: history add --allow-injected)",
                                 origin, describe(*m.injected_slowdown)));
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
        if (sqlite3_extended_errcode(handle(db_)) == SQLITE_CONSTRAINT_UNIQUE)
          throw InputError(fmt::format("{}: this run ({} at {}) is already in the history", origin, m.fingerprint, m.created));
        fail();
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
      if (sqlite3_step(s.get()) != SQLITE_DONE) fail();
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
  if (empty_) return {};
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
  if (rc != SQLITE_DONE) fail();
  return out;
}

}  // namespace rooftop
