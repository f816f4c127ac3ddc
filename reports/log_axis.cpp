#include "reports/log_axis.hpp"

#include <algorithm>
#include <cmath>

namespace rooftop::reports {

double LogAxis::to_pixel(double value) const {
  const double v = std::clamp(value, low, high);
  const double t = (std::log10(v) - std::log10(low)) / (std::log10(high) - std::log10(low));
  return pixel_low + t * (pixel_high - pixel_low);
}

std::vector<double> LogAxis::decades() const {
  std::vector<double> d;
  for (double e = std::round(std::log10(low)); e <= std::round(std::log10(high)) + 1e-9; e += 1) d.push_back(std::pow(10.0, e));
  return d;
}

LogAxis fit_log_axis(const std::vector<double>& values, double pixel_low, double pixel_high) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (!std::isfinite(lo)) lo = hi = 1;
  double e_lo = std::floor(std::log10(lo)), e_hi = std::ceil(std::log10(hi));
  if (e_hi <= e_lo) e_hi = e_lo + 1;
  return {std::pow(10.0, e_lo), std::pow(10.0, e_hi), pixel_low, pixel_high};
}

}  // namespace rooftop::reports
