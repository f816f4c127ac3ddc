#pragma once
// The roofline chart of one device as inline SVG: a log-log plot with a compute ceiling per
// precision and unit, a bandwidth ceiling per memory level (measured solid, datasheet
// dashed), ridge points, and one marker per result (colour by dtype as its roof, marker by suite).
#include <string>
#include <vector>

#include "harness/device_profile.hpp"

namespace rooftop::reports {

struct ChartPoint {
  std::string id;  // element id, linked from the results table
  double intensity = 0, flops_per_s = 0;
  std::string suite, dtype, tooltip;
  std::string colour = {};  // empty: its dtype's colour
  std::string row = {};     // the results row it stands for (data-row, for the page's filter); empty: its id
};

struct RidgePoint {
  std::string compute, level;
  double intensity = 0, flops_per_s = 0;
};
// Where each compute ceiling meets the last (slowest) bandwidth level: the classic ridge.
std::vector<RidgePoint> ridge_points(const Ceilings& ceilings);

std::string roofline_svg(const Ceilings* measured, const Datasheet* datasheet, const std::vector<ChartPoint>& points);

// Several devices on one chart, for a procurement reader: each device in its own colour and
// marker, with its roofs (measured, else its datasheet's, dashed) for the dtypes it ran and
// its slowest memory level. Its points carry no ids (the per-device charts own them).
struct OverlayDevice {
  std::string name;
  const Ceilings* ceilings = nullptr;
  bool datasheet_only = false;  // `ceilings` are the datasheet's: drawn dashed
  std::vector<ChartPoint> points;
};
std::string overlay_roofline_svg(const std::vector<OverlayDevice>& devices);

}  // namespace rooftop::reports
