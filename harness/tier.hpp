#pragma once
#include <string>
#include <string_view>

#include "rooftop/types.hpp"  // Tier: smoke = seconds (CI), quick = about a minute per suite
                              // (ctest -L perf), full = nightly sizes

namespace rooftop {

std::string_view tier_name(Tier tier);
Tier parse_tier(std::string_view text);  // throws InputError listing the valid tiers

}  // namespace rooftop
