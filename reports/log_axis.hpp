#pragma once
// Log-scale coordinates for the roofline chart: whole decades, mapped onto pixels.
#include <vector>

namespace rooftop::reports {

struct LogAxis {
  double low = 1, high = 10;             // data range, whole powers of ten
  double pixel_low = 0, pixel_high = 1;  // where low and high land (pixel_high < pixel_low for y)
  double to_pixel(double value) const;   // values outside the range are clamped to it
  std::vector<double> decades() const;   // 10^k from low to high
};

// The smallest range of whole decades holding every positive finite value (at least one decade).
LogAxis fit_log_axis(const std::vector<double>& values, double pixel_low, double pixel_high);

}  // namespace rooftop::reports
