#pragma once
// The roofline chart of one device as inline SVG: a log-log plot with a compute ceiling per
// precision and unit, a bandwidth ceiling per memory level (measured solid, datasheet
// dashed), labelled ridge points, and one marker per result (colour by suite, shape by dtype).
#include <string>
#include <vector>

#include "harness/device_profile.hpp"

namespace rooftop::reports {

struct ChartPoint {
  std::string id;  // element id, linked from the results table
  double intensity = 0, flops_per_s = 0;
  std::string suite, dtype, tooltip;
};

struct RidgePoint {
  std::string compute, level;
  double intensity = 0, flops_per_s = 0;
};
// Where each compute ceiling meets the last (slowest) bandwidth level: the classic ridge.
std::vector<RidgePoint> ridge_points(const Ceilings& ceilings);

std::string roofline_svg(const Ceilings* measured, const Datasheet* datasheet, const std::vector<ChartPoint>& points);

}  // namespace rooftop::reports
