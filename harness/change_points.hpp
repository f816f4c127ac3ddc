#pragma once
// Change points in a benchmark's nightly series: e-divisive means (Matteson & James,
// JASA 2014), as MongoDB's and Otava's performance CI use it. The split that most
// separates the series' two sides by energy distance is kept when a permutation test says
// so, then each side is searched again.
#include <cstdint>
#include <span>
#include <vector>

namespace rooftop {

struct ChangePoint {
  std::size_t index = 0;  // the first point of the new level
  double p = 1;           // permutation p of the split where it was found
  // exp(median after - median before) - 1 over the two segments it separates: +0.05 is 5%
  // slower when the series is log-times.
  double change = 0;
};

struct ChangePointOptions {
  double significance = 0.05;    // a split is kept when its permutation p is below this (measured: docs/PERFORMANCE.md)
  int permutations = 199;
  std::size_t min_segment = 3;   // points on each side of a split
  std::uint64_t seed = 0x5eed;   // permutations are seeded: the same series, the same answer
};

// Sorted by index.
std::vector<ChangePoint> find_change_points(std::span<const double> series, const ChangePointOptions& options = {});

}  // namespace rooftop
