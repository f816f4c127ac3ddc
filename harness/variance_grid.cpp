#include "harness/variance_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rooftop {
namespace {

// The log likelihood of a sample variance s2 on df degrees of freedom under a true
// variance v, up to a term of s2 and df alone.
double log_likelihood_of_variance(double s2, double df, double v) { return -0.5 * df * (std::log(v) + s2 / v); }

}  // namespace

VarianceGrid fit_variance_grid(std::span<const double> s2, std::span<const double> dfs, double floor) {
  VarianceGrid g;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (double v : s2) {
    if (v > 0) lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  lo = std::max({std::isfinite(lo) ? lo / 10 : hi / 1e4, floor, 1e-14});
  hi = std::max(hi * 10, lo * 10);
  constexpr int kPoints = 40;
  for (int i = 0; i < kPoints; ++i) {
    g.variance.push_back(lo * std::pow(hi / lo, i / double(kPoints - 1)));
    g.weight.push_back(1.0 / kPoints);
  }
  std::vector<std::vector<double>> like(s2.size(), std::vector<double>(kPoints));
  for (std::size_t b = 0; b < s2.size(); ++b) {
    double top = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < kPoints; ++i)
      top = std::max(top, like[b][i] = log_likelihood_of_variance(std::max(s2[b], floor), dfs[b], g.variance[i]));
    for (auto& l : like[b]) l = std::exp(l - top);
  }
  std::vector<double> next(kPoints);
  for (int iteration = 0; iteration < 150; ++iteration) {
    std::fill(next.begin(), next.end(), 0.0);
    for (const auto& l : like) {
      double total = 0;
      for (int i = 0; i < kPoints; ++i) total += g.weight[i] * l[i];
      for (int i = 0; i < kPoints; ++i) next[i] += g.weight[i] * l[i] / total;
    }
    for (int i = 0; i < kPoints; ++i) g.weight[i] = next[i] / static_cast<double>(like.size());
  }
  return g;
}

VarianceGrid fit_lognormal_grid(const VarianceGrid& grid, std::span<const double> s2, std::span<const double> dfs,
                                double floor) {
  const std::size_t k = grid.variance.size();
  std::vector<std::vector<double>> like(s2.size(), std::vector<double>(k));
  for (std::size_t b = 0; b < s2.size(); ++b) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < k; ++i)
      top = std::max(top, like[b][i] = log_likelihood_of_variance(std::max(s2[b], floor), dfs[b], grid.variance[i]));
    for (auto& l : like[b]) l = std::exp(l - top);
  }
  const auto weights = [&](double mu, double sd) {
    std::vector<double> w(k);
    double total = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const double z = (std::log(grid.variance[i]) - mu) / sd;
      total += w[i] = std::exp(-0.5 * z * z);
    }
    for (auto& x : w) x /= total;
    return w;
  };
  const auto log_likelihood = [&](const std::vector<double>& w) {
    double sum = 0;
    for (const auto& l : like) {
      double m = 0;
      for (std::size_t i = 0; i < k; ++i) m += w[i] * l[i];
      sum += std::log(std::max(m, 1e-300));
    }
    return sum;
  };
  const double lo = std::log(grid.variance.front()), hi = std::log(grid.variance.back());
  const double step = k > 1 ? (hi - lo) / static_cast<double>(k - 1) : 1;
  VarianceGrid best{grid.variance, grid.weight};
  double best_ll = -std::numeric_limits<double>::infinity();
  // The spread no narrower than one grid step: a log-normal narrower than the grid is one point.
  for (double mu = lo; mu <= hi + 1e-9; mu += step / 2)
    for (double sd = step; sd <= 6; sd *= 1.1) {
      auto w = weights(mu, sd);
      const double ll = log_likelihood(w);
      if (ll > best_ll) {
        best_ll = ll;
        best.weight = std::move(w);
        best.log_sd = sd;
      }
    }
  return best;
}

std::vector<double> posterior_weights(const VarianceGrid& g, double s2, double df, double floor) {
  std::vector<double> w(g.variance.size());
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < w.size(); ++i)
    top = std::max(top, w[i] = log_likelihood_of_variance(std::max(s2, floor), df, g.variance[i]));
  double total = 0;
  for (std::size_t i = 0; i < w.size(); ++i) total += w[i] = g.weight[i] * std::exp(w[i] - top);
  for (auto& x : w) x /= total;
  return w;
}

}  // namespace rooftop
