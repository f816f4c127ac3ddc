#include "harness/sequential_boundary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rooftop {
namespace {
constexpr double kStep = 0.04;   // grid of the walk's value: fine against unit steps
constexpr double kReach = 8.5;   // standard deviations kept of the walk and of a step
double normal_density(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI); }
}  // namespace

double SequentialBoundary::nominal(int n) const {
  if (!has_look(n)) return 0;
  return 0.5 * std::erfc(z[static_cast<std::size_t>(n - first)] / std::sqrt(2.0));
}

SequentialBoundary spending_boundary(double alpha, int first, int last, double rho) {
  if (!(alpha > 0 && alpha < 0.5) || first < 1 || last < first || !(rho > 0))
    throw std::invalid_argument("spending_boundary: needs 0 < alpha < 0.5, 1 <= first <= last, rho > 0");
  SequentialBoundary b{alpha, first, last, rho, {}};
  // The sub-density of the walk at the current look over paths that have not crossed yet,
  // on the grid s = low + k * kStep (the grid grows downwards as the walk spreads).
  const double high = kReach * std::sqrt(static_cast<double>(last)) + kReach;
  auto low_at = [&](int n) { return -kReach * std::sqrt(static_cast<double>(n)) - kReach; };
  double low = low_at(first);
  auto size_for = [&](double lo) { return static_cast<std::size_t>(std::ceil((high - lo) / kStep)) + 1; };
  std::vector<double> f(size_for(low));
  for (std::size_t k = 0; k < f.size(); ++k)
    f[k] = normal_density((low + k * kStep) / std::sqrt(first)) / std::sqrt(first);
  double spent = 0;
  const int kernel = static_cast<int>(std::ceil(kReach / kStep));
  std::vector<double> weights(2 * kernel + 1);
  for (int d = -kernel; d <= kernel; ++d) weights[d + kernel] = normal_density(d * kStep) * kStep;
  for (int n = first; n <= last; ++n) {
    if (n > first) {  // one unit step: convolve with N(0, 1)
      const double new_low = low_at(n);
      const auto shift = static_cast<std::ptrdiff_t>(std::llround((low - new_low) / kStep));
      std::vector<double> g(f.size() + shift, 0.0);
      for (std::size_t j = 0; j < f.size(); ++j) {
        if (f[j] == 0) continue;
        const auto centre = static_cast<std::ptrdiff_t>(j) + shift;
        const auto from = std::max<std::ptrdiff_t>(0, centre - kernel);
        const auto to = std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(g.size()) - 1, centre + kernel);
        for (auto k = from; k <= to; ++k) g[k] += f[j] * weights[k - centre + kernel];
      }
      f = std::move(g);
      low -= shift * kStep;
    }
    const double target = alpha * std::pow(static_cast<double>(n) / last, rho) - spent;
    // The tail mass above each grid point (trapezoid), from the top down, to the point
    // where it reaches this look's share.
    double tail = 0, crossing = high;
    std::size_t k = f.size() - 1;
    for (; k > 0; --k) {
      const double cell = 0.5 * (f[k] + f[k - 1]) * kStep;
      if (tail + cell >= target) {
        crossing = low + k * kStep - (target - tail) / std::max(cell, 1e-300) * kStep;
        break;
      }
      tail += cell;
    }
    b.z.push_back(crossing / std::sqrt(static_cast<double>(n)));
    spent += target;
    for (std::size_t j = k; j < f.size(); ++j) f[j] = 0;  // the paths that crossed stop
  }
  return b;
}

}  // namespace rooftop
