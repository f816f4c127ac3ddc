#pragma once
// A benchmark's nightly series as a small inline SVG: each run's median against the
// series' own median (in percent), the level of each segment, and the change points
// between them marked with their size (red a slowdown, green a speed-up).
#include <string>
#include <vector>

#include "harness/change_points.hpp"
#include "harness/history_store.hpp"

namespace rooftop::reports {

std::string trend_svg(const HistorySeries& series, const std::vector<ChangePoint>& change_points);

}  // namespace rooftop::reports
