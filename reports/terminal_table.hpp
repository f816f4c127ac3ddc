#pragma once
// `rooftop run`'s table on a terminal: one compact table per workload that fits
// kTerminalColumns, with a short implementation label, each point's rate against its own
// roof in scaled units, and reasons as numbered notes below. `wide` prints every column and
// the whole implementation text instead, however long the lines.
#include <cstddef>
#include <iosfwd>

#include "harness/results.hpp"

namespace rooftop::reports {

inline constexpr std::size_t kTerminalColumns = 120;

void print_terminal_table(std::ostream& out, const RunResults& run, bool wide = false);

}  // namespace rooftop::reports
