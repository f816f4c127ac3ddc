#pragma once
// Has a series got slower in its last nights? The question `history check` must answer on
// the night of a step and the two after it, when e-divisive (harness/change_points.hpp) has
// too few points after the step to split there. For each age j = 1..recent, the last j
// nights are tested against the nights before them (from the last past change point on, at
// most `reference` of them) by an exact permutation test of their sum: of all C(pool, j)
// choices of j nights from the pool (those nights and the last j), the share whose sum is as
// large is the p-value. It holds for exchangeable nights of any noise shape, heavy tails
// included. Each night is scored by its distance from the pool's median in robust scales
// (1.4826 MAD), clipped at `clip`, so that one wild night weighs little.
//
// A winsorized t-test (Yuen 1974) was tried instead: as powerful here (a 5% step at 2%
// spread found in 50% of 48-series suites against 48%), but with heavy-tailed nights it
// raised 1.5 false changes per 100 nights where this raises 0.8 (tests/test_history_check.cpp).
#include <cstddef>
#include <span>

namespace rooftop {

struct RecentChangeOptions {
  std::size_t recent = 3;      // the step may be 1..recent nights old (at most kMaxRecent)
  std::size_t reference = 100;  // the most nights the level before is read from
  double clip = 4;             // a night's distance from the pool's median counts at most this many scales
  // The smallest p that can still matter (the false discovery rate over the number of series
  // tested): an age whose pool is too small to reach it is not tested, so that its share of
  // the error goes to the ages that can.
  double smallest_useful_p = 0;
  static constexpr std::size_t kMaxRecent = 7;
};

struct RecentChange {
  bool tested = false;    // false when no age could be tested (too few nights)
  std::size_t index = 0;  // the first night of the new level: the age with the largest standardized sum
  double p = 1;           // one-sided (slower), over the ages tested (weighted Bonferroni: see recent_change.cpp)
  double change = 0;      // exp(median of the new nights - median of the pool before) - 1: +0.05 is 5% slower
};

// `past` holds the indices (first night of the new level) of change points found before the
// recent nights; those at or after size - recent are ignored.
RecentChange test_recent_change(std::span<const double> series, std::span<const std::size_t> past,
                                const RecentChangeOptions& options = {});

// How many of the C(n, k) choices of k values from `descending` (sorted, largest first) sum to
// at least `sum`. Gives up past `budget` steps and returns -1.
double count_subsets_at_least(std::span<const double> descending, std::size_t k, double sum, long budget = 4'000'000);

}  // namespace rooftop
