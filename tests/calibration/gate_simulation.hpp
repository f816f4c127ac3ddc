#pragma once
// The gate's calibration as code: suites of runs drawn with known truth (a machine factor
// shared by each run's benchmarks, each benchmark's own drift between runs, the
// repetitions' noise, heavy tails, quantised timers, outliers), gated by the real gate code
// (gate_results for a one-run baseline, gate_against_runs for several), counted against
// what is true. Used by the unit test (a fast subset with bounds) and by
// rooftop_gate_calibration (the table in docs/gate.md).
#include <cstdint>
#include <string>
#include <vector>

#include "harness/gate.hpp"

namespace rooftop::calibration {

// How one simulated machine times a suite (all spreads are log sds).
struct NoiseShape {
  std::string name;
  double run_factor = 0;      // the machine's factor per run, shared by all benchmarks
  double own_drift_low = 0, own_drift_high = 0;  // each benchmark's own run-to-run drift (spread over the suite)
  double within_low = 0.01, within_high = 0.01;  // the repetitions' noise (spread over the suite)
  double tail_df = 0;         // > 0: every draw Student-t with these df (heavy tails), scaled to the sd
  double tick = 0;            // > 0: samples rounded to this fraction of the benchmark's time
  double outliers = 0;        // this share of samples is 1.5x to 3x slower
  // > 0: this share of runs is loaded (another job on the cores): in such a run, a third of
  // the benchmarks, at random, are 1.5x to 4x slower (seen on the 2-core VM during builds).
  double loaded_runs = 0;
  // > 0: each benchmark's run lands in a second, slower state this often (bimodal clocks)...
  double slow_state = 0;
  double slow_state_size = 0.04;  // ...this much slower (log)
  // > 0: benchmarks in groups of 8 share a factor per run of this sd (correlated groups).
  double group_factor = 0;
  // The baseline runs share this extra factor (log): made in another machine state.
  double baseline_offset = 0;
  int benchmarks = 0;  // > 0: the suite's size in this shape (a small suite)
  // A GPU's kernels: own drift log-spaced from low to high (an H200's GEMMs: 0.2% to 3% from
  // night to night), in an order unrelated to the benchmarks' index, so the slowed ones (the
  // first) are quiet and noisy alike.
  bool unlike_kernels = false;
};

// The shapes the issue names, and a quiet machine.
std::vector<NoiseShape> standard_shapes();

struct Scenario {
  NoiseShape noise;
  int benchmarks = 48;
  int repetitions = 10;
  int baseline_runs = 1;
  double slowdown = 0;         // of `slowed` benchmarks (the first ones) in the current run
  int slowed = 1;
  double suite_slowdown = 0;   // of every benchmark in the current run
};

struct Tally {
  int gates = 0;
  int benchmark_tests = 0, benchmark_fails = 0;  // FAIL verdicts of unchanged benchmarks
  int benchmark_unresolved = 0;                  // UNRESOLVED verdicts of unchanged benchmarks
  int suite_fails = 0;       // gates that would exit 1
  int suite_fails_confirmed = 0;  // the same after `--confirm` with a re-run (a FAIL must repeat)
  int suite_unresolved = 0;  // gates that would exit 6
  int caught = 0;            // slowed benchmarks that FAIL (or, for a suite slowdown, gates with exit != 0)
  int slowed = 0;            // slowed benchmarks in all (a suite slowdown: gates)
  int gates_failed = 0;      // gates that exit 1 with a slowdown in them (the night FAILs)
  int green_over_slowdown = 0;  // gates that exit 0 while a benchmark's 95% interval lies wholly above tau
  double benchmark_fail_rate() const { return benchmark_tests ? double(benchmark_fails) / benchmark_tests : 0; }
  double benchmark_unresolved_rate() const { return benchmark_tests ? double(benchmark_unresolved) / benchmark_tests : 0; }
  double gates_failed_rate() const { return gates ? double(gates_failed) / gates : 0; }
  double suite_fail_rate() const { return gates ? double(suite_fails) / gates : 0; }
  double confirmed_fail_rate() const { return gates ? double(suite_fails_confirmed) / gates : 0; }
  double unresolved_rate() const { return gates ? double(suite_unresolved) / gates : 0; }
  double caught_rate() const { return slowed ? double(caught) / slowed : 0; }
};

// `gates` independent gates of the scenario, seeded.
Tally simulate(const Scenario& scenario, int gates, const GateConfig& config, std::uint64_t seed);

// The calibration table (markdown) over the standard shapes and baseline sizes.
// `only`: the shapes whose name contains it (all when empty).
std::string calibration_table(int gates, const GateConfig& config, std::uint64_t seed, const std::string& only = {});

}  // namespace rooftop::calibration
