#include "harness/tier_sweep.hpp"

#include <fmt/format.h>

#include "harness/errors.hpp"
#include "harness/shape_sets.hpp"

namespace rooftop {

std::vector<Problem> sweep_from_shape_set(const Family& family, std::string_view text, std::string_view origin,
                                          const PlanContext& context) {
  const auto entries = parse_shape_set(text, origin);
  std::vector<Problem> points;
  for (const auto& [entry, dtype_text] : expand_by_dtype(entries, context.backend)) {
    std::vector<Problem> made;
    try {
      made = family.shape_points(entry->shape, parse_dtype(dtype_text), context);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}:{}: {}", origin, entry->line, e.what()));
    }
    for (auto& p : made) {
      for (const auto& [key, value] : entry->labels) p.params[key] = value;
      points.push_back(std::move(p));
    }
  }
  return points;
}

}  // namespace rooftop
