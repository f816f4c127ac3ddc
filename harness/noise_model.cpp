#include "harness/noise_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "harness/gate_statistics.hpp"
#include "harness/variance_grid.hpp"
#include "harness/special_functions.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

// The bulk's scale is read at the median of the benchmarks' squared standardised changes
// (a chi-square of 1 df's median: 0.454936), then again without those beyond
// kOutlierRatio: a high-breakdown estimate (50%, the median's) that the changes themselves
// do not move. A third of a suite regressing moves a plain median to the 75th percentile of
// the unchanged ones; a 90th percentile, to the regressions.
constexpr double kChiSquareMedian = 0.454936;
// A squared standardised change beyond 16 (4 sd) is no part of the bulk: one in 15,000 of a
// normal bulk's, one in 50 of a Student t's of 3 df.
constexpr double kOutlierRatio = 16;
// The tails' likelihood slack with baseline runs (chosen by the calibration, docs/gate.md:
// 0.5 let Student t 3 df drift FAIL 5% of A/A suites, 2 cost a tenth of the quiet power):
// the heaviest Student t within 1.5 log units of the best fit. With one baseline run the
// best fit itself, at most 10 df.
constexpr double kTailSlackRuns = 1.5;
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

// The centre of a suite's shifts that a minority moving one way cannot pull: the median of
// the values within 4 robust sds of the densest half's midpoint (the shorth: Rousseeuw's
// least median of squares location, 50% breakdown). A plain median leans toward a third
// of a suite that regressed; the shorth alone is a poor estimator (n^-1/3), the median of
// the values it keeps a good one.
double robust_centre(std::span<const double> values) {
  std::vector<double> x(values.begin(), values.end());
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size(), h = n / 2 + 1;
  if (n < 3) return median(x);
  std::size_t best = 0;
  // Among equally short halves, the one nearest the middle.
  const auto off = [&](std::size_t j) { return std::fabs(double(j) - double(n - h) / 2); };
  for (std::size_t i = 1; i + h <= n; ++i) {
    const double width = x[i + h - 1] - x[i], best_width = x[best + h - 1] - x[best];
    if (width < best_width || (width == best_width && off(i) < off(best))) best = i;
  }
  const double mid = 0.5 * (x[best] + x[best + h - 1]);
  // The shortest half of a normal sample spans 1.349 sd.
  const double sd = (x[best + h - 1] - x[best]) / 1.349;
  std::vector<double> kept;
  for (double v : x)
    if (std::fabs(v - mid) <= 4 * sd) kept.push_back(v);
  return kept.empty() ? mid : median(kept);
}

// The t2 at which the median of ratio(b, t2) over `members` is a chi-square's median;
// `ratio` falls as t2 grows.
template <typename Ratio>
double solve_bulk(const std::vector<std::size_t>& members, Ratio ratio) {
  auto bulk_ratio = [&](double t2) {
    std::vector<double> ratios;
    for (std::size_t b : members) ratios.push_back(ratio(b, t2));
    return median(ratios);
  };
  if (members.empty() || bulk_ratio(0) <= kChiSquareMedian) return 0;
  double lo = 0, hi = 1e-6;
  while (bulk_ratio(hi) > kChiSquareMedian && hi < 1e4) hi *= 4;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (bulk_ratio(mid) > kChiSquareMedian ? lo : hi) = mid;
  }
  return hi;
}

// The common variance t2 of the benchmarks' own run-to-run drift with one baseline run:
// own[b]^2 / (2 t2 + within[b]) is chi-square(1) for the unchanged benchmarks, so t2 is
// where their median is the chi-square's; found twice, the second time without the
// benchmarks the first fit calls outliers (the changed ones). `bulk` gets the members.
double drift_across_benchmarks(std::span<const double> own, std::span<const double> within,
                               std::vector<std::size_t>& bulk) {
  // The benchmark at the centre can have an own change of exactly 0 by construction (the
  // factor is its shift): it says nothing of the spread, and one zero is left out.
  std::vector<std::size_t> informative;
  bool centre_dropped = false;
  for (std::size_t b = 0; b < own.size(); ++b) {
    if (own[b] == 0 && !centre_dropped) {
      centre_dropped = true;
      continue;
    }
    informative.push_back(b);
  }
  const auto ratio = [&](std::size_t b, double t2) { return own[b] * own[b] / std::max(2 * t2 + within[b], 1e-300); };
  double t2 = solve_bulk(informative, ratio);
  bulk = informative;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<std::size_t> kept;
    for (std::size_t b : informative)
      if (ratio(b, t2) <= kOutlierRatio) kept.push_back(b);
    if (kept.size() == bulk.size() || kept.size() * 2 < informative.size()) break;
    bulk = kept;
    t2 = solve_bulk(bulk, ratio);
  }
  return t2;
}

// The Student t that the standardised residuals z look like, its df fitted by maximum
// likelihood (the scale free) over a grid from 3 to normal, and then the heaviest df whose
// likelihood lies within `slack` log units of the best (0: the best fit itself; a
// likelihood interval's conservative end): a ratio of percentiles of a few dozen values told normal noise from a
// Student t of 3 df too rarely, and a t of 3 df makes a test that finds nothing. Benchmarks
// that drift several times more than the rest look the same way and get the same
// protection.
double tail_df(std::span<const double> z, double slack) {
  // Under 20 residuals (a suite of a few benchmarks) the tails cannot be seen: assume them
  // heavy, as a machine's shared jumps make them.
  if (z.size() < 20) return 4;
  constexpr double kCandidates[] = {std::numeric_limits<double>::infinity(), 60, 30, 20, 15, 10, 8, 6, 5, 4, 3};
  const auto log_likelihood = [&](double df, double log_scale) {
    const double scale = std::exp(log_scale);
    double sum = 0;
    for (double x : z) {
      const double u = x / scale;
      sum += std::isinf(df) ? -0.5 * u * u : -0.5 * (df + 1) * std::log1p(u * u / df);
    }
    const double norm = std::isinf(df) ? -0.5 * std::log(2 * std::numbers::pi)
                                       : std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * std::numbers::pi);
    return sum + static_cast<double>(z.size()) * (norm - log_scale);
  };
  std::vector<double> magnitude;
  for (double x : z) magnitude.push_back(std::fabs(x));
  const double centre = std::log(std::max(median(magnitude), 1e-300));
  if (!std::isfinite(centre) || median(magnitude) <= 0) return std::numeric_limits<double>::infinity();
  std::vector<double> best;
  for (double df : kCandidates) {
    double a = centre - 3, b = centre + 3;  // golden section on the log scale
    for (int i = 0; i < 60 && b - a > 1e-6; ++i) {
      const double c = b - 0.618034 * (b - a), d = a + 0.618034 * (b - a);
      if (log_likelihood(df, c) > log_likelihood(df, d)) b = d;
      else a = c;
    }
    best.push_back(log_likelihood(df, 0.5 * (a + b)));
  }
  const double top = *std::max_element(best.begin(), best.end());
  std::size_t heaviest = 0;
  for (std::size_t i = 0; i < best.size(); ++i)
    if (best[i] >= top - slack) heaviest = i;
  return kCandidates[heaviest];
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// Two or more baseline runs: each benchmark's residuals about its level and the runs'
// factors give its sample variance; its run-to-run variance is the posterior over the
// suite's grid of variances given it.
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
  // Identical medians (a zero variance) have no likelihood to speak of: floored far below
  // any benchmark's own spread, as limma floors them.
  const double floor = std::max(1e-5 * (pooled_v.empty() ? 0.0 : median(pooled_v)), 1e-14);
  const auto grid = fit_variance_grid(pooled_v, pooled_df, floor);
  // The tails beyond the model: each run against the others (a leave-one-out prediction,
  // as the next run will be), its probability under the posterior predictive mapped to a
  // normal score. Where the model holds the scores are normal; heavier tails show.
  std::vector<double> z;
  for (std::size_t b = 0; b < n; ++b) {
    const auto& e = residuals[b];
    const std::size_t k = e.size();
    if (k < 2) continue;
    for (std::size_t j = 0; j < k; ++j) {
      double sum = 0, ss = 0;
      for (std::size_t i = 0; i < k; ++i)
        if (i != j) sum += e[i];
      const double centre = sum / static_cast<double>(k - 1);
      for (std::size_t i = 0; i < k; ++i)
        if (i != j) ss += (e[i] - centre) * (e[i] - centre);
      // Two runs leave one to predict from: the suite's grid alone (its marginal).
      const auto w = k >= 3 ? posterior_weights(grid, ss / static_cast<double>(k - 2), static_cast<double>(k - 2), floor)
                            : grid.weight;
      double u = 0;
      for (std::size_t i = 0; i < w.size(); ++i)
        u += w[i] * normal_cdf((e[j] - centre) / std::sqrt(grid.variance[i] * (1 + 1.0 / static_cast<double>(k - 1))));
      z.push_back(normal_quantile(std::clamp(u, 1e-12, 1 - 1e-12)));
    }
  }
  const double tails = tail_df(z, kTailSlackRuns);
  model.grid_variance = grid.variance;
  const auto smooth = fit_lognormal_grid(grid, pooled_v, pooled_df, floor);
  model.grid_weight = smooth.weight;
  model.grid_log_sd = smooth.log_sd;
  model.grid_floor = floor;
  for (std::size_t b = 0; b < n; ++b) {
    auto& fit = model.benchmarks[b];
    fit.own_s2 = variances[b];
    fit.own_df = dfs[b];
    fit.prior_component_variance.clear();
    for (double v : grid.variance)
      fit.prior_component_variance.push_back(std::max(v, inputs[b].floor) * (1 + 1 / std::max(counts[b], 1.0)));
    const auto w = dfs[b] > 0 ? posterior_weights(grid, variances[b], dfs[b], floor) : grid.weight;
    fit.df = tails;
    fit.mix_weight.clear();
    fit.mix_variance.clear();
    fit.variance = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (w[i] < 1e-12) continue;
      // The current run's location varies as a baseline run's does; the baseline's level is
      // the mean of `counts` runs.
      const double v = std::max(grid.variance[i], inputs[b].floor) * (1 + 1 / std::max(counts[b], 1.0));
      fit.mix_weight.push_back(w[i]);
      fit.mix_variance.push_back(v);
      fit.variance += w[i] * v;
    }
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
    std::vector<std::size_t> bulk;
    drift = drift_across_benchmarks(own, within, bulk);
    // The tails are the bulk's: the changed benchmarks are what the test is for.
    std::vector<double> z;
    for (std::size_t b : bulk) z.push_back(own[b] / std::sqrt(std::max(2 * drift + within[b], 1e-300)));
    df = n >= kMinBenchmarksForDriftAcross ? std::min(10.0, tail_df(z, 0))
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

double timer_tick(std::span<const double> seconds) {
  std::vector<double> sorted(seconds.begin(), seconds.end());
  std::sort(sorted.begin(), sorted.end());
  const auto distinct = static_cast<std::size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  if (distinct == seconds.size() || distinct < 2) return 0;
  double tick = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < distinct; ++i) tick = std::min(tick, sorted[i] - sorted[i - 1]);
  return tick;
}

double noise_upper_tail(const ModelFit& fit, double x) {
  const auto tail = [&](double t) { return std::isinf(fit.df) ? 0.5 * std::erfc(t / std::numbers::sqrt2) : student_t_cdf(-t, fit.df); };
  if (fit.mix_variance.empty()) return fit.variance > 0 ? tail(x / std::sqrt(fit.variance)) : (x < 0 ? 1.0 : 0.0);
  double p = 0;
  for (std::size_t i = 0; i < fit.mix_variance.size(); ++i) p += fit.mix_weight[i] * tail(x / std::sqrt(fit.mix_variance[i]));
  return p;
}

double noise_quantile(const ModelFit& fit, double p) {
  // Bisection on the upper tail, which falls as x grows.
  double hi = std::sqrt(std::max(fit.variance, 1e-300));
  while (noise_upper_tail(fit, hi) > 1 - p && hi < 1e6) hi *= 2;
  double lo = -hi;
  while (noise_upper_tail(fit, lo) < 1 - p && lo > -1e6) lo *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::fabs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (noise_upper_tail(fit, mid) > 1 - p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

RunLocation run_location(std::span<const double> seconds, double known_tick) {
  RunLocation r;
  if (seconds.empty()) return r;
  std::vector<double> logs;
  for (double s : seconds) logs.push_back(std::log(s));
  r.location = walsh_median(logs);
  std::vector<double> deviations;
  const double centre = median(logs);
  for (double x : logs) deviations.push_back(std::fabs(x - centre));
  const double scale = kMadToSd * median(deviations);
  // A quantised timer repeats values: its tick bounds how well one run's location is known,
  // whatever the spread of the samples says. All samples equal show no tick: the one the
  // benchmark's other values show, else no finer than the value's last 1% step.
  const bool all_equal = std::all_of(seconds.begin(), seconds.end(), [&](double s) { return s == seconds[0]; });
  const double tick = !all_equal ? timer_tick(seconds) : known_tick > 0 ? known_tick : 0.01 * seconds[0];
  if (tick > 0) {
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
  model.suite.shift = factors ? robust_centre(shift) : 0;
  for (std::size_t b = 0; b < n; ++b) own[b] = shift[b] - model.suite.shift;
  if (runs >= 2) model.suite.run_spread = sample_stddev(factor);

  if (runs >= 2) fit_drift_from_runs(inputs, runs, level, factor, model);
  else fit_drift_from_one_run(inputs, own, factors, drift_prior_sd, model);
  if (factors && runs >= 2) {
    // The empirical null (Efron 2004): the unchanged majority's own changes should look like
    // the model's noise. A run noisier throughout than the baseline's calm runs spreads them
    // wider; the bulk's robust scale (the median of the ratios, the changed benchmarks beyond
    // kOutlierRatio left out) then widens every benchmark's variance, never narrows it. A
    // load that slows part of a suite a lot looks like a regression of that part in one run:
    // the nightly's re-run (`gate --confirm`) tells them apart.
    std::vector<double> z;
    for (std::size_t b = 0; b < n; ++b) {
      const double ratio = own[b] * own[b] / model.benchmarks[b].variance;
      if (ratio <= kOutlierRatio) z.push_back(ratio);
    }
    if (z.size() * 2 >= n) model.run_overdispersion = std::max(1.0, median(z) / kChiSquareMedian);
    for (auto& f : model.benchmarks) {
      f.variance *= model.run_overdispersion;
      for (auto& component : f.mix_variance) component *= model.run_overdispersion;
      for (auto& component : f.prior_component_variance) component *= model.run_overdispersion;
    }
  }
  if (factors) {
    // The factor is a median of the shifts: (pi / 2) of a mean's variance.
    std::vector<double> v;
    for (const auto& f : model.benchmarks) v.push_back(f.variance);
    model.suite.variance = std::numbers::pi / 2 * median(v) / static_cast<double>(n);
    for (auto& f : model.benchmarks) {
      f.variance += model.suite.variance;
      for (auto& component : f.mix_variance) component += model.suite.variance;
      for (auto& component : f.prior_component_variance) component += model.suite.variance;
    }
  }
  std::size_t outliers = 0;
  for (std::size_t b = 0; b < n; ++b) {
    model.benchmarks[b].own = own[b];
    outliers += own[b] * own[b] > kOutlierRatio * model.benchmarks[b].variance;
  }
  model.outlier_share = static_cast<double>(outliers) / static_cast<double>(n);
  return model;
}

}  // namespace rooftop
