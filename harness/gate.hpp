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

enum class Verdict { pass, fail, improved, unresolved, added, missing };
std::string_view verdict_name(Verdict verdict);  // PASS, FAIL, IMPROVED, UNRESOLVED, NEW, MISSING

struct ThresholdOverride {
  std::string pattern;  // regular expression (RE2) searched in benchmark names
  std::shared_ptr<const NameFilter> filter;
  double tau = 0;
};

struct GateConfig {
  // Family-wise over the suite's benchmarks (Bonferroni): at most this share of A/A suite
  // gates FAILs anything (issue 36's target: 2%).
  double alpha = 0.01;
  double tau_kernel = 0.03;    // slowdown that matters for kernels (gemm, attention)
  double tau_system = 0.05;    // for collectives and end-to-end inference
  int min_repetitions = 7;     // per side, or UNRESOLVED
  double clock_tolerance = 0.05;  // relative difference of median clocks that makes samples not comparable
  int min_baseline_runs = 2;  // a baseline of this many runs is tested with the run as the unit
  // A benchmark's own run-to-run spread (log sd) assumed where nothing measures it: one
  // baseline run and fewer than 5 benchmarks to estimate it across.
  double drift_prior = 0.03;
  std::vector<ThresholdOverride> overrides;
  double tau_for(const std::string& name, const std::string& family) const;
};

// {"alpha": .., "tau_kernel": .., "tau_system": .., "min_repetitions": ..,
//  "clock_tolerance": .., "min_baseline_runs": .., "drift_prior": .., "overrides": [{"match": "regex", "tau": 0.1}]}; missing keys keep
// their defaults. Throws InputError naming the file and field.
GateConfig load_gate_config(const std::filesystem::path& path);

struct Comparison {
  std::string name;
  std::string family;
  Verdict verdict = Verdict::unresolved;
  std::string reason;
  int baseline_count = 0, current_count = 0;
  double change = 0;                    // relative change of time: +0.10 = 10% slower
  double change_low = 0, change_high = 0;  // 95% CI of the change, this benchmark alone
  // The interval at the suite's level: a selected benchmark's at the false coverage rate
  // alpha (Benjamini-Yekutieli: 1 - R alpha / m for R discoveries of m); infinite where no
  // such interval was computed.
  double decision_low = -std::numeric_limits<double>::infinity(), decision_high = std::numeric_limits<double>::infinity();
  double p = 1, p_holm = 1;  // p against no change; adjusted across the suite (the gate: BH q)
  double cv_baseline = 0, cv_current = 0;
  double minimum_detectable = std::numeric_limits<double>::infinity();  // relative change
  double tau = 0;
  double clock_baseline = 0, clock_current = 0;  // median MHz (0: unknown)
  bool clock_differs = false;
  bool broken = false;  // the run's point failed its check or errored: no re-run clears that
  bool tested = false;  // a test ran (a p-value): only a tested re-run can clear a FAIL
  std::vector<double> baseline_samples, current_samples;  // seconds per iteration
  bool compared() const { return baseline_count > 0 && current_count > 0; }
  // UNRESOLVED, yet its own 95% interval lies wholly above tau: likely a slowdown that the
  // suite's level cannot confirm. Never an all-clear (exit 6, amber).
  bool unresolved_above_tau() const;
};

// "Everything slower together": the current run's factor shared by all its benchmarks
// (the median of their shifts), a question of its own. It is the machine (a run effect
// within the spread of the baseline runs' factors) or a global change; with too few
// baseline runs the gate says it cannot tell.
struct SuiteShift {
  bool estimated = false;  // enough benchmarks to tell a shared factor from each one's change
  int benchmarks = 0;
  double change = 0, change_low = 0, change_high = 0;  // of the shared factor, 95%
  double run_spread = 0;   // sd of the baseline runs' factors (log), 0 where unknown
  int baseline_runs = 0;
  Verdict verdict = Verdict::pass;  // PASS (within tau or the machine's drift), UNRESOLVED
  std::string reason;
};

struct GateReport {
  std::string baseline_origin, current_origin;
  GateConfig config;
  std::vector<Comparison> comparisons;
  // How the intervals and p were adjusted, for the printers: each benchmark's 95% and the
  // suite's Bonferroni level for the gate, the
  // looks' spent levels for the sequential `ab`.
  std::string interval_label = "95% CI", p_label = "q (BH)", correction = "Benjamini-Hochberg";
  bool run_unit = false;  // tested with the run as the unit (harness/run_unit_gate.hpp)
  // `ab` stopped by Ctrl-C: how ("interrupted (Ctrl-C) in pair 4, which is left out"). Every
  // view says it and exit 130 (the verdicts are of the pairs that finished); empty otherwise.
  std::string interrupted;
  SuiteShift suite_shift;
  int count(Verdict v) const;
  int count_unresolved_above_tau() const;
};

// The comparison of a current point before its baseline is looked up: its name, family,
// threshold and samples.
Comparison current_side(const ResultRecord& current, const GateConfig& config);
// A point of the current run that has no time to compare: FAIL for a failed check or an
// error, UNRESOLVED for a skipped point. False (and `c` untouched) when it has one.
bool settle_broken_point(Comparison& c, const ResultRecord& current);

// A re-run confirms or clears each FAIL (an intersection-union test, Berger 1982: a FAIL
// must be a FAIL in every run of the build that measured it, so its false-alarm rate is at
// most one run's, and their product where runs are independent). A timing FAIL that a
// re-run tested and did not repeat becomes UNRESOLVED; a broken point stays FAIL.
// Benchmarks a re-run left out, skipped or could not test keep their verdict.
void confirm_failures(GateReport& report, const std::vector<GateReport>& reruns);

// The run as a re-run sees it: the run's results with those the re-run measured again in
// their place. A re-run of the FAILed benchmarks alone is gated this way, so that the rest of
// the suite still gives it the run's shared factor, the suite's population of spreads and the
// company of the joint test (a suite of 4 re-run benchmarks has none of them). The re-run
// follows the run within minutes on the same machine; a machine that moved between them
// moves the re-run's benchmarks with it (on a lent H200, 0.2-0.5% from night to night).
RunResults with_reruns(const RunResults& run, const RunResults& rerun);

GateReport gate_results(const RunResults& baseline, const RunResults& current, const GateConfig& config,
                        const std::string& baseline_origin, const std::string& current_origin);

}  // namespace rooftop
