#pragma once
// ROOFTOP_INJECT_SLOWDOWN: a busy-wait added to every timed iteration, for calibrating the
// gate (docs/gate.md). A run made with it says so in its results ("injected_slowdown"), and
// `baseline update` and `history add` refuse it: its times are slowed on purpose.
#include <optional>
#include <string>

#include "harness/results.hpp"

namespace rooftop {

// The fraction a value of ROOFTOP_INJECT_SLOWDOWN gives: the whole text a finite number
// above 0 and below 10 ("0.05abc" is not 0.05), else InputError naming the variable and
// the way out.
double parse_injected_fraction(const std::string& text);

// What ROOFTOP_INJECT_SLOWDOWN (and ROOFTOP_INJECT_SLOWDOWN_MATCH) ask for; none when it is
// unset or empty.
std::optional<InjectedSlowdown> injected_slowdown_from_environment();

// "ROOFTOP_INJECT_SLOWDOWN=0.05 of the points matching 'gemm'", for messages.
std::string describe(const InjectedSlowdown& injected);

}  // namespace rooftop
