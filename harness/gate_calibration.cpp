#include "harness/gate_calibration.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <numbers>
#include <stdexcept>

#include "harness/random_fill.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

// A smoothed bootstrap of one run (Efron & Tibshirani's, with the variance kept): in log
// time, each sample is a draw x_b from the run plus h * N(0, 1), with Silverman's bandwidth
// h = 1.06 sd n^(-1/5), shrunk towards the run's mean by 1 / sqrt(1 + h^2 / sd^2) so the
// spread stays the run's. Plain resampling makes ties, which push the rank test onto its
// normal approximation (it cannot go below p = 1.8e-4 at 10 vs 10, so nothing could FAIL);
// a tiny jitter keeps near-duplicates and makes the test overconfident.
RunResults resampled(const RunResults& run, std::uint64_t& state, double scale) {
  auto gaussian = [&] {
    const double u1 = (static_cast<double>(splitmix64(state++) >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = static_cast<double>(splitmix64(state++) >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  };
  RunResults out;
  out.meta = run.meta;
  for (const auto& r : run.results) {
    std::vector<double> logs;
    for (const auto& x : r.samples) logs.push_back(std::log(x.seconds_per_iteration));
    const double sd = sample_stddev(logs), centre = mean(logs);
    const double h = 1.06 * sd * std::pow(static_cast<double>(logs.size()), -0.2);
    const double shrink = sd > 0 ? 1.0 / std::sqrt(1.0 + h * h / (sd * sd)) : 1.0;
    ResultRecord copy = r;
    for (auto& s : copy.samples) {
      s = r.samples[splitmix64(state++) % r.samples.size()];
      const double x = centre + (std::log(s.seconds_per_iteration) - centre + h * gaussian()) * shrink;
      s.seconds_per_iteration = scale * std::exp(x);
    }
    derive_record(copy, run.meta.ceilings ? &*run.meta.ceilings : nullptr);  // its own samples' numbers
    out.results.push_back(std::move(copy));
  }
  return out;
}

void tally(CalibrationRow& row, const GateReport& g, const std::map<std::string, bool>& quiet) {
  ++row.suite_comparisons;
  bool any = false;
  for (const auto& c : g.comparisons) {
    if (!c.compared()) continue;
    const bool fail = c.verdict == Verdict::fail;
    ++row.benchmark_comparisons;
    row.benchmark_fails += fail;
    any = any || fail;
    const auto q = quiet.find(c.name);
    if (q != quiet.end() && q->second) {
      ++row.quiet_comparisons;
      row.quiet_fails += fail;
    }
  }
  row.suites_with_fail += any;
}

std::string rate(int k, int n) { return n ? fmt::format("{:.2f}% ({}/{})", 100.0 * k / n, k, n) : "-"; }
}  // namespace

CalibrationReport calibrate_gate(const std::vector<RunResults>& aa, const std::vector<std::pair<double, RunResults>>& injected,
                                 int comparisons, const std::vector<double>& slowdowns, const GateConfig& config,
                                 std::uint64_t seed) {
  if (aa.size() < 2) throw std::invalid_argument("calibration needs at least two A/A runs");
  CalibrationReport report;
  report.runs = static_cast<int>(aa.size());
  // A benchmark's A/A noise: the median over runs of its CV within a run.
  std::map<std::string, std::vector<double>> cvs;
  for (const auto& run : aa)
    for (const auto& r : run.results) {
      const auto s = r.seconds();
      if (s.size() >= 2) cvs[r.problem.name()].push_back(summarize(s).cv);
    }
  std::map<std::string, bool> quiet;
  std::vector<double> all_cv;
  for (const auto& [name, v] : cvs) {
    const double cv = median(v);
    quiet[name] = cv <= kQuietCv;
    all_cv.push_back(cv);
  }
  report.benchmarks = static_cast<int>(quiet.size());
  for (const auto& [name, q] : quiet) report.quiet_benchmarks += q;
  report.median_cv = all_cv.empty() ? 0 : median(all_cv);

  std::uint64_t state = seed;
  std::vector<double> offline = {0.0};
  offline.insert(offline.end(), slowdowns.begin(), slowdowns.end());
  for (double slowdown : offline) {
    CalibrationRow row{slowdown == 0 ? "offline A/A (smoothed bootstrap)" : fmt::format("offline +{:.0f}% (scaled)", 100 * slowdown),
                       slowdown};
    for (int k = 0; k < comparisons; ++k) {
      const auto i = splitmix64(state++) % aa.size();
      auto j = splitmix64(state++) % (aa.size() - 1);
      if (j >= i) ++j;
      tally(row, gate_results(resampled(aa[i], state, 1.0), resampled(aa[j], state, 1.0 + slowdown), config, "", ""), quiet);
    }
    report.rows.push_back(row);
  }
  // A baseline pooled over the other runs (as `baseline update --append` makes) against one run.
  if (aa.size() >= 3) {
    for (double slowdown : offline) {
      CalibrationRow row{slowdown == 0 ? "offline A/A, pooled baseline" : fmt::format("offline +{:.0f}%, pooled baseline", 100 * slowdown),
                         slowdown};
      for (int k = 0; k < comparisons; ++k) {
        const auto j = splitmix64(state++) % aa.size();
        RunResults pooled;
        for (std::size_t i = 0; i < aa.size(); ++i) {
          if (i == j) continue;
          auto part = resampled(aa[i], state, 1.0);
          if (pooled.results.empty()) {
            pooled = std::move(part);
            continue;
          }
          std::map<std::string, ResultRecord*> by_name;
          for (auto& r : pooled.results) by_name[r.problem.name()] = &r;
          for (const auto& r : part.results)
            if (auto it = by_name.find(r.problem.name()); it != by_name.end())
              it->second->samples.insert(it->second->samples.end(), r.samples.begin(), r.samples.end());
        }
        tally(row, gate_results(pooled, resampled(aa[j], state, 1.0 + slowdown), config, "", ""), quiet);
      }
      report.rows.push_back(row);
    }
  }
  CalibrationRow online{"online A/A (separate runs)", 0};
  for (std::size_t i = 0; i < aa.size(); ++i)
    for (std::size_t j = 0; j < aa.size(); ++j)
      if (i != j) tally(online, gate_results(aa[i], aa[j], config, "", ""), quiet);
  report.rows.push_back(online);
  for (const auto& [slowdown, run] : injected) {
    CalibrationRow row{fmt::format("online +{:.0f}% (injected spin)", 100 * slowdown), slowdown};
    for (const auto& base : aa) tally(row, gate_results(base, run, config, "", ""), quiet);
    report.rows.push_back(row);
  }
  return report;
}

std::string calibration_markdown(const CalibrationReport& r, const GateConfig& config) {
  std::string md = fmt::format(
      "Gate calibration: {} A/A runs, {} benchmarks (median A/A CV {:.1f}%; {} with CV <= 1%); alpha {} with Holm, "
      "tau {:.0f}%.\n\n",
      r.runs, r.benchmarks, 100 * r.median_cv, r.quiet_benchmarks, config.alpha, 100 * config.tau_kernel);
  md += "| comparison | suite gates with a FAIL | benchmark FAILs | FAILs where A/A CV <= 1% |\n| --- | --- | --- | --- |\n";
  for (const auto& row : r.rows)
    md += fmt::format("| {} | {} | {} | {} |\n", row.mode, rate(row.suites_with_fail, row.suite_comparisons),
                      rate(row.benchmark_fails, row.benchmark_comparisons), rate(row.quiet_fails, row.quiet_comparisons));
  md += "\nA/A rows are false alarms; the others are detection.\n";
  return md;
}

}  // namespace rooftop
