#include "harness/noise_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "harness/gate_statistics.hpp"
#include "harness/run_unit_gate.hpp"
#include "harness/special_functions.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

// The bulk's scale is read at the 90th percentile of the benchmarks' squared standardised
// changes, not their median: a loaded run slows a random tenth to a third of a suite's
// benchmarks, which moves a median little and the 90th percentile much, while a real
// regression of fewer than a tenth of them moves neither.
// A suite of fewer than 20 benchmarks has no 90th percentile worth the name: its median
// (the chi-square's 0.454936) stands in, robust to a change of up to half of them.
struct BulkQuantile {
  double p, chi_square;  // the quantile, and a chi-square of 1 df's at it
};
BulkQuantile bulk_quantile(std::size_t benchmarks) {
  return benchmarks >= 20 ? BulkQuantile{0.9, 2.705543} : BulkQuantile{0.5, 0.454936};
}
constexpr double kMadToSd = 1.4826;

// Tukey's median polish of the baseline runs (benchmarks x runs, aligned at the newest run,
// missing where a benchmark is younger than the run): levels per benchmark, factors per run
// with median 0. Factors are fitted only where enough benchmarks share the runs.
void median_polish(std::span<const ModelInput> inputs, int runs, bool fit_factors, std::vector<double>& level,
                   std::vector<double>& factor) {
  const std::size_t n = inputs.size();
  auto value = [&](std::size_t b, int j, double& x) {
    const auto& v = inputs[b].baseline;
    const int offset = static_cast<int>(v.size()) - runs;  // <= 0: the older runs are missing
    if (j + offset < 0) return false;
    x = v[static_cast<std::size_t>(j + offset)];
    return true;
  };
  level.assign(n, 0);
  factor.assign(static_cast<std::size_t>(runs), 0);
  std::vector<double> column, previous(factor);
  for (int sweep = 0; sweep < 20; ++sweep) {
    for (std::size_t b = 0; b < n; ++b) {
      column.clear();
      double x = 0;
      for (int j = 0; j < runs; ++j)
        if (value(b, j, x)) column.push_back(x - factor[static_cast<std::size_t>(j)]);
      level[b] = column.empty() ? 0 : median(column);
    }
    if (!fit_factors) return;
    for (int j = 0; j < runs; ++j) {
      column.clear();
      double x = 0;
      for (std::size_t b = 0; b < n; ++b)
        if (value(b, j, x)) column.push_back(x - level[b]);
      factor[static_cast<std::size_t>(j)] = column.empty() ? 0 : median(column);
    }
    const double centre = median(factor);
    double moved = 0;
    for (std::size_t j = 0; j < factor.size(); ++j) {
      moved = std::max(moved, std::fabs(factor[j] - centre - previous[j]));
      factor[j] -= centre;
    }
    if (moved < 1e-12) return;  // converged
    previous = factor;
  }
}

// Each benchmark's level as the mean of its runs less their factors (the factors stay the
// polish's robust ones): the residuals about it are a variance's usual ones.
void mean_levels(std::span<const ModelInput> inputs, int runs, const std::vector<double>& factor, std::vector<double>& level) {
  for (std::size_t b = 0; b < inputs.size(); ++b) {
    const auto& v = inputs[b].baseline;
    const int have = std::min(static_cast<int>(v.size()), runs);
    if (have == 0) continue;
    double sum = 0;
    for (int j = runs - have; j < runs; ++j)
      sum += v[static_cast<std::size_t>(j - runs + static_cast<int>(v.size()))] - factor[static_cast<std::size_t>(j)];
    level[b] = sum / have;
  }
}

// The common variance t2 of the benchmarks' own run-to-run drift with one baseline run:
// own[b]^2 / (2 t2 + within[b]) is chi-square(1) for the unchanged benchmarks, so t2 is
// where the bulk's quantile of those ratios is the chi-square's.
double drift_across_benchmarks(std::span<const double> own, std::span<const double> within) {
  const auto bulk = bulk_quantile(own.size());
  // The benchmark at the median has an own change of exactly 0 by construction (the factor
  // is its shift): it says nothing of the spread, and one zero is left out.
  std::vector<std::size_t> informative;
  bool median_dropped = false;
  for (std::size_t b = 0; b < own.size(); ++b) {
    if (own[b] == 0 && !median_dropped) {
      median_dropped = true;
      continue;
    }
    informative.push_back(b);
  }
  if (informative.empty()) return 0;
  auto bulk_ratio = [&](double t2) {
    std::vector<double> ratios;
    for (std::size_t b : informative) ratios.push_back(own[b] * own[b] / std::max(2 * t2 + within[b], 1e-300));
    return quantile(ratios, bulk.p);
  };
  if (bulk_ratio(0) <= bulk.chi_square) return 0;
  double lo = 0, hi = 1e-6;
  while (bulk_ratio(hi) > bulk.chi_square && hi < 1e4) hi *= 4;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (bulk_ratio(mid) > bulk.chi_square ? lo : hi) = mid;
  }
  return hi;
}

// The heaviest-tailed Student t the standardised residuals z look like: the ratio of their
// 95th percentile (of |z|) to their robust scale, against the same ratio of t's of
// decreasing df (normal: 1). Heterogeneous drifts that a pooled variance misses look the
// same way, and get the same protection.
double tail_df(std::span<const double> z) {
  if (z.size() < 20) return std::numeric_limits<double>::infinity();
  std::vector<double> magnitude;
  for (double x : z) magnitude.push_back(std::fabs(x));
  const double scale = median(magnitude);
  if (!(scale > 0)) return std::numeric_limits<double>::infinity();
  const double observed = quantile(magnitude, 0.95) / scale;
  // Two steps heavier than the ratio says: a 95th percentile of a few dozen values is itself
  // uncertain, and too light a tail is what makes false alarms.
  constexpr double kCandidates[] = {60, 30, 20, 15, 10, 8, 6, 5, 4, 3};
  std::size_t i = 0;
  for (; i < std::size(kCandidates); ++i)
    if (observed <= student_t_quantile(0.975, kCandidates[i]) / student_t_quantile(0.75, kCandidates[i])) break;
  return i == 0 ? std::numeric_limits<double>::infinity() : kCandidates[std::min(i + 1, std::size(kCandidates) - 1)];
}

// Two or more baseline runs: each benchmark's residuals about its level and the runs'
// factors give its own variance, shrunk toward the suite's by Smyth's prior.
void fit_drift_from_runs(std::span<const ModelInput> inputs, int runs, const std::vector<double>& level,
                         const std::vector<double>& factor, NoiseModel& model) {
  const std::size_t n = inputs.size();
  // Residuals of the newest `runs` runs (a benchmark younger than some has fewer).
  std::vector<double> variances(n, 0), dfs(n, 0), counts(n, 0);
  std::vector<std::vector<double>> residuals(n);
  std::vector<double> pooled_v, pooled_df;
  for (std::size_t b = 0; b < n; ++b) {
    const auto& v = inputs[b].baseline;
    const int have = std::min(static_cast<int>(v.size()), runs);
    double ss = 0;
    for (int j = runs - have; j < runs; ++j) {
      const double e = v[static_cast<std::size_t>(j - runs + static_cast<int>(v.size()))] - level[b] -
                       factor[static_cast<std::size_t>(j)];
      ss += e * e;
      residuals[b].push_back(e);
    }
    counts[b] = have;
    if (have >= 2) {
      dfs[b] = have - 1;
      variances[b] = ss / dfs[b];
      pooled_v.push_back(variances[b]);
      pooled_df.push_back(dfs[b]);
    }
  }
  const auto prior = fit_variance_prior(pooled_v, pooled_df);
  const double total_df = std::accumulate(pooled_df.begin(), pooled_df.end(), 0.0);
  std::vector<double> moderated(n), z;
  for (std::size_t b = 0; b < n; ++b) {
    moderated[b] = std::max(dfs[b] > 0 ? moderated_variance(prior, variances[b], dfs[b]) : prior.variance, 1e-300);
    // Residuals about the level scaled to unit variance ((k - 1) / k of the runs' own).
    const double k = static_cast<double>(residuals[b].size());
    // The prior's variance, not the benchmark's own: a benchmark's own variance would
    // hide the tails (and the drifts unlike the rest) that its next run can show.
    if (dfs[b] > 0)
      for (double e : residuals[b]) z.push_back(e / std::sqrt(std::max(prior.variance, 1e-300) * (k - 1) / k));
  }
  const double tails = tail_df(z);
  for (std::size_t b = 0; b < n; ++b) {
    auto& fit = model.benchmarks[b];
    const double var = moderated[b];
    fit.df = std::clamp(std::min(std::isinf(prior.df) ? total_df : prior.df + dfs[b], tails), 1.0,
                        std::max(total_df, 1.0));
    // The current run's location varies as a baseline run's does; the baseline's level is
    // the mean of `counts` runs.
    fit.variance = std::max(var, inputs[b].floor) * (1 + 1 / std::max(counts[b], 1.0));
  }
}

// One baseline run: the suite's typical drift, from this comparison across the benchmarks,
// or the prior where there are too few of them.
void fit_drift_from_one_run(std::span<const ModelInput> inputs, const std::vector<double>& own, bool factors,
                            double drift_prior_sd, NoiseModel& model) {
  const std::size_t n = inputs.size();
  std::vector<double> within(n);
  for (std::size_t b = 0; b < n; ++b) within[b] = inputs[b].within;
  double drift = 0, df = 4;
  if (factors) {
    // One run cannot show a benchmark's own drift: the suite's typical one stands for it,
    // with at most 10 df, fewer where the suite's own changes have heavier tails (or
    // benchmarks that drift several times more than the typical one); under 20 benchmarks
    // n - 3 df at most, for a median of a handful of ratios is itself uncertain.
    drift = drift_across_benchmarks(own, within);
    std::vector<double> z;
    for (std::size_t b = 0; b < n; ++b) z.push_back(own[b] / std::sqrt(std::max(2 * drift + within[b], 1e-300)));
    df = n >= kMinBenchmarksForDriftAcross ? std::min(10.0, tail_df(z))
                                           : std::clamp(static_cast<double>(n) - 3, 2.0, 10.0);
  } else {
    drift = drift_prior_sd * drift_prior_sd;
    model.drift_from_prior = true;
  }
  for (std::size_t b = 0; b < n; ++b) {
    model.benchmarks[b].variance = 2 * std::max(drift, inputs[b].floor) + within[b];
    model.benchmarks[b].df = df;
  }
}

}  // namespace

RunLocation run_location(std::span<const double> seconds) {
  RunLocation r;
  if (seconds.empty()) return r;
  std::vector<double> logs;
  for (double s : seconds) logs.push_back(std::log(s));
  r.location = walsh_median(logs);
  std::vector<double> deviations;
  const double centre = median(logs);
  for (double x : logs) deviations.push_back(std::fabs(x - centre));
  const double scale = kMadToSd * median(deviations);
  // A quantised timer repeats values: its tick (the smallest gap between distinct values)
  // bounds how well one run's location is known, whatever the spread of the samples says.
  std::vector<double> sorted(seconds.begin(), seconds.end());
  std::sort(sorted.begin(), sorted.end());
  const auto distinct = static_cast<std::size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  if (distinct < seconds.size()) {
    double tick = distinct > 1 ? std::numeric_limits<double>::infinity() : 0;
    for (std::size_t i = 1; i < distinct; ++i) tick = std::min(tick, sorted[i] - sorted[i - 1]);
    // All samples equal: the tick is unknown but no finer than the value's last 1% step.
    if (distinct == 1) tick = 0.01 * sorted[0];
    const double relative = tick / std::exp(centre);
    r.floor = relative * relative / 12;
  }
  // The Hodges-Lehmann centre's variance on normal noise is (pi / 3) sigma^2 / n.
  r.variance = std::max(std::numbers::pi / 3 * scale * scale / static_cast<double>(logs.size()), r.floor);
  return r;
}

NoiseModel fit_noise_model(std::span<const ModelInput> inputs, int runs, double drift_prior_sd) {
  NoiseModel model;
  const std::size_t n = inputs.size();
  model.benchmarks.resize(n);
  model.suite.baseline_runs = runs;
  if (n == 0) return model;
  const bool factors = n >= kMinBenchmarksForRunFactor;
  std::vector<double> level, factor;
  median_polish(inputs, std::max(runs, 1), factors && runs >= 2, level, factor);
  if (runs >= 2) mean_levels(inputs, runs, factor, level);

  std::vector<double> shift(n), own(n);
  for (std::size_t b = 0; b < n; ++b) shift[b] = inputs[b].current - level[b];
  model.suite.estimated = factors;
  model.suite.shift = factors ? median(shift) : 0;
  for (std::size_t b = 0; b < n; ++b) own[b] = shift[b] - model.suite.shift;
  if (runs >= 2) model.suite.run_spread = sample_stddev(factor);

  if (runs >= 2) fit_drift_from_runs(inputs, runs, level, factor, model);
  else fit_drift_from_one_run(inputs, own, factors, drift_prior_sd, model);
  if (factors && runs >= 2) {
    // The empirical null (Efron 2004): the unchanged majority's own changes should look like
    // the model's noise. A run the baseline's calm runs never showed (a machine loaded for
    // part of the run: benchmarks 2x to 10x apart) spreads them wider; the bulk's robust
    // scale (bulk_quantile) then widens every benchmark's variance, never narrows it.
    std::vector<double> z;
    for (std::size_t b = 0; b < n; ++b) z.push_back(own[b] * own[b] / model.benchmarks[b].variance);
    const auto bulk = bulk_quantile(n);
    model.run_overdispersion = std::max(1.0, quantile(z, bulk.p) / bulk.chi_square);
    for (auto& f : model.benchmarks) f.variance *= model.run_overdispersion;
  }
  if (factors) {
    // The factor is a median of the shifts: (pi / 2) of a mean's variance.
    std::vector<double> v;
    for (const auto& f : model.benchmarks) v.push_back(f.variance);
    model.suite.variance = std::numbers::pi / 2 * median(v) / static_cast<double>(n);
    for (auto& f : model.benchmarks) f.variance += model.suite.variance;
  }
  for (std::size_t b = 0; b < n; ++b) model.benchmarks[b].own = own[b];
  return model;
}

}  // namespace rooftop
