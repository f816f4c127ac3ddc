#include "harness/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "harness/dtype.hpp"

namespace rooftop {
namespace {
constexpr std::array<std::string_view, 9> kPrefixes = {"n", "u", "m", "", "k", "M", "G", "T", "P"};
constexpr int kUnity = 3;  // kPrefixes[kUnity] is 10^0

int whole_digits(double mantissa) {
  return std::fabs(mantissa) < 1 ? 1 : static_cast<int>(std::floor(std::log10(std::fabs(mantissa)))) + 1;
}

// The mantissa rounded to `digits` significant digits.
double rounded(double mantissa, int digits) {
  const double step = std::pow(10.0, whole_digits(mantissa) - digits);
  return std::round(mantissa / step) * step;
}

// The value as a mantissa in [1, 1000) times a power of 1000 between the two bounds, with
// `digits` significant digits after rounding (999.96 is 1.000 of the next prefix, 9.9996 is
// 10.00). Outside the prefixes' range it keeps `digits` digits with an exponent.
std::string with_prefix(double value, std::string_view unit, int digits, int min_power, int max_power) {
  if (!std::isfinite(value)) return fmt::format("{} {}", value, unit);
  int power = 0;
  double mantissa = value;
  if (value != 0) {
    const int natural = static_cast<int>(std::floor(std::log10(std::fabs(value)) / 3));
    power = std::clamp(natural, min_power, max_power);
    mantissa = rounded(value / std::pow(1000.0, power), digits);
    if (std::fabs(mantissa) >= 1000 && power < max_power) mantissa = rounded(mantissa / 1000, digits), ++power;
    if (std::fabs(mantissa) >= 1000 || (std::fabs(mantissa) < 1 && power == min_power && natural < min_power))
      return fmt::format("{:.{}g} {}{}", mantissa, digits, kPrefixes[power + kUnity], unit);
  }
  return fmt::format("{:.{}f} {}{}", mantissa, std::max(0, digits - whole_digits(mantissa)), kPrefixes[power + kUnity],
                     unit);
}
}  // namespace

std::string format_si(double value, std::string_view unit, int digits) {
  return with_prefix(value, unit, digits, 0, static_cast<int>(kPrefixes.size()) - 1 - kUnity);
}

std::string format_duration(double seconds, int digits) { return with_prefix(seconds, "s", digits, -kUnity, 0); }

std::string_view rate_unit(Dtype dtype) { return is_integer(dtype) ? "OP/s" : "FLOP/s"; }

std::string bound_rate(Dtype dtype, std::string_view bound, double flops_per_s, double bytes_per_s,
                       double compute_peak, double bandwidth) {
  bool memory = flops_per_s <= 0 || bound == "memory";
  if (bound == "latency" && compute_peak > 0 && bandwidth > 0)
    memory = bytes_per_s / bandwidth > flops_per_s / compute_peak;
  return memory ? format_si(bytes_per_s, "B/s") : format_si(flops_per_s, rate_unit(dtype));
}

}  // namespace rooftop
