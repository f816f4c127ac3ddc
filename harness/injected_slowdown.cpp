#include "harness/injected_slowdown.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "harness/errors.hpp"
#include "harness/printable_text.hpp"

namespace rooftop {

double parse_injected_fraction(const std::string& text) {
  double fraction = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, fraction);
  if (error != std::errc() || stop != end || !std::isfinite(fraction) || !(fraction > 0 && fraction < 10))
    throw InputError(fmt::format("ROOFTOP_INJECT_SLOWDOWN='{}' is not a fraction: give a number above 0 and below 10, "
                                 "such as 0.05 (it slows every timed iteration, for gate calibration only), or unset "
                                 "ROOFTOP_INJECT_SLOWDOWN to measure",
                                 printable_text(text)));
  return fraction;
}

std::optional<InjectedSlowdown> injected_slowdown_from_environment() {
  const char* value = std::getenv("ROOFTOP_INJECT_SLOWDOWN");
  if (!value || !*value) return std::nullopt;
  InjectedSlowdown injected;
  injected.fraction = parse_injected_fraction(value);
  if (const char* match = std::getenv("ROOFTOP_INJECT_SLOWDOWN_MATCH")) injected.match = match;
  return injected;
}

std::string describe(const InjectedSlowdown& injected) {
  return fmt::format("ROOFTOP_INJECT_SLOWDOWN={:g}{}", injected.fraction,
                     injected.match.empty() ? "" : fmt::format(" of the points matching '{}'", printable_text(injected.match)));
}

}  // namespace rooftop
