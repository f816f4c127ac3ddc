#pragma once
// Measures the gate itself on this machine: how often it cries FAIL on A/A comparisons
// (false alarms) and how often it catches injected slowdowns (detection).
#include <cstdint>
#include <string>
#include <vector>

#include "harness/gate.hpp"

namespace rooftop {

struct CalibrationRow {
  std::string mode;        // "offline A/A", "offline +5%", "online A/A", "online +5% (injected)"
  double slowdown = 0;
  int suite_comparisons = 0;      // whole-suite gates
  int suites_with_fail = 0;
  int benchmark_comparisons = 0;  // benchmarks gated, over all suite gates
  int benchmark_fails = 0;
  int quiet_comparisons = 0;      // of benchmarks whose A/A CV <= 1%
  int quiet_fails = 0;
};

struct CalibrationReport {
  int runs = 0;
  int benchmarks = 0;
  int quiet_benchmarks = 0;  // A/A CV <= 1%
  double median_cv = 0;      // median over benchmarks of their A/A CV
  std::vector<CalibrationRow> rows;
};

inline constexpr double kQuietCv = 0.01;

// Offline: each comparison draws two different A/A runs, resamples each benchmark's
// samples within its run (so drift between runs stays in), and gates them; detection
// scales the second side by 1 + slowdown. Online: gates every ordered pair of the real
// A/A runs, and each injected run against every A/A run.
CalibrationReport calibrate_gate(const std::vector<RunResults>& aa_runs,
                                 const std::vector<std::pair<double, RunResults>>& injected, int comparisons,
                                 const std::vector<double>& slowdowns, const GateConfig& config, std::uint64_t seed);

std::string calibration_markdown(const CalibrationReport& report, const GateConfig& config);

}  // namespace rooftop
