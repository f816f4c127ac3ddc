#pragma once
// The collectives chart of one device as inline SVG, as nccl-tests' tables read: bus
// bandwidth against message size, log-log, a line per collective, dtype and placement
// (in place or not), with the link each crosses drawn as its roof.
#include <string>
#include <vector>

namespace rooftop::reports {

struct BandwidthPoint {
  std::string id, series;  // series: "all_reduce bf16 oop"
  double size_bytes = 0, bus_bytes_per_s = 0;
  std::string link;  // the roof's name; empty without one
  double link_bytes_per_s = 0;
  std::string tooltip;
};

// Empty when there are no points.
std::string bandwidth_svg(const std::vector<BandwidthPoint>& points);

}  // namespace rooftop::reports
