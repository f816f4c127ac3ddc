#pragma once
#include <string_view>
#include <vector>

#include "harness/problem.hpp"

namespace rooftop {

// Workload families, registered once at start-up (see suites/suites.cpp).
void register_family(Family family);
const std::vector<Family>& families();
// Throws InputError listing the registered families.
const Family& find_family(std::string_view name);

}  // namespace rooftop
