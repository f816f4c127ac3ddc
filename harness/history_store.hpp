#pragma once
// The nightly history: every run added, one median a benchmark, in an SQLite file
// ($ROOFTOP_HOME/history.sqlite by default). A series is one benchmark on one device
// (fingerprint) at one tier, in the order the runs were made: runs of different devices or
// tiers never share a series.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/results.hpp"

namespace rooftop {

struct HistoryPoint {
  std::string created, git_commit;
  double median_s = 0;
};

struct HistorySeries {
  std::string fingerprint, tier, benchmark;
  std::vector<HistoryPoint> points;  // oldest first
};

// How a command uses the history: `read` never creates or changes anything in the file.
enum class HistoryAccess { read, write };

class HistoryStore {
 public:
  // Opens the file, or (write) creates it. Takes a new or empty SQLite file (write: made a
  // history; read: an empty one), a file marked with rooftop's application id, and a history
  // of an older rooftop (its tables, no id; write marks it). Throws InputError naming the
  // file and the way out when it is not an SQLite database, is another application's
  // database, was written by another schema version, or stays locked by another process.
  explicit HistoryStore(const std::filesystem::path& path, HistoryAccess access = HistoryAccess::write);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  // Adds a run's ok points in one transaction (all or nothing); returns how many. Refuses
  // (InputError) a run without a fingerprint or tier, an incomplete run, a run whose
  // `created` is no UTC time or more than a day after this machine's clock (it would stay
  // the newest night of its series), a run made with an injected slowdown (unless
  // `allow_injected`: calibrating the history check), and a run already in the store (the
  // same device, tier and creation time).
  int add(const RunResults& run, const std::string& origin, bool allow_injected = false);
  std::vector<HistorySeries> series() const;
  static constexpr int kSchemaVersion = 1;
  // SQLite's `PRAGMA application_id` of a rooftop history: "Roof" in ASCII.
  static constexpr std::int32_t kApplicationId = 0x526f6f66;
  // How long a command waits for another process's lock before it gives up (exit 2).
  static constexpr int kBusyTimeoutMs = 3000;

 private:
  void exec(const char* sql) const;
  void adopt(HistoryAccess access);  // checks whose the file is; creates or marks it (write)
  [[noreturn]] void fail() const;    // the last SQLite error as an InputError with its way out
  std::filesystem::path path_;
  void* db_ = nullptr;  // sqlite3*
  bool empty_ = false;  // read access to a file with no tables yet: a history of no runs
};

std::filesystem::path default_history_path();  // $ROOFTOP_HOME/history.sqlite

}  // namespace rooftop
