// The gate's false-alarm bounds and power, measured by the calibration simulation
// (tests/calibration) through the real gate code: a fast subset of docs/gate.md's table.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "tests/calibration/gate_simulation.hpp"

using namespace rooftop;
using namespace rooftop::calibration;

TEST_CASE("calibration: A/A gates stay under the false-alarm bounds in every noise shape and baseline size", "[gate][calibration]") {
  const GateConfig config;
  std::uint64_t seed = 3600;
  for (const auto& shape : standard_shapes()) {
    for (int runs : {1, 2, 3, 5}) {
      Scenario s;
      s.noise = shape;
      s.baseline_runs = runs;
      const auto t = simulate(s, 150, config, ++seed);
      INFO(fmt::format("{}, {} baseline runs: {:.3f}% of benchmarks, {:.1f}% of suites FAIL", shape.name, runs,
                       100 * t.benchmark_fail_rate(), 100 * t.suite_fail_rate()));
      // Targets: 0.1% of benchmarks, 2% of suites; 150 gates leave room for sampling (0 to 6 suites).
      CHECK(t.benchmark_fail_rate() <= 0.002);
      CHECK(t.suite_fail_rate() <= 0.04);
    }
  }
}
