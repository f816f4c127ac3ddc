#pragma once
// Validators of the floating-point options of every command. CLI11's Range and
// PositiveNumber compare the value with their bounds, and every comparison with NaN is
// false, so NaN (and infinity, for PositiveNumber) would pass them: these refuse both.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>

namespace rooftop::cli {

// The whole text as a finite number, or NaN where it is not one.
inline double finite_number_or_nan(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && std::isfinite(v) ? v : std::nan("");
}

// A finite number in [low, high].
inline CLI::Validator finite_range(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& s) {
        const double v = finite_number_or_nan(s);
        return v >= low && v <= high ? std::string()
                                     : fmt::format("'{}' is not a finite number in [{:g}, {:g}]", s, low, high);
      },
      fmt::format("FLOAT in [{:g} - {:g}]", low, high));
}

// A finite number > 0.
inline CLI::Validator finite_positive() {
  return CLI::Validator(
      [](std::string& s) {
        return finite_number_or_nan(s) > 0 ? std::string() : "'" + s + "' is not a finite number > 0";
      },
      "POSITIVE");
}

}  // namespace rooftop::cli
