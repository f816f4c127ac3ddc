#pragma once
// The nightly history: every run added, one median a benchmark, in an SQLite file
// ($ROOFTOP_HOME/history.sqlite by default). A series is one benchmark on one device
// (fingerprint) at one tier, in the order the runs were made: runs of different devices or
// tiers never share a series.
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

class HistoryStore {
 public:
  // Opens or creates the file. Throws InputError naming the file and the way out when it is
  // not an SQLite database, was written by another schema version, or is locked.
  explicit HistoryStore(const std::filesystem::path& path);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  // Adds a run's ok points in one transaction (all or nothing); returns how many. Refuses
  // (InputError) a run without a fingerprint or tier, an incomplete run, and a run already
  // in the store (the same device, tier and creation time).
  int add(const RunResults& run, const std::string& origin);
  std::vector<HistorySeries> series() const;
  static constexpr int kSchemaVersion = 1;

 private:
  void exec(const char* sql) const;
  std::filesystem::path path_;
  void* db_ = nullptr;  // sqlite3*
};

std::filesystem::path default_history_path();  // $ROOFTOP_HOME/history.sqlite

}  // namespace rooftop
