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

TEST_CASE("calibration: slowdowns are caught where the noise allows, and no gate is green over one", "[gate][calibration]") {
  const GateConfig config;
  const auto shapes = standard_shapes();
  const auto& quiet = shapes.front();
  struct Expect {
    int runs;
    double slowdown, suite_slowdown, at_least;
  };
  // Measured at 1000 gates (docs/gate.md): quiet 10% caught 98-100% with 3 or 5 runs, 20%
  // 100% with 1; a suite-wide +10% exits non-zero 100%. The bounds leave sampling room.
  for (const auto& e : {Expect{1, 0.20, 0, 0.95}, Expect{3, 0.10, 0, 0.9}, Expect{5, 0.10, 0, 0.95},
                        Expect{1, 0, 0.10, 0.95}, Expect{5, 0, 0.10, 0.95}}) {
    Scenario s;
    s.noise = quiet;
    s.baseline_runs = e.runs;
    s.slowdown = e.slowdown;
    s.suite_slowdown = e.suite_slowdown;
    const auto t = simulate(s, 100, config, 3700 + e.runs);
    INFO(fmt::format("{} runs, +{:.0f}% one, +{:.0f}% all: caught {:.0f}%", e.runs, 100 * e.slowdown, 100 * e.suite_slowdown,
                     100 * t.caught_rate()));
    CHECK(t.caught_rate() >= e.at_least);
  }
  // Never exit 0 while an interval lies wholly above tau, in any shape, with or without a slowdown.
  std::uint64_t seed = 3800;
  for (const auto& shape : shapes) {
    for (double slowdown : {0.0, 0.05, 0.10}) {
      Scenario s;
      s.noise = shape;
      s.baseline_runs = 3;
      s.slowdown = slowdown;
      const auto t = simulate(s, 60, config, ++seed);
      INFO(shape.name << ", +" << slowdown);
      CHECK(t.green_over_slowdown == 0);
    }
  }
}
