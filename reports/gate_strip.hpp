#pragma once
// The gate view's strips: each row's samples, baseline above and run below, as a change
// against its baseline's median, on one percent scale shared by every row (so that +14.5%
// looks larger than -0.1%). The scale is robust: it spans tau, every row's median and
// interval, and the samples between the 1st and 99th percentiles; one wild sample (-95%)
// no longer flattens every other strip. A sample beyond the scale is drawn as an arrow at
// the edge, its value in the tooltip.
#include <string>
#include <vector>

#include "harness/gate.hpp"

namespace rooftop::reports {

struct StripScale {
  double low = 0, high = 0;  // percent
  std::string text() const;  // "-6% to +31% of each baseline's median"
};

StripScale strip_scale(const std::vector<const Comparison*>& rows);

// The row's strip as inline SVG (160 x 24).
std::string gate_strip_svg(const Comparison& c, const StripScale& scale);

}  // namespace rooftop::reports
