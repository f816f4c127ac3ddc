// rooftop_gate_calibration [GATES] [SEED] [SHAPE]: the gate's calibration table (markdown)
// on stdout, for docs/gate.md (ci/gate-calibration-table.sh puts it there); SHAPE keeps
// the noise shapes whose name contains it.
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "tests/calibration/gate_simulation.hpp"

int main(int argc, char** argv) {
  const int gates = argc > 1 ? std::atoi(argv[1]) : 1000;
  const auto seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 36ULL;
  if (gates < 1) {
    fmt::print(stderr, "usage: rooftop_gate_calibration [GATES >= 1] [SEED]\n");
    return 2;
  }
  const rooftop::GateConfig config;
  fmt::print("{}", rooftop::calibration::calibration_table(gates, config, seed, argc > 3 ? argv[3] : ""));
  fmt::print("\n{} gates a cell, 48 benchmarks (3 where the shape says), 10 repetitions, alpha {} (false discovery "
             "rate), tau {:.0f}%; seed {}.\n", gates,
             config.alpha, 100 * config.tau_kernel, seed);
  return 0;
}
