#pragma once
namespace rooftop {
// Registers every workload family: one line per suite.
void register_all_suites();
}  // namespace rooftop
