#include "harness/run_unit_gate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "harness/gate_statistics.hpp"
#include "harness/special_functions.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string percent(double x) { return std::isfinite(x) ? fmt::format("{:+.1f}%", 100 * x) : "inf"; }

std::string family_of(const std::string& name) { return name.substr(0, name.find('/')); }

// One benchmark's test: its baseline runs' log-medians against the current run's.
struct RunTest {
  std::size_t index = 0;  // in the report's comparisons
  int runs = 0;
  double mean = 0, variance = 0, current = 0;
  double shift() const { return current - mean; }
};

RunTest summarize_runs(std::size_t index, const std::vector<double>& medians_s, double current_median_s) {
  RunTest t;
  t.index = index;
  t.runs = static_cast<int>(medians_s.size());
  std::vector<double> logs;
  for (double m : medians_s) logs.push_back(std::log(m));
  t.mean = mean(logs);
  const double sd = sample_stddev(logs);
  t.variance = sd * sd;
  t.current = std::log(current_median_s);
  return t;
}

}  // namespace

RunUnitBaseline history_baseline(const std::vector<HistorySeries>& history, const RunResults& current, int max_runs,
                                 const std::string& origin) {
  RunUnitBaseline b;
  b.origin = origin;
  std::vector<std::string> runs_seen;
  for (const auto& s : history) {
    if (s.fingerprint != current.meta.fingerprint || s.tier != current.meta.tier) continue;
    auto& medians = b.medians_s[s.benchmark];
    // Newest first, so that the kept runs are the latest; the current run is not its own baseline.
    for (auto p = s.points.rbegin(); p != s.points.rend() && static_cast<int>(medians.size()) < max_runs; ++p) {
      if (p->created == current.meta.created) continue;
      medians.insert(medians.begin(), p->median_s);
      if (std::find(runs_seen.begin(), runs_seen.end(), p->created) == runs_seen.end()) runs_seen.push_back(p->created);
    }
    if (medians.empty()) b.medians_s.erase(s.benchmark);
  }
  b.runs = static_cast<int>(runs_seen.size());
  return b;
}

VariancePrior fit_variance_prior(std::span<const double> variances, std::span<const double> dfs) {
  // Smyth's moments of log s^2: E = log s0^2 + digamma(d/2) - log(d/2), and the spread of
  // e = log s^2 - digamma(d/2) + log(d/2) beyond trigamma(d/2) is trigamma(d0/2).
  // A zero variance (identical medians) has no logarithm: floored as limma floors it.
  const double floor = std::max(1e-5 * (variances.empty() ? 0.0 : median(variances)), 1e-300);
  std::vector<double> e;
  double sampling = 0;
  for (std::size_t i = 0; i < variances.size(); ++i) {
    const double half = dfs[i] / 2;
    e.push_back(std::log(std::max(variances[i], floor)) - digamma(half) + std::log(half));
    sampling += trigamma(half);
  }
  VariancePrior prior;
  if (e.empty()) return prior;
  // One benchmark has nothing to be pooled with: its own variance on its own df.
  if (e.size() == 1) return {0, variances[0]};
  const double centre = mean(e);
  const auto n = static_cast<double>(e.size());
  double spread = 0;
  for (double x : e) spread += (x - centre) * (x - centre);
  spread = n > 1 ? spread / (n - 1) - sampling / n : -1;
  if (spread > 0) {
    prior.df = 2 * trigamma_inverse(spread);
    prior.variance = std::exp(centre + digamma(prior.df / 2) - std::log(prior.df / 2));
  } else {
    prior.df = kInfinity;
    prior.variance = std::exp(centre);
  }
  return prior;
}

double moderated_variance(const VariancePrior& prior, double s2, double df) {
  if (std::isinf(prior.df)) return prior.variance;
  return (prior.df * prior.variance + df * s2) / (prior.df + df);
}

GateReport gate_against_runs(const RunUnitBaseline& baseline, const RunResults& current, const GateConfig& config,
                             const std::string& current_origin) {
  GateReport report;
  report.baseline_origin = baseline.origin;
  report.current_origin = current_origin;
  report.config = config;
  report.interval_label = "95% CI, runs";
  report.p_label = "p (Holm)";
  report.correction = fmt::format("Holm, {} baseline runs as the unit", baseline.runs);
  report.run_unit = true;
  auto unmatched = baseline.medians_s;
  std::vector<RunTest> tests;
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
        } else if (c.current_count < config.min_repetitions) {
          c.reason = fmt::format("{} repetitions: at least {} are needed", c.current_count, config.min_repetitions);
        } else {
          tests.push_back(summarize_runs(report.comparisons.size(), c.baseline_samples, median(c.current_samples)));
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
  if (tests.empty()) return report;

  std::vector<double> variances, dfs;
  for (const auto& t : tests) {
    variances.push_back(t.variance);
    dfs.push_back(t.runs - 1);
  }
  const auto prior = fit_variance_prior(variances, dfs);
  // As limma does, no more degrees of freedom than all benchmarks' runs hold together.
  const double pooled_df = std::accumulate(dfs.begin(), dfs.end(), 0.0);
  std::vector<double> p_slower, p_faster, se, df;
  std::vector<RunTest> testable;
  for (const auto& t : tests) {
    auto& c = report.comparisons[t.index];
    const double tau = std::log1p(c.tau);
    // The current run's median has the spread of a baseline run's about their true centre,
    // and the baseline's mean has 1/k of it.
    const double error = std::sqrt(moderated_variance(prior, t.variance, t.runs - 1) * (1 + 1.0 / t.runs));
    if (!(error > 0)) {  // identical medians in every run: a spread of zero tests nothing
      c.reason = fmt::format("the {} baseline runs' medians are identical: no spread to test against (was one run "
                             "promoted twice?)", t.runs);
      continue;
    }
    c.tested = true;
    testable.push_back(t);
    se.push_back(error);
    df.push_back(std::min(prior.df + t.runs - 1, pooled_df));
    p_slower.push_back(student_t_cdf((tau - t.shift()) / error, df.back()));  // the upper tail, without cancellation
    p_faster.push_back(student_t_cdf((t.shift() + tau) / error, df.back()));
  }
  tests = std::move(testable);
  if (tests.empty()) return report;
  const auto holm_slower = holm_adjust(p_slower), holm_faster = holm_adjust(p_faster);
  const double strictest = config.alpha / static_cast<double>(tests.size());
  for (std::size_t i = 0; i < tests.size(); ++i) {
    auto& c = report.comparisons[tests[i].index];
    const double tau = std::log1p(c.tau), shift = tests[i].shift();
    const double half = student_t_quantile(0.975, df[i]) * se[i];
    c.change = std::expm1(shift);
    c.change_low = std::expm1(shift - half);
    c.change_high = std::expm1(shift + half);
    c.cv_baseline = std::sqrt(moderated_variance(prior, tests[i].variance, tests[i].runs - 1));
    c.cv_current = summarize(c.current_samples).cv;
    c.minimum_detectable = std::expm1(tau + student_t_quantile(1 - strictest, df[i]) * se[i]);
    const bool faster = holm_faster[i] < config.alpha;
    c.p = faster ? p_faster[i] : p_slower[i];
    c.p_holm = faster ? holm_faster[i] : holm_slower[i];
    const std::string stats = fmt::format("change {} [{}, {}] against {} runs, spread between runs {:.1f}% ({:.0f} df), "
                                          "p {:.2g} (Holm {:.2g})", percent(c.change), percent(c.change_low),
                                          percent(c.change_high), tests[i].runs, 100 * c.cv_baseline, df[i], c.p, c.p_holm);
    if (holm_slower[i] < config.alpha) {
      c.verdict = Verdict::fail;
      c.reason = fmt::format("slower by {}: beyond the {:.0f}% threshold by more than the spread between runs; {}",
                             percent(c.change), 100 * c.tau, stats);
    } else if (faster) {
      c.verdict = Verdict::improved;
      c.reason = fmt::format("faster by {}: beyond -{:.0f}% by more than the spread between runs; {}", percent(-c.change),
                             100 * c.tau, stats);
    } else if (std::log1p(c.change_high) < tau) {
      c.verdict = Verdict::pass;
      c.reason = fmt::format("slowdown below {:.0f}% with 95% confidence; {}", 100 * c.tau, stats);
    } else {
      c.verdict = Verdict::unresolved;
      c.reason = fmt::format("cannot tell a {:.0f}% slowdown from the spread between runs: {}; a slowdown of {} or more "
                             "would FAIL here", 100 * c.tau, stats, percent(c.minimum_detectable));
    }
  }
  return report;
}

}  // namespace rooftop
