// Issue 52, N14: the gate's Hodges-Lehmann estimates and intervals, and the median's
// interval, without every pair of samples (20,000 samples in a point took 55 s and 3 GB in
// compare): the same values as from every pair.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "harness/gate_statistics.hpp"
#include "harness/statistics.hpp"

using namespace rooftop;

namespace {
// What the gate computed before, from every pair: the references.
std::vector<double> every_difference(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> all;
  for (double yj : y)
    for (double xi : x) all.push_back(yj - xi);
  std::sort(all.begin(), all.end());
  return all;
}
std::vector<double> every_walsh_average(const std::vector<double>& d) {
  std::vector<double> all;
  for (std::size_t i = 0; i < d.size(); ++i)
    for (std::size_t j = i; j < d.size(); ++j) all.push_back((d[i] + d[j]) / 2);
  std::sort(all.begin(), all.end());
  return all;
}
// Above 50 values the intervals' ranks come from the normal approximation.
std::int64_t normal_rank(double total, double sd) {
  return static_cast<std::int64_t>(std::floor(total / 2 - normal_quantile(0.975) * sd));
}

// Times as a timer gives them: log-normal around 1 ms, on a tick of `tick` seconds (0: none),
// so that values repeat as they do on a coarse clock.
std::vector<double> times(std::size_t n, double tick, std::mt19937_64& rng) {
  std::lognormal_distribution<double> noise(std::log(1e-3), 0.05);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = noise(rng);
    v.push_back(tick > 0 ? tick * std::max(1.0, std::round(t / tick)) : t);
  }
  return v;
}

// The old median interval: P(X <= k - 1) summed from 0 for every k.
double binomial_half_cdf(int n, int k) {
  double total = 0;
  for (int i = 0; i <= k; ++i)
    total += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return total;
}
MedianInterval old_median_interval(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const int n = static_cast<int>(v.size());
  int best_k = 1;
  for (int k = 1; 2 * k <= n + 1; ++k) {
    if (1.0 - 2.0 * binomial_half_cdf(n, k - 1) >= 0.95) best_k = k;
    else break;
  }
  return {v[best_k - 1], v[n - best_k], 1.0 - 2.0 * binomial_half_cdf(n, best_k - 1)};
}
}  // namespace

TEST_CASE("Hodges-Lehmann shift and interval without every pair: the values every pair gives", "[gate][statistics]") {
  std::mt19937_64 rng(52);
  for (const double tick : {0.0, 1e-5, 1e-4}) {  // no ties, some, many
    for (int trial = 0; trial < 6; ++trial) {
      const auto x = times(51 + rng() % 250, tick, rng), y = times(51 + rng() % 250, tick, rng);
      INFO("tick " << tick << ", " << x.size() << " and " << y.size() << " values");
      const auto all = every_difference(x, y);
      CHECK(hodges_lehmann_shift(x, y) == median(all));
      const double nm = static_cast<double>(all.size());
      const auto k = normal_rank(nm, std::sqrt(nm * static_cast<double>(x.size() + y.size() + 1) / 12.0));
      const auto ci = hodges_lehmann_ci(x, y, 0.95);
      CHECK(ci.low == all[static_cast<std::size_t>(k - 1)]);
      CHECK(ci.high == all[all.size() - static_cast<std::size_t>(k)]);
    }
  }
}

TEST_CASE("the Walsh-average centre and interval without every pair: the values every pair gives", "[gate][statistics]") {
  std::mt19937_64 rng(53);
  for (const double tick : {0.0, 1e-5, 1e-4}) {
    for (int trial = 0; trial < 6; ++trial) {
      auto d = times(91 + rng() % 400, tick, rng);
      for (auto& v : d) v = std::log(v / 1e-3);  // log-times around 0, both signs, as the gate's
      INFO("tick " << tick << ", " << d.size() << " values");
      const auto all = every_walsh_average(d);
      CHECK(walsh_median(d) == median(all));
      const double n = static_cast<double>(d.size());
      const auto c = normal_rank(static_cast<double>(all.size()), std::sqrt(n * (n + 1) * (2 * n + 1) / 24.0));
      const auto ci = walsh_ci(d, 0.95);
      CHECK(ci.low == all[static_cast<std::size_t>(c - 1)]);
      CHECK(ci.high == all[all.size() - static_cast<std::size_t>(c)]);
    }
  }
  // All equal, and one value: no pairs to choose between.
  CHECK(walsh_median(std::vector<double>(5000, 0.25)) == 0.25);
  CHECK(walsh_median(std::vector<double>{-3}) == -3);
}

TEST_CASE("the median's interval in one pass: the same order statistics and coverage", "[statistics]") {
  std::mt19937_64 rng(54);
  for (const std::size_t n : {1, 2, 5, 10, 11, 40, 100, 1001, 2500}) {
    INFO(n << " values");
    const auto v = times(n, 1e-5, rng);
    const auto now = median_confidence_interval(v), before = old_median_interval(v);
    CHECK(now.low == before.low);
    CHECK(now.high == before.high);
    CHECK(now.coverage == before.coverage);
  }
}
