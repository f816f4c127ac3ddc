#pragma once
// `rooftop history check` as a function: every series of the history searched for past
// change points (e-divisive, harness/change_points.hpp) and tested for a new one in its last
// nights (harness/recent_change.hpp), the new-change tests of all series adjusted together
// (Benjamini-Hochberg), so that a suite of many benchmarks raises few false changes a night.
//
// A night on which every benchmark of a suite (one device and tier) moves together is the
// machine or a change that touches all: the night's factor, the median across the suite's
// series of each one's distance from its own median, is taken out of every series before
// testing and is tested as a series of its own ("night factor" rows).
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "harness/change_points.hpp"
#include "harness/history_store.hpp"
#include "harness/recent_change.hpp"

namespace rooftop {

struct HistoryCheckOptions {
  ChangePointOptions change_points;  // past change points (they decide no exit)
  RecentChangeOptions recent;        // the new-change test; recent.recent is --recent
  double fdr = 0.01;                 // false discovery rate of new changes across all series of the check
  double tau = 0.03;                 // a new slowdown of this or more is a regression
  bool find_past = true;             // e-divisive on every series (off: the new-change test alone)
  std::size_t night_factor_series = 6;  // a suite of fewer series keeps its nights as they are
};

struct SeriesCheck {
  std::string fingerprint, tier, benchmark;  // benchmark empty: the suite's night factor
  std::size_t suite_series = 0;              // night factor rows: the series it was read from
  std::vector<HistoryPoint> points;          // the series as tested (night factor taken out), oldest first
  std::vector<ChangePoint> past;             // before the last `recent` nights
  RecentChange recent;
  double q = 1;            // recent.p adjusted across every series of the check (Benjamini-Hochberg)
  bool is_new = false;     // q below the false discovery rate
  bool regression = false; // new, and a slowdown of tau or more
  bool night_factor() const { return benchmark.empty(); }
};

struct HistoryCheck {
  std::vector<SeriesCheck> series;  // per suite: its night factor (if any) first, then its series
  int benchmark_series = 0, past_points = 0, new_changes = 0, regressions = 0;
};

HistoryCheck check_history(std::span<const HistorySeries> history, const HistoryCheckOptions& options = {});

}  // namespace rooftop
