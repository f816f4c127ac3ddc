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
    // Not the targets, and said so in docs/gate.md: a loaded run slows a random
    // third of a suite, groups of benchmarks that jump together look like a change of the
    // group; the nightly's re-run keeps them rare.
    const bool beyond_targets = shape.loaded_runs > 0 || shape.group_factor > 0;
    for (int runs : {1, 2, 3, 5}) {
      // A known miss, stated in docs/gate.md: one run cannot tell a kernel that drifts 3%
      // from one that drifts 0.2% (30% of such suites FAIL, 11 of 34 real H200 pairs).
      if (shape.unlike_kernels && runs == 1) continue;
      Scenario s;
      s.noise = shape;
      s.baseline_runs = runs;
      const auto t = simulate(s, 150, config, ++seed);
      INFO(fmt::format("{}, {} baseline runs: {:.3f}% of benchmarks, {:.1f}% of suites FAIL, {:.1f}% confirmed", shape.name,
                       runs, 100 * t.benchmark_fail_rate(), 100 * t.suite_fail_rate(), 100 * t.confirmed_fail_rate()));
      // Targets: 0.1% of benchmarks, 2% of suites; 150 gates leave room for sampling (0 to 6
      // suites). One baseline run is the rolling baseline's start-up: the nightly's re-run
      // (`--confirm`) holds it to the bound.
      if (beyond_targets) {
        CHECK(t.confirmed_fail_rate() <= 0.10);
      } else if (runs == 1) {
        CHECK(t.confirmed_fail_rate() <= 0.04);
        CHECK(t.benchmark_fail_rate() <= 0.004);
      } else {
        // A suite of 3 has 450 benchmark tests here: one FAIL is 0.22%; the table's 1000
        // gates measure the 0.1% target.
        CHECK(t.benchmark_fail_rate() <= (shape.benchmarks > 0 ? 0.005 : 0.002));
        CHECK(t.suite_fail_rate() <= 0.04);
      }
    }
  }
}

TEST_CASE("calibration: slowdowns are caught where the noise allows, and no gate is green over one", "[gate][calibration]") {
  const GateConfig config;
  const auto shapes = standard_shapes();
  const auto& quiet = shapes.front();
  struct Expect {
    int runs, slowed;
    double slowdown, suite_slowdown, at_least;
  };
  // Measured at 1000 gates (docs/gate.md): quiet 5% caught 80%+ with 1 run, 95%+ with 3 or
  // 5, the night with 4 of them FAILs 95%+; 20% 100%; a suite-wide +10% exits non-zero
  // 100%. The bounds leave sampling room at 100 gates.
  for (const auto& e : {Expect{1, 1, 0.05, 0, 0.7}, Expect{3, 1, 0.05, 0, 0.88}, Expect{5, 1, 0.05, 0, 0.9},
                        Expect{3, 4, 0.05, 0, 0.9}, Expect{1, 1, 0.20, 0, 0.95}, Expect{1, 1, 0, 0.10, 0.95},
                        Expect{5, 1, 0, 0.10, 0.95}}) {
    Scenario s;
    s.noise = quiet;
    s.baseline_runs = e.runs;
    s.slowdown = e.slowdown;
    s.slowed = e.slowed;
    s.suite_slowdown = e.suite_slowdown;
    const auto t = simulate(s, 100, config, 3700 + e.runs);
    INFO(fmt::format("{} runs, +{:.0f}% in {}, +{:.0f}% all: caught {:.0f}%", e.runs, 100 * e.slowdown, e.slowed,
                     100 * e.suite_slowdown, 100 * t.caught_rate()));
    CHECK(t.caught_rate() >= e.at_least);
  }
  // A GPU's unlike kernels (0.2% to 3% from night to night): from 5 baseline nights the
  // population test finds 5% in 4 of 18 in 96% of nights (docs/gate.md's table; each
  // benchmark's own p alone: 40%; before the run's factor was weighted by each benchmark's
  // precision and the tails averaged over their posterior: 72%).
  {
    Scenario s;
    s.noise = shapes.back();
    s.baseline_runs = 5;
    s.slowdown = 0.05;
    s.slowed = 4;
    REQUIRE(s.noise.unlike_kernels);
    const auto t = simulate(s, 100, config, 3905);
    INFO(fmt::format("{}, 5 runs: 5% in 4, the night FAILs {:.0f}%", s.noise.name, 100 * t.gates_failed_rate()));
    CHECK(t.gates_failed_rate() >= 0.88);
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
