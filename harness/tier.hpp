#pragma once
#include <string>
#include <string_view>

namespace rooftop {

// Sizes of a sweep: smoke = seconds (CI), quick = about a minute per suite
// (ctest -L perf), full = nightly sizes.
enum class Tier { smoke, quick, full };

std::string_view tier_name(Tier tier);
Tier parse_tier(std::string_view text);  // throws InputError listing the valid tiers

}  // namespace rooftop
