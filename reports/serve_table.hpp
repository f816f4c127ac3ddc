#pragma once
// The inference serve points' own table under the run's table: latency percentiles,
// throughput, goodput at the objective, batch and cache, and the LoadGen verdict, the median
// of the repetitions, in kTerminalColumns.
#include <iosfwd>

#include "harness/results.hpp"

namespace rooftop::reports {

void print_serve_table(std::ostream& out, const RunResults& run);

}  // namespace rooftop::reports
