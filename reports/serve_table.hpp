#pragma once
// The inference serve points' own table under the run's table: latency percentiles,
// throughput, goodput at the objective, batch and cache, and the LoadGen verdict, the median
// of the repetitions, in kTerminalColumns; under it, a swept point's rates (the load-latency
// curve in short: rate, TTFT p99, TPOT p99, goodput, valid).
#include <iosfwd>

#include "harness/results.hpp"

namespace rooftop::reports {

void print_serve_table(std::ostream& out, const RunResults& run);

}  // namespace rooftop::reports
