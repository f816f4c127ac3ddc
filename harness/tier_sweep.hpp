#pragma once
// A family's tier sweep from its shape-set file (suites/<family>/shapes/<tier>.txt): each
// shape in each of its dtypes, through the family's own shape parser; a label in the file
// (--set=square) becomes a parameter of the point.
#include <string_view>
#include <vector>

#include "harness/family.hpp"

namespace rooftop {

// `text` is the file's content, `origin` its name for error messages.
std::vector<Problem> sweep_from_shape_set(const Family& family, std::string_view text, std::string_view origin,
                                          const PlanContext& context);

}  // namespace rooftop
