#include "harness/discovery_test.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "harness/gate_statistics.hpp"
#include "harness/special_functions.hpp"
#include "harness/variance_grid.hpp"

namespace rooftop {
namespace {

// Equal-probability points of a chi-square on df over df (a sample variance's ratio to its
// true one): exact for 1 and 2 df, Wilson and Hilferty's cube above.
constexpr int kVariancePoints = 16;
std::vector<double> chi_square_ratio_points(double df) {
  std::vector<double> out;
  for (int i = 0; i < kVariancePoints; ++i) {
    const double p = (i + 0.5) / kVariancePoints;
    double x;
    if (df <= 1.5) {
      const double z = normal_quantile(0.5 + 0.5 * p);
      x = z * z;
    } else if (df <= 2.5) {
      x = -2 * std::log1p(-p) / 2;
    } else {
      const double c = 2 / (9 * df), z = normal_quantile(p);
      x = std::pow(std::max(1 - c + z * std::sqrt(c), 0.0), 3);
    }
    out.push_back(x);
  }
  return out;
}

struct Mixture {
  std::vector<double> weight, variance;  // of `own` under each grid point that carries weight
};

// The alternative's changes, in units of tau: 5/3 tau (5% at the kernels' 3%), not tau. A
// two-state kernel caught in its low state on every baseline night jumps 3-4% (the H200's
// m256 and m512 GEMMs, one night in 17), which a ratio peaked at tau scores as high as a 5%
// regression; the running maximum keeps every change beyond the peak at its height.
constexpr double kAlternative = 5.0 / 3;

// log of the ratio: the change's (either sign) mean density over the no-change density.
double log_ratio(const Mixture& m, double d, double tau) {
  double top = -std::numeric_limits<double>::infinity();
  std::vector<double> terms;  // numerator terms, then the denominator's
  for (std::size_t i = 0; i < m.weight.size(); ++i) {
    const double v = m.variance[i], base = std::log(m.weight[i]) - 0.5 * std::log(v);
    for (double sign : {-1.0, 1.0}) {
      const double e = d - sign * kAlternative * tau;
      terms.push_back(base - e * e / (2 * v) - std::log(2.0));
      top = std::max(top, terms.back());
    }
  }
  for (std::size_t i = 0; i < m.weight.size(); ++i) {
    const double v = m.variance[i];
    terms.push_back(std::log(m.weight[i]) - 0.5 * std::log(v) - d * d / (2 * v));
    top = std::max(top, terms.back());
  }
  const std::size_t split = terms.size() - m.weight.size();
  double a = 0, b = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) (i < split ? a : b) += std::exp(terms[i] - top);
  return std::log(a) - std::log(b);
}

// Where the ratio is looked at: its peaks sit at the alternative (+-5/3 tau), as narrow as
// the quietest component that carries weight, so the scan is fine up to twice the
// alternative (a step of a quarter of that component's sd) and coarse beyond.
std::vector<double> scan_points(const Mixture& m, double tau, double span) {
  double quietest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < m.weight.size(); ++i)
    if (m.weight[i] > 1e-6) quietest = std::min(quietest, std::sqrt(m.variance[i]));
  const double near = 2 * tau * kAlternative;
  const double fine = std::max(quietest / 4, near / 4000);
  std::vector<double> points;
  for (double d = 0; d < near; d += fine) points.push_back(d);
  for (int i = 0; i <= 256; ++i) points.push_back(near + (span - near) * i / 256);
  return points;
}

// The statistic: the ratio's running maximum over changes up to |d|, so that a larger change
// never counts as less of one (the ratio dips past its peak, where the noisier
// components take over).
double statistic(const Mixture& m, double d, double tau, double span) {
  double best = log_ratio(m, std::fabs(d), tau);
  for (double x : scan_points(m, tau, std::max(span, std::fabs(d)))) {
    if (x > std::fabs(d)) break;
    best = std::max(best, log_ratio(m, x, tau));
  }
  return best;
}

// The smallest |d| whose statistic reaches `level` under mixture m: the ratio's first
// crossing, found on the scan and refined by bisection.
double threshold(const Mixture& m, double level, double tau, double span) {
  if (log_ratio(m, 0, tau) >= level) return 0;
  double lo = 0;
  for (double hi : scan_points(m, tau, span)) {
    if (hi <= lo) continue;
    if (log_ratio(m, hi, tau) >= level) {
      double a = lo, b = hi;
      for (int j = 0; j < 40; ++j) {
        const double mid = 0.5 * (a + b);
        (log_ratio(m, mid, tau) >= level ? b : a) = mid;
      }
      return b;
    }
    lo = hi;
  }
  return std::numeric_limits<double>::infinity();
}

}  // namespace

bool population_test_applies(const NoiseModel& model, int tests) {
  return !model.grid_weight.empty() && tests >= kMinBenchmarksForPopulationTest &&
         model.grid_log_sd >= kMinLogSdForPopulationTest;
}

double discovery_p(const NoiseModel& model, const ModelFit& fit, double tau) {
  const auto& prior = model.grid_weight;
  const auto& own_variance = fit.prior_component_variance;
  const VarianceGrid grid{model.grid_variance, prior};
  const auto mixture = [&](const std::vector<double>& w) {
    Mixture m;
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w[i] > 1e-12) {
        m.weight.push_back(w[i]);
        m.variance.push_back(own_variance[i]);
      }
    return m;
  };
  const auto weights = [&](double s2) {
    return fit.own_df > 0 ? posterior_weights(grid, s2, fit.own_df, model.grid_floor) : prior;
  };
  double scale = 0;  // the widest grid point that carries weight: the scan's reach
  for (std::size_t g = 0; g < prior.size(); ++g)
    if (prior[g] > 1e-12) scale = std::max(scale, std::sqrt(own_variance[g]));
  const double span = 20 * tau + 40 * scale;
  const double observed = statistic(mixture(weights(fit.own_s2)), fit.own, tau, span);
  const auto tail = [&](double t) { return 2 * standard_upper_tail(fit, t); };  // P(|noise| > t sd)
  const auto ratios = fit.own_df > 0 ? chi_square_ratio_points(fit.own_df) : std::vector<double>{1.0};
  // The redrawn sample variances of every grid point, sorted: the threshold on |d| is a
  // smooth function of them, found once each on a log grid and interpolated.
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (std::size_t g = 0; g < prior.size(); ++g)
    if (prior[g] > 1e-12)
      for (double r : ratios) {
        lo = std::min(lo, grid.variance[g] * r);
        hi = std::max(hi, grid.variance[g] * r);
      }
  constexpr int kThresholdPoints = 24;
  std::vector<double> log_s2, cut;
  for (int i = 0; i < kThresholdPoints; ++i) {
    const double x = std::log(lo) + (std::log(hi) - std::log(lo)) * i / (kThresholdPoints - 1);
    log_s2.push_back(x);
    cut.push_back(threshold(mixture(weights(std::exp(x))), observed, tau, span));
    if (fit.own_df <= 0) break;  // no own runs: one mixture, one threshold
  }
  const auto cut_at = [&](double s2) {
    if (cut.size() == 1 || !(hi > lo)) return cut.front();
    const double x = (std::log(s2) - log_s2.front()) / (log_s2.back() - log_s2.front()) * (kThresholdPoints - 1);
    const int i = std::clamp(static_cast<int>(x), 0, kThresholdPoints - 2);
    const double f = std::clamp(x - i, 0.0, 1.0), a = cut[static_cast<std::size_t>(i)],
                 b = cut[static_cast<std::size_t>(i) + 1];
    // Beyond every reachable statistic the threshold is infinite (no tail); between a finite
    // and an infinite one, the finite (inf * 0 is NaN, and the p would be lost).
    if (std::isinf(a) || std::isinf(b)) return f == 0 ? a : f == 1 ? b : std::min(a, b);
    return a * (1 - f) + b * f;
  };
  double p = 0;
  for (std::size_t g = 0; g < prior.size(); ++g) {
    if (prior[g] <= 1e-12) continue;
    double mean = 0;
    for (double r : ratios) mean += tail(cut_at(grid.variance[g] * r) / std::sqrt(own_variance[g]));
    p += prior[g] * mean / static_cast<double>(ratios.size());
  }
  return std::clamp(p, 0.0, 1.0);
}

}  // namespace rooftop
