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
constexpr double kMadToSd = 1.4826;
// The tails' likelihood slack with 2 to 4 baseline runs (chosen by the calibration,
// docs/gate.md: 0.5 let Student t 3 df drift FAIL 5% of A/A suites, 2 cost a tenth of the
// quiet power): the heaviest Student t within 1.5 log units of the best fit.
constexpr double kTailSlackFewRuns = 1.5;
// The one-sided normal quantile of the run's overdispersion's lower bound (80%), with 5 or
// more baseline runs.
constexpr double kOverdispersionZ = 0.8416;
// A load's slowdown, not a commit's: a machine loaded for part of a run slows what it
// touches by 1.5x and more; a commit's regressions of 5-20% in a quarter of a suite are
// for the gate to FAIL. With baseline runs only changes beyond 25% count as the outliers of
// `outlier_share`.
const double kLoadSizedChange = std::log(1.25);

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

// With baseline runs, each benchmark's shift is known to within its own variance: the quiet
// ones tell the run's factor far better than the noisy ones (an H200's GEMMs span 0.2% to 3%
// night to night). The factor is the minimum of a sum of Tukey's biweight losses of the
// shifts in units of their own sds (c = 4.685, 95% efficient on normal noise), found by a
// search over every shift as a start and refined by reweighting. Each benchmark's loss is
// bounded, so the factor is the one that most benchmarks agree on, whatever their weights: a
// third of a suite regressing together cannot move it (an unweighted median moved +1% with 4
// of the H200's 18 GEMMs at +5%, 4 sds of the quiet ones). Its variance is the inliers'
// precision-weighted mean's (less the biweight's 95% efficiency) or the sandwich's, the larger.
constexpr double kBiweightC = 4.685;
struct WeightedCentre {
  double centre = 0, variance = 0;
};
WeightedCentre precision_weighted_centre(std::span<const double> values, std::span<const double> variances) {
  const std::size_t n = values.size();
  std::vector<double> sd(n);
  const double typical = median(std::vector<double>(variances.begin(), variances.end()));
  for (std::size_t b = 0; b < n; ++b) sd[b] = std::sqrt(std::max(variances[b], std::max(typical / 100, 1e-300)));
  const auto loss = [&](double c) {
    double sum = 0;
    for (std::size_t b = 0; b < n; ++b) {
      const double u = std::min(std::fabs(values[b] - c) / (sd[b] * kBiweightC), 1.0), v = 1 - u * u;
      sum += 1 - v * v * v;
    }
    return sum;
  };
  double best = values[0], best_loss = loss(best);
  for (double c : values)
    if (const double l = loss(c); l < best_loss) best = c, best_loss = l;
  double centre = best;
  for (int i = 0; i < 50; ++i) {  // iteratively reweighted least squares from the best start
    double num = 0, den = 0;
    for (std::size_t b = 0; b < n; ++b) {
      const double u = (values[b] - centre) / (sd[b] * kBiweightC);
      if (std::fabs(u) >= 1) continue;
      const double w = (1 - u * u) * (1 - u * u) / (sd[b] * sd[b]);
      num += w * values[b];
      den += w;
    }
    if (!(den > 0)) break;
    const double next = num / den;
    if (std::fabs(next - centre) < 1e-12) break;
    centre = next;
  }
  WeightedCentre out;
  out.centre = loss(centre) <= best_loss ? centre : best;
  // The variance: the model's (the inliers' precision, less the biweight's 95% efficiency)
  // or the sandwich's from the shifts' own scatter about the centre, the larger. A few runs'
  // variances are themselves uncertain: a benchmark whose runs agreed by chance weighs more
  // than it should, and the scatter shows it.
  double precision = 0, score = 0, slope = 0;
  for (std::size_t b = 0; b < n; ++b) {
    const double r = (values[b] - out.centre) / sd[b], u = r / kBiweightC;
    if (std::fabs(u) >= 1) continue;
    precision += 1 / (sd[b] * sd[b]);
    const double psi = r * (1 - u * u) * (1 - u * u), dpsi = (1 - u * u) * (1 - 5 * u * u);
    score += psi * psi / (sd[b] * sd[b]);
    slope += dpsi / (sd[b] * sd[b]);
  }
  const double model = precision > 0 ? 1 / (0.95 * precision) : typical;
  out.variance = slope > 0 ? std::max(model, score / (slope * slope)) : model;
  return out;
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

constexpr double kTailCandidates[] = {std::numeric_limits<double>::infinity(), 60, 30, 20, 15, 10, 8, 6, 5, 4, 3};

// The Student t's that the standardised residuals z look like: each candidate df's profile
// log likelihood (the scale free), over a grid from 3 to normal. Under 20 residuals (a suite
// of a few benchmarks) the tails cannot be seen: they are taken as heavy (4 df), as a
// machine's shared jumps make them.
struct TailFit {
  std::vector<double> df, log_likelihood;
};
TailFit fit_tails(std::span<const double> z) {
  if (z.size() < 20) return {{4}, {0}};
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
  if (!std::isfinite(centre) || median(magnitude) <= 0) return {{std::numeric_limits<double>::infinity()}, {0}};
  TailFit fit;
  for (double df : kTailCandidates) {
    double a = centre - 3, b = centre + 3;  // golden section on the log scale
    for (int i = 0; i < 60 && b - a > 1e-6; ++i) {
      const double c = b - 0.618034 * (b - a), d = a + 0.618034 * (b - a);
      if (log_likelihood(df, c) > log_likelihood(df, d)) b = d;
      else a = c;
    }
    fit.df.push_back(df);
    fit.log_likelihood.push_back(log_likelihood(df, 0.5 * (a + b)));
  }
  return fit;
}

// The df of the best fit, or (slack > 0) the heaviest whose likelihood lies within `slack`
// log units of the best: a likelihood interval's conservative end. (One baseline run takes
// the best fit: a ratio of percentiles of a few dozen values told normal noise from a Student
// t of 3 df too rarely, the likelihood does.)
double tail_df(std::span<const double> z, double slack) {
  const auto fit = fit_tails(z);
  const double top = *std::max_element(fit.log_likelihood.begin(), fit.log_likelihood.end());
  std::size_t heaviest = 0;  // the candidates run from normal to 3 df
  for (std::size_t i = 0; i < fit.df.size(); ++i)
    if (fit.log_likelihood[i] >= top - slack) heaviest = i;
  return fit.df[heaviest];
}

// With 5 or more baseline runs, the tails as a posterior over the candidates (each weighed
// by its likelihood, the candidates' grid the prior): a test's p averages over what the
// residuals leave open. The heaviest df within 1.5 log units of the best instead counted a t
// of 3 df whole where the residuals gave it a quarter of the weight: a real H200 kernel's 5%
// change, 7 to 10 of its sds, read p 0.001-0.005, not a discovery among 18. With 3 or 4 runs
// each residual's leave-one-out prediction rests on 1 or 2 df, whose own uncertainty hides
// heavy tails from the fit: there the posterior let Student t 3 df drift FAIL 6% of A/A
// suites (3 runs), and the conservative end (kTailSlackFewRuns) holds it to 1%.
inline constexpr int kMinRunsForTailPosterior = 5;
void tail_posterior(std::span<const double> z, std::vector<double>& df, std::vector<double>& weight) {
  const auto fit = fit_tails(z);
  const double top = *std::max_element(fit.log_likelihood.begin(), fit.log_likelihood.end());
  df.clear();
  weight.clear();
  double total = 0;
  for (std::size_t i = 0; i < fit.df.size(); ++i) {
    const double w = std::exp(fit.log_likelihood[i] - top);
    if (w < 1e-4) continue;  // a thousandth of the best fit's weight: no part of any p
    df.push_back(fit.df[i]);
    weight.push_back(w);
    total += w;
  }
  for (double& w : weight) w /= total;
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
  std::vector<double> tail_dfs{0}, tail_weights{1};
  if (runs >= kMinRunsForTailPosterior) tail_posterior(z, tail_dfs, tail_weights);
  else tail_dfs[0] = tail_df(z, kTailSlackFewRuns);
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
    fit.tail_df = tail_dfs;
    fit.tail_weight = tail_weights;
    fit.df = tail_dfs[static_cast<std::size_t>(std::max_element(tail_weights.begin(), tail_weights.end()) -
                                                tail_weights.begin())];
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

namespace {

// P(T > t) for the tails' candidates (kTailCandidates), from a table of its log on a fine grid
// of t (built once): a gate asks it for every benchmark, every component of its posterior
// over the suite's variances and every candidate, and the incomplete beta took most of a
// gate's time. Linear in log P between points 0.005 apart: relative error under 1e-5.
constexpr double kTableStep = 0.005, kTableEnd = 40;
double candidate_upper_tail(double t, double df) {
  if (std::isinf(df)) return 0.5 * std::erfc(t / std::numbers::sqrt2);
  if (t < 0) return 1 - candidate_upper_tail(-t, df);
  const auto* it = std::find(std::begin(kTailCandidates), std::end(kTailCandidates), df);
  if (it == std::end(kTailCandidates) || t >= kTableEnd) return student_t_cdf(-t, df);
  static const auto tables = [] {
    std::vector<std::vector<double>> out;
    const int points = static_cast<int>(kTableEnd / kTableStep) + 1;
    for (double candidate : kTailCandidates) {
      std::vector<double> logs(static_cast<std::size_t>(points));
      if (!std::isinf(candidate))
        for (int i = 0; i < points; ++i)
          logs[static_cast<std::size_t>(i)] = std::log(student_t_cdf(-i * kTableStep, candidate));
      out.push_back(std::move(logs));
    }
    return out;
  }();
  const auto& logs = tables[static_cast<std::size_t>(it - std::begin(kTailCandidates))];
  const double x = t / kTableStep;
  const auto i = static_cast<std::size_t>(x);
  const double f = x - static_cast<double>(i);
  return std::exp(logs[i] * (1 - f) + logs[i + 1] * f);
}

}  // namespace

double standard_upper_tail(const ModelFit& fit, double t) {
  const auto one = [&](double df) { return candidate_upper_tail(t, df); };
  if (fit.tail_df.empty()) return one(fit.df);
  double p = 0;
  for (std::size_t i = 0; i < fit.tail_df.size(); ++i) p += fit.tail_weight[i] * one(fit.tail_df[i]);
  return p;
}

double noise_upper_tail(const ModelFit& fit, double x) {
  const auto tail = [&](double t) { return standard_upper_tail(fit, t); };
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
  // With baseline runs each benchmark's variance is known before the current run is looked
  // at, and weighs its shift in the factor; with one, the factor comes first.
  std::vector<double> shift_variance;
  if (runs >= 2) {
    model.suite.run_spread = sample_stddev(factor);
    fit_drift_from_runs(inputs, runs, level, factor, model);
    for (const auto& f : model.benchmarks) shift_variance.push_back(f.variance);
  }
  const auto weighted = factors && runs >= 2 ? precision_weighted_centre(shift, shift_variance) : WeightedCentre{};
  model.suite.shift = !factors ? 0 : runs >= 2 ? weighted.centre : robust_centre(shift);
  for (std::size_t b = 0; b < n; ++b) own[b] = shift[b] - model.suite.shift;
  if (runs < 2) fit_drift_from_one_run(inputs, own, factors, drift_prior_sd, model);
  if (factors && runs >= 2) {
    // The empirical null (Efron 2004): the unchanged majority's own changes should look like
    // the model's noise. A run noisier throughout than the baseline's calm runs spreads them
    // wider, and its scale widens every benchmark's variance, never narrows it. Read twice,
    // each with no help from the regressions: the bulk (the median of the ratios, those
    // beyond kOutlierRatio left out), and the benchmarks that ran faster (a regression is a
    // slowdown; a run four times as noisy puts half the bulk beyond kOutlierRatio, and its
    // faster half still shows it). A load that slows part of a suite a lot looks like a
    // regression of that part in one run: the nightly's re-run (`gate --confirm`) tells them
    // apart.
    std::vector<double> bulk, faster;
    for (std::size_t b = 0; b < n; ++b) {
      const double ratio = own[b] * own[b] / model.benchmarks[b].variance;
      if (ratio <= kOutlierRatio) bulk.push_back(ratio);
      if (own[b] < 0) faster.push_back(ratio);
    }
    // The median of m chi-square ratios scatters by about 2.33 / sqrt(m) in its log (0.62
    // for 14 benchmarks): an unchanged run would read x1.7 one time in five. With 5 or more
    // baseline runs the widening is the estimate's lower 80% bound, so that chance alone
    // seldom widens a calm run's noise (the point estimate widened real H200 nights 1.4-2x:
    // 5% in 4 of 18 FAILed 91% of nights at 5 runs, 95% with the bound). With 2 to 4 the point
    // estimate: its widening also covers the tails so few runs cannot show (with the bound,
    // Student t 3 df drift FAILed 4% of A/A suites at 2 runs, 1.5% without).
    // The faster half's reading always takes its lower bound: it is the second of two, and
    // the larger of two point estimates widens by chance (5% at CV 1% caught 94% with 3
    // runs, 97% without it).
    const auto lower_bound = [](const std::vector<double>& ratios, double z) {
      const double scatter = 2.333 / std::sqrt(static_cast<double>(ratios.size()));
      return median(ratios) / kChiSquareMedian * std::exp(-z * scatter);
    };
    const double bulk_z = runs >= kMinRunsForTailPosterior ? kOverdispersionZ : 0;
    if (bulk.size() * 2 >= n) model.run_overdispersion = std::max(1.0, lower_bound(bulk, bulk_z));
    if (faster.size() * 4 >= n) {
      model.faster_overdispersion = std::max(1.0, lower_bound(faster, kOverdispersionZ));
      model.run_overdispersion = std::max(model.run_overdispersion, model.faster_overdispersion);
    }
    for (auto& f : model.benchmarks) {
      f.variance *= model.run_overdispersion;
      for (auto& component : f.mix_variance) component *= model.run_overdispersion;
      for (auto& component : f.prior_component_variance) component *= model.run_overdispersion;
    }
  }
  if (factors) {
    // One run: the factor is a median of the shifts, (pi / 2) of a mean's variance. With
    // runs, the weighted centre's, widened as the benchmarks' were.
    std::vector<double> v;
    for (const auto& f : model.benchmarks) v.push_back(f.variance);
    model.suite.variance = runs >= 2 ? weighted.variance * model.run_overdispersion
                                     : std::numbers::pi / 2 * median(v) / static_cast<double>(n);
    for (auto& f : model.benchmarks) {
      f.variance += model.suite.variance;
      for (auto& component : f.mix_variance) component += model.suite.variance;
      for (auto& component : f.prior_component_variance) component += model.suite.variance;
    }
  }
  std::size_t outliers = 0;
  for (std::size_t b = 0; b < n; ++b) {
    model.benchmarks[b].own = own[b];
    // With one baseline run the drift is read across the benchmarks: outliers of any size
    // say the run is unlike the baseline's.
    outliers += own[b] * own[b] > kOutlierRatio * model.benchmarks[b].variance &&
                (runs < 2 || std::fabs(own[b]) > kLoadSizedChange);
  }
  model.outlier_share = static_cast<double>(outliers) / static_cast<double>(n);
  return model;
}

}  // namespace rooftop
