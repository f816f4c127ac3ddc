#pragma once
// A benchmark's nightly series as a small inline SVG: each run's median against the
// series' own median (in percent), the level of each segment, and the change points
// between them marked with their size (red a slowdown, green a speed-up).
#include <string>
#include <vector>

#include "harness/change_points.hpp"
#include "harness/history_store.hpp"

namespace rooftop::reports {

// The percent range a chart needs: its segments' levels and its nights between the 10th and
// 90th percentiles (a single wild night is not a reason to flatten the rest).
struct TrendScale {
  double low = -2, high = 2;  // percent against the series' median
};
TrendScale trend_range(const HistorySeries& series, const std::vector<ChangePoint>& change_points);

// Drawn on `scale`, one shared by every chart of the page so that their heights compare; a
// night beyond it sits at the edge as an open circle, its value in the tooltip.
std::string trend_svg(const HistorySeries& series, const std::vector<ChangePoint>& change_points, const TrendScale& scale);

}  // namespace rooftop::reports
