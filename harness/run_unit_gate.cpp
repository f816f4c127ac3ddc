#include "harness/run_unit_gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/gate_decision.hpp"
#include "harness/gate_statistics.hpp"
#include "harness/noise_model.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

constexpr int kMinRunRepetitions = 3;

std::string family_of(const std::string& name) { return name.substr(0, name.find('/')); }

// The spread of the baseline runs' log-medians, for the table's CV column.
double sample_variance_of_logs(const std::vector<double>& medians_s) {
  std::vector<double> logs;
  for (double m : medians_s) logs.push_back(std::log(m));
  const double sd = logs.size() > 1 ? sample_stddev(logs) : 0;
  return sd * sd;
}

}  // namespace

RunUnitBaseline history_baseline(const std::vector<HistorySeries>& history, const RunResults& current, int max_runs,
                                 const std::string& origin) {
  RunUnitBaseline b;
  b.origin = origin;
  for (const auto& s : history) {
    if (s.fingerprint != current.meta.fingerprint || s.tier != current.meta.tier) continue;
    auto& medians = b.medians_s[s.benchmark];
    // Newest first, so that the kept runs are the latest; the current run is not its own baseline.
    for (auto p = s.points.rbegin(); p != s.points.rend() && static_cast<int>(medians.size()) < max_runs; ++p) {
      if (p->created == current.meta.created) continue;
      medians.insert(medians.begin(), p->median_s);
    }
    if (medians.empty()) b.medians_s.erase(s.benchmark);
  }
  // Aligned at the newest: as many runs as the benchmark with the most medians (a count of
  // the distinct runs would leave empty columns where suites ran on different nights).
  b.runs = 0;
  for (const auto& [name, medians] : b.medians_s) b.runs = std::max(b.runs, static_cast<int>(medians.size()));
  return b;
}

GateReport gate_against_runs(const RunUnitBaseline& baseline, const RunResults& current, const GateConfig& config,
                             const std::string& current_origin) {
  GateReport report;
  report.baseline_origin = baseline.origin;
  report.current_origin = current_origin;
  report.config = config;
  report.interval_label = "95% CI, runs";
  report.correction = fmt::format("Benjamini-Hochberg, {} baseline runs as the unit", baseline.runs);
  report.run_unit = true;
  auto unmatched = baseline.medians_s;
  std::vector<std::size_t> tested;
  std::vector<ModelInput> inputs;
  for (const auto& cur : current.results) {
    Comparison c = current_side(cur, config);
    const auto it = unmatched.find(c.name);
    if (it == unmatched.end()) {
      c.verdict = Verdict::added;
      c.reason = "not in the baseline";
    } else {
      c.baseline_samples = it->second;
      c.baseline_count = static_cast<int>(c.baseline_samples.size());
      unmatched.erase(it);
      if (!settle_broken_point(c, cur)) {
        if (c.baseline_count < 2) {
          c.reason = "in only one baseline run: its spread between runs is unknown; add runs to the baseline "
                     "(`rooftop baseline update --append`)";
        } else if (c.current_count < std::min(config.min_repetitions, kMinRunRepetitions)) {
          // The run's median is the unit here, one draw like each baseline night's: 3
          // repetitions make a median (the quick tiers on a GPU take 5).
          c.reason = fmt::format("{} repetitions: at least {} are needed", c.current_count,
                                 std::min(config.min_repetitions, kMinRunRepetitions));
        } else {
          // Run medians on both sides: a run's location is its median here, as the stored runs' are.
          ModelInput in;
          for (double m : c.baseline_samples) in.baseline.push_back(std::log(m));
          in.current = std::log(median(c.current_samples));
          // The timer's tick floors the benchmark's run-to-run variance at one tick squared: a
          // median on a tick moves by a whole tick when the drift crosses a step, so a move
          // of one tick is never evidence. The repetitions' spread is no floor: an H200's
          // GEMM medians moved 0.07% from night to night where their 5 repetitions' spread
          // said 0.36%.
          std::vector<double> all(c.current_samples);
          all.insert(all.end(), c.baseline_samples.begin(), c.baseline_samples.end());
          in.floor = 12 * run_location(c.current_samples, timer_tick(all)).floor;
          c.cv_baseline = std::sqrt(sample_variance_of_logs(c.baseline_samples));
          c.cv_current = summarize(c.current_samples).cv;
          inputs.push_back(std::move(in));
          tested.push_back(report.comparisons.size());
        }
      }
    }
    report.comparisons.push_back(std::move(c));
  }
  for (const auto& [name, medians] : unmatched) {
    Comparison c;
    c.name = name;
    c.family = family_of(name);
    c.verdict = Verdict::missing;
    c.reason = "in the baseline but not in this run";
    c.baseline_samples = medians;
    c.baseline_count = static_cast<int>(medians.size());
    report.comparisons.push_back(std::move(c));
  }
  if (tested.empty()) return report;
  decide_by_model(report, tested, inputs, baseline.runs);
  return report;
}

}  // namespace rooftop
