#include "harness/tier.hpp"

#include "harness/errors.hpp"

namespace rooftop {

std::string_view tier_name(Tier tier) {
  switch (tier) {
    case Tier::smoke: return "smoke";
    case Tier::quick: return "quick";
    case Tier::full: return "full";
  }
  return "?";
}

Tier parse_tier(std::string_view text) {
  for (Tier t : {Tier::smoke, Tier::quick, Tier::full})
    if (tier_name(t) == text) return t;
  throw InputError("unknown tier '" + std::string(text) + "': choose one of smoke, quick, full");
}

}  // namespace rooftop
