#pragma once
// The performance gate: compares the samples of a run with a baseline, benchmark by
// benchmark, and says FAIL only for a significant slowdown whose whole confidence interval
// lies beyond the threshold.
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "harness/name_filter.hpp"
#include "harness/results.hpp"

namespace rooftop {

enum class Verdict { pass, fail, improved, inconclusive, added, missing };
std::string_view verdict_name(Verdict verdict);  // PASS, FAIL, IMPROVED, INCONCLUSIVE, NEW, MISSING

struct ThresholdOverride {
  std::string pattern;  // regular expression (RE2) searched in benchmark names
  std::shared_ptr<const NameFilter> filter;
  double tau = 0;
};

struct GateConfig {
  double alpha = 0.001;        // family-wise, after Holm's correction across the suite
  double tau_kernel = 0.03;    // slowdown that matters for kernels (gemm, attention)
  double tau_system = 0.05;    // for collectives and end-to-end inference
  int min_repetitions = 7;     // per side, or INCONCLUSIVE
  double clock_tolerance = 0.05;  // relative difference of median clocks that makes samples not comparable
  std::vector<ThresholdOverride> overrides;
  double tau_for(const std::string& name, const std::string& family) const;
};

// {"alpha": .., "tau_kernel": .., "tau_system": .., "min_repetitions": ..,
//  "clock_tolerance": .., "overrides": [{"match": "regex", "tau": 0.1}]}; missing keys keep
// their defaults. Throws InputError naming the file and field.
GateConfig load_gate_config(const std::filesystem::path& path);

struct Comparison {
  std::string name;
  std::string family;
  Verdict verdict = Verdict::inconclusive;
  std::string reason;
  int baseline_count = 0, current_count = 0;
  double change = 0;                    // relative change of time: +0.10 = 10% slower
  double change_low = 0, change_high = 0;  // 95% CI of the change
  double p = 1, p_holm = 1;
  double cv_baseline = 0, cv_current = 0;
  double minimum_detectable = std::numeric_limits<double>::infinity();  // relative change
  double tau = 0;
  double clock_baseline = 0, clock_current = 0;  // median MHz (0: unknown)
  bool clock_differs = false;
  std::vector<double> baseline_samples, current_samples;  // seconds per iteration
  bool compared() const { return baseline_count > 0 && current_count > 0; }
};

struct GateReport {
  std::string baseline_origin, current_origin;
  GateConfig config;
  std::vector<Comparison> comparisons;
  // How the intervals and p were adjusted, for the printers: Holm's 95% for the gate, the
  // looks' spent levels for the sequential `ab`.
  std::string interval_label = "95% CI", p_label = "p (Holm)", correction = "Holm";
  int count(Verdict v) const;
};

GateReport gate_results(const RunResults& baseline, const RunResults& current, const GateConfig& config,
                        const std::string& baseline_origin, const std::string& current_origin);

}  // namespace rooftop
