#include "reports/per_watt.hpp"
#include "reports/ratio_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace rooftop::reports {

std::string per_watt_ratio(const PowerSide& device, const PowerSide& reference) {
  const std::size_t n = device.rate.size();
  if (n == 0 || reference.rate.size() != n) return "-";
  double measured_sum = 0;
  std::size_t measured = 0;
  bool any_measured = false;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& w = device.board_w[i];
    const auto& w_ref = reference.board_w[i];
    any_measured = any_measured || w || w_ref;
    if (w && w_ref && *w > 0 && *w_ref > 0) {
      measured_sum += std::log((device.rate[i] / *w) / (reference.rate[i] / *w_ref));
      ++measured;
    }
  }
  if (measured == n) return ratio_text(std::exp(measured_sum / n)) + " (measured board power, both)";
  if (device.tdp_w && reference.tdp_w) {
    // TDP on both sides: the ratio of speeds times the ratio of TDPs, alike on both sides.
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum += std::log((device.rate[i] / *device.tdp_w) / (reference.rate[i] / *reference.tdp_w));
    return ratio_text(std::exp(sum / n)) +
           (any_measured ? " (datasheet TDP, both: measured power is on one side only)" : " (datasheet TDP, both)");
  }
  if (measured > 0)
    return ratio_text(std::exp(measured_sum / measured)) +
           fmt::format(" (measured board power, both, over {} of the {} workloads)", measured, n);
  const auto basis = [&](const PowerSide& s) {
    for (const auto& w : s.board_w)
      if (w) return std::string("measured board power");
    return s.tdp_w ? fmt::format("datasheet TDP only ({:.0f} W)", *s.tdp_w) : std::string("no power figure");
  };
  const std::string a = basis(device), b = basis(reference);
  if (a == "no power figure" && b == "no power figure") return "- (no power measured, no TDP in the datasheet)";
  return fmt::format("not comparable: {} has {}, {} has {}", device.name, a, reference.name, b);
}

}  // namespace rooftop::reports
