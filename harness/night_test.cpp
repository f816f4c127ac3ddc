#include "harness/night_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "harness/variance_grid.hpp"

namespace rooftop {
namespace {

// The alternative's slowdown in units of tau, as the population p's (harness/discovery_test.hpp).
constexpr double kAlternative = 5.0 / 3;
// Simulated benchmarks (the pool) and nights drawn from it: the p's Monte Carlo error is
// about 0.0016 at 0.01.
constexpr int kPoolDraws = 4000, kNullNights = 10000;
constexpr std::uint64_t kSeed = 51;

// One benchmark as the test sees it: its components' variances of the change and its weights.
struct Components {
  std::vector<double> weight, variance;
};

Components components(const NoiseModel& model, const ModelFit& fit, double s2, double df) {
  const VarianceGrid grid{model.grid_variance, model.grid_weight};
  const auto w = df > 0 ? posterior_weights(grid, s2, df, model.grid_floor) : model.grid_weight;
  Components c;
  for (std::size_t g = 0; g < w.size(); ++g)
    if (w[g] > 1e-12) {
      c.weight.push_back(w[g]);
      c.variance.push_back(fit.prior_component_variance[g]);
    }
  return c;
}

// log of the one-sided ratio: a slowdown of delta against none, at change d.
double log_ratio(const Components& c, double d, double delta) {
  double top_a = -std::numeric_limits<double>::infinity(), top_b = top_a;
  std::vector<double> a(c.weight.size()), b(c.weight.size());
  for (std::size_t i = 0; i < c.weight.size(); ++i) {
    const double base = std::log(c.weight[i]) - 0.5 * std::log(c.variance[i]), e = d - delta;
    top_a = std::max(top_a, a[i] = base - e * e / (2 * c.variance[i]));
    top_b = std::max(top_b, b[i] = base - d * d / (2 * c.variance[i]));
  }
  double sa = 0, sb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sa += std::exp(a[i] - top_a);
    sb += std::exp(b[i] - top_b);
  }
  return top_a + std::log(sa) - top_b - std::log(sb);
}

// The ratio's running maximum over slowdowns up to d, so that a larger slowdown never counts
// as less of one (past the alternative the noisier components take over and the ratio dips).
// Looked at around the alternative, where the peak is, and along the way to d.
double log_ratio_rising(const Components& c, double d, double delta) {
  double best = log_ratio(c, d, delta);
  if (d <= 0) return best;
  for (int k = 1; k <= 24; ++k) {
    const double x = delta * k / 8;
    if (x >= d) break;
    best = std::max(best, log_ratio(c, x, delta));
  }
  for (int k = 1; k < 16; ++k) best = std::max(best, log_ratio(c, d * k / 16, delta));
  return best;
}

double night_term(double log_lr) {
  // log(1 - pi + pi LR), without overflow for a large ratio.
  const double a = std::log1p(-kNightSlowedShare), b = std::log(kNightSlowedShare) + log_lr;
  return std::max(a, b) + std::log1p(std::exp(-std::fabs(a - b)));
}

}  // namespace

NightTest night_test(const NoiseModel& widened, const std::vector<double>& taus, double alpha) {
  NightTest out;
  // The run's widening as its faster benchmarks read it: the bulk's reading takes in the
  // slowdowns this test looks for (5% in 4 of 18 widened an H200 night 1.5-2.4x).
  NoiseModel model = widened;
  const double narrowing = model.faster_overdispersion / model.run_overdispersion;
  for (auto& f : model.benchmarks)
    for (auto& v : f.prior_component_variance) v *= narrowing;
  const std::size_t n = model.benchmarks.size();
  if (n == 0 || model.grid_weight.empty()) return out;
  std::vector<double> log_lr(n);
  for (std::size_t b = 0; b < n; ++b) {
    const auto& fit = model.benchmarks[b];
    log_lr[b] = log_ratio_rising(components(model, fit, fit.own_s2, fit.own_df), fit.own, kAlternative * taus[b]);
    out.statistic += night_term(log_lr[b]);
    const double odds = std::log(kNightSlowedShare) - std::log1p(-kNightSlowedShare) + log_lr[b];
    out.slowed.push_back(1 / (1 + std::exp(-odds)));
  }
  // The null: benchmarks drawn from the suite, each with its own components and tails.
  std::mt19937_64 rng(kSeed);
  std::discrete_distribution<std::size_t> grid_point(model.grid_weight.begin(), model.grid_weight.end());
  std::uniform_int_distribution<std::size_t> benchmark(0, n - 1);
  std::vector<double> pool;
  pool.reserve(kPoolDraws);
  for (int i = 0; i < kPoolDraws; ++i) {
    const std::size_t j = benchmark(rng), g = grid_point(rng);
    const auto& fit = model.benchmarks[j];
    double s2 = 0;
    if (fit.own_df > 0) s2 = model.grid_variance[g] * std::chi_squared_distribution<double>(fit.own_df)(rng) / fit.own_df;
    double df = fit.df;
    if (!fit.tail_df.empty())
      df = fit.tail_df[std::discrete_distribution<std::size_t>(fit.tail_weight.begin(), fit.tail_weight.end())(rng)];
    const double noise = std::isinf(df) || df > 1e6 ? std::normal_distribution<double>()(rng)
                                                    : std::student_t_distribution<double>(df)(rng);
    const double d = std::sqrt(fit.prior_component_variance[g]) * noise;
    pool.push_back(night_term(log_ratio_rising(components(model, fit, s2, fit.own_df), d, kAlternative * taus[j])));
  }
  // P(a night of `count` unchanged benchmarks scores at least t).
  std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
  const auto p_of = [&](double t, std::size_t count) {
    int beyond = 0;
    for (int k = 0; k < kNullNights; ++k) {
      double sum = 0;
      for (std::size_t b = 0; b < count; ++b) sum += pool[pick(rng)];
      beyond += sum >= t;
    }
    return (1.0 + beyond) / (1.0 + kNullNights);
  };
  out.p = p_of(out.statistic, n);
  if (out.p > alpha) return out;
  // Step down: take out the likeliest slowed until what is left is no longer a slowdown.
  std::vector<std::size_t> order(n);
  for (std::size_t b = 0; b < n; ++b) order[b] = b;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return log_lr[a] > log_lr[b]; });
  double rest = out.statistic;
  for (std::size_t k = 0; k < n; ++k) {
    out.carriers.push_back(order[k]);
    rest -= night_term(log_lr[order[k]]);
    if (k + 1 == n || p_of(rest, n - k - 1) > alpha) break;
  }
  return out;
}

}  // namespace rooftop
