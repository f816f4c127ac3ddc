#include "harness/gate_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <numbers>
#include <random>
#include <stdexcept>

#include "harness/statistics.hpp"

namespace rooftop {
namespace {
constexpr int kExactLimit = 50;
constexpr int kExactTiedLimit = 60;  // values in all: the tied count is n x N x N^2 steps

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

// Mid-ranks (1-based) of values; `tie_term` gets sum(t^3 - t) over tie groups.
std::vector<double> mid_ranks(std::span<const double> values, double& tie_term) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  tie_term = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double t = static_cast<double>(j - i + 1);
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = (static_cast<double>(i + j) + 2.0) / 2.0;
    tie_term += t * t * t - t;
    i = j + 1;
  }
  return ranks;
}

// Number of arrangements of n x's and m y's giving each U = #(x < y), as probabilities.
std::vector<double> mann_whitney_distribution(int n, int m) {
  const int top = n * m;
  // count[j][u] for the current number of x's placed; placing a y after i x's adds i.
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(top + 1, 0.0)), cur = prev;
  prev[0][0] = 1;
  for (int j = 1; j <= m; ++j) prev[j][0] = 1;  // i = 0: y's before any x add nothing
  for (int i = 1; i <= n; ++i) {
    for (int j = 0; j <= m; ++j) {
      for (int u = 0; u <= top; ++u) {
        double c = prev[j][u];                            // last placed is an x
        if (j > 0 && u >= i) c += cur[j - 1][u - i];      // last placed is a y, i x's below it
        cur[j][u] = c;
      }
    }
    std::swap(prev, cur);
  }
  std::vector<double> p(prev[m]);
  double total = 0;
  for (double c : p) total += c;
  for (double& c : p) c /= total;
  return p;
}
}  // namespace

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal quantile outside (0, 1)");
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double mann_whitney_p(std::span<const double> x, std::span<const double> y) {
  const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
  if (n == 0 || m == 0) return 1.0;
  std::vector<double> all(x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  double tie_term = 0;
  const auto ranks = mid_ranks(all, tie_term);
  double rank_sum_x = 0;
  for (int i = 0; i < n; ++i) rank_sum_x += ranks[i];
  const double u = rank_sum_x - n * (n + 1) / 2.0;  // #(y < x) pairs, ties counted half
  if (tie_term != 0 && n + m <= kExactTiedLimit) {
    // With ties: every choice of n of the N mid-ranks is equally likely under the null; count
    // the doubled (integer) rank sums of the choices, as far from the mean as x's or farther.
    std::vector<int> doubled(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) doubled[i] = static_cast<int>(std::lround(2 * ranks[i]));
    const int top = std::accumulate(doubled.begin(), doubled.end(), 0);
    // ways[j][s]: subsets of j of the ranks seen so far with doubled sum s.
    std::vector<std::vector<double>> ways(static_cast<std::size_t>(n) + 1, std::vector<double>(static_cast<std::size_t>(top) + 1, 0));
    ways[0][0] = 1;
    for (const int r : doubled)
      for (int j = n; j >= 1; --j)
        for (int s2 = top; s2 >= r; --s2) ways[static_cast<std::size_t>(j)][static_cast<std::size_t>(s2)] +=
            ways[static_cast<std::size_t>(j - 1)][static_cast<std::size_t>(s2 - r)];
    const double centre = n * (n + m + 1.0);  // doubled mean rank sum
    const double observed = std::fabs(2 * rank_sum_x - centre);
    double extreme = 0, total = 0;
    for (int s2 = 0; s2 <= top; ++s2) {
      const double w = ways[static_cast<std::size_t>(n)][static_cast<std::size_t>(s2)];
      total += w;
      if (std::fabs(s2 - centre) >= observed - 1e-9) extreme += w;
    }
    return std::min(1.0, extreme / total);
  }
  if (tie_term == 0 && n <= kExactLimit && m <= kExactLimit) {
    const auto dist = mann_whitney_distribution(n, m);
    const int k = static_cast<int>(std::lround(u));
    double below = 0, above = 0;
    for (int v = 0; v <= k; ++v) below += dist[v];
    for (int v = k; v < static_cast<int>(dist.size()); ++v) above += dist[v];
    return std::min(1.0, 2.0 * std::min(below, above));
  }
  const double nm = static_cast<double>(n) * m, N = n + m;
  const double var = nm / 12.0 * ((N + 1) - tie_term / (N * (N - 1)));
  if (var <= 0) return 1.0;
  const double z = (std::fabs(u - nm / 2.0) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2.0 * normal_cdf(-std::max(0.0, z)));
}

double wilcoxon_signed_rank_p(std::span<const double> d) {
  std::vector<double> nonzero;
  for (double v : d)
    if (v != 0) nonzero.push_back(v);
  const int n = static_cast<int>(nonzero.size());
  if (n == 0) return 1.0;
  std::vector<double> magnitude(n);
  for (int i = 0; i < n; ++i) magnitude[i] = std::fabs(nonzero[i]);
  double tie_term = 0;
  const auto ranks = mid_ranks(magnitude, tie_term);
  double w_plus = 0;
  for (int i = 0; i < n; ++i)
    if (nonzero[i] > 0) w_plus += ranks[i];
  const double total = n * (n + 1) / 2.0;
  if (tie_term == 0 && n <= kExactLimit) {
    // Distribution of the sum of a random subset of {1..n}.
    std::vector<double> count(static_cast<std::size_t>(total) + 1, 0.0);
    count[0] = 1;
    for (int r = 1; r <= n; ++r)
      for (int s = static_cast<int>(total); s >= r; --s) count[s] += count[s - r];
    const double all = std::ldexp(1.0, n);
    const int k = static_cast<int>(std::lround(w_plus));
    double below = 0, above = 0;
    for (int s = 0; s <= k; ++s) below += count[s];
    for (int s = k; s <= static_cast<int>(total); ++s) above += count[s];
    return std::min(1.0, 2.0 * std::min(below, above) / all);
  }
  const double var = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - tie_term / 48.0;
  const double z = (std::fabs(w_plus - total / 2.0) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2.0 * normal_cdf(-std::max(0.0, z)));
}

namespace {
// The first index in [low, high) where `below` turns false (true, then false, along a row).
template <class Below>
std::int64_t first_not(std::int64_t low, std::int64_t high, Below below) {
  while (low < high) {
    const std::int64_t mid = low + (high - low) / 2;
    if (below(mid)) low = mid + 1;
    else high = mid;
  }
  return low;
}

// Few enough candidates left to gather them all.
constexpr std::int64_t kGatherLimit = 4096;

// The k-th smallest (from 0) of value(r, c) over the rows r, c in [begin[r], end[r]), each
// row non-decreasing in c: the pairwise differences and Walsh averages of sorted samples,
// never made (n^2 of them: 20,000 samples a point took 3 GB and 55 s in compare). A
// candidate drawn at random (a fixed seed) splits the rest: a binary search a row counts
// those below and at it, and the side holding rank k is kept (Monahan, "Algorithm 616: fast
// computation of the Hodges-Lehmann location estimator", ACM TOMS 10(3), 1984): O(n log n)
// a round, O(log n) rounds expected. Exact: the value sorting every pair would give.
template <class Value>
double select_in_sorted_rows(std::vector<std::int64_t> begin, std::vector<std::int64_t> end, std::int64_t k,
                             const Value& value) {
  const std::size_t rows = begin.size();
  std::vector<std::int64_t> less_end(rows), upto_end(rows);
  std::mt19937_64 rng(rows);
  for (;;) {
    std::int64_t left = 0;
    for (std::size_t r = 0; r < rows; ++r) left += end[r] - begin[r];
    bool gather = left <= std::max<std::int64_t>(kGatherLimit, 4 * static_cast<std::int64_t>(rows));
    if (!gather) {
      std::int64_t pick = std::uniform_int_distribution<std::int64_t>(0, left - 1)(rng);
      std::size_t row = 0;
      for (; pick >= end[row] - begin[row]; ++row) pick -= end[row] - begin[row];
      const std::int64_t column = begin[row] + pick;
      const double pivot = value(row, column);
      std::int64_t less = 0, upto = 0;
      for (std::size_t r = 0; r < rows; ++r) {
        less_end[r] = first_not(begin[r], end[r], [&](std::int64_t c) { return value(r, c) < pivot; });
        upto_end[r] = first_not(less_end[r], end[r], [&](std::int64_t c) { return value(r, c) <= pivot; });
        less += less_end[r] - begin[r];
        upto += upto_end[r] - begin[r];
      }
      // The pivot found where it was drawn: the rows are sorted (a NaN would unsort them).
      if (less_end[row] <= column && column < upto_end[row]) {
        if (k < less) {
          end = less_end;
        } else if (k < upto) {
          return pivot;
        } else {
          k -= upto;
          begin = upto_end;
        }
        continue;
      }
      gather = true;
    }
    std::vector<double> candidates;
    candidates.reserve(static_cast<std::size_t>(left));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::int64_t c = begin[r]; c < end[r]; ++c) candidates.push_back(value(r, c));
    const auto nth = candidates.begin() + k;
    std::nth_element(candidates.begin(), nth, candidates.end());
    return *nth;
  }
}

// The median of `total` values from their order statistics, interpolated as median() does.
template <class Select>
double median_of_selected(std::int64_t total, const Select& select) {
  const double h = (static_cast<double>(total) - 1.0) * 0.5;
  const auto lo = static_cast<std::int64_t>(std::floor(h));
  const auto hi = std::min(lo + 1, total - 1);
  const double a = select(lo), b = h == static_cast<double>(lo) ? a : select(hi);
  return a + (h - static_cast<double>(lo)) * (b - a);
}

// The n x m differences y_j - x_i: row j is y_j less x in descending order.
struct Differences {
  std::vector<double> x_descending, y;
  Differences(std::span<const double> x_values, std::span<const double> y_values)
      : x_descending(x_values.begin(), x_values.end()), y(y_values.begin(), y_values.end()) {
    std::sort(x_descending.begin(), x_descending.end(), std::greater<>());
  }
  std::int64_t total() const { return static_cast<std::int64_t>(x_descending.size() * y.size()); }
  double operator()(std::size_t row, std::int64_t column) const { return y[row] - x_descending[static_cast<std::size_t>(column)]; }
  double select(std::int64_t k) const {
    return select_in_sorted_rows(std::vector<std::int64_t>(y.size(), 0),
                                 std::vector<std::int64_t>(y.size(), static_cast<std::int64_t>(x_descending.size())), k, *this);
  }
};

// The n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j: row i of the sorted d holds j >= i.
struct WalshAverages {
  std::vector<double> d;
  explicit WalshAverages(std::span<const double> values) : d(values.begin(), values.end()) { std::sort(d.begin(), d.end()); }
  std::int64_t total() const { return static_cast<std::int64_t>(d.size() * (d.size() + 1) / 2); }
  double operator()(std::size_t row, std::int64_t column) const { return (d[row] + d[static_cast<std::size_t>(column)]) / 2; }
  double select(std::int64_t k) const {
    std::vector<std::int64_t> begin(d.size());
    std::iota(begin.begin(), begin.end(), std::int64_t{0});
    return select_in_sorted_rows(std::move(begin), std::vector<std::int64_t>(d.size(), static_cast<std::int64_t>(d.size())), k, *this);
  }
};
}  // namespace

double hodges_lehmann_shift(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("statistics of an empty sample");
  const Differences diffs(x, y);
  return median_of_selected(diffs.total(), [&](std::int64_t k) { return diffs.select(k); });
}

Interval hodges_lehmann_ci(std::span<const double> x, std::span<const double> y, double level) {
  const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (n == 0 || m == 0) return {-kInf, kInf};
  const double tail = (1.0 - level) / 2.0;
  const std::int64_t total = static_cast<std::int64_t>(n) * m;
  // k: the most differences below the interval such that P(U <= k - 1) <= tail.
  std::int64_t k = 0;
  if (n <= kExactLimit && m <= kExactLimit) {
    const auto dist = mann_whitney_distribution(n, m);
    double below = 0;
    while (k < total && below + dist[static_cast<std::size_t>(k)] <= tail) below += dist[static_cast<std::size_t>(k++)];
  } else {
    const double nm = static_cast<double>(total);
    k = static_cast<std::int64_t>(std::floor(nm / 2.0 - normal_quantile(1.0 - tail) * std::sqrt(nm * (n + m + 1) / 12.0)));
  }
  if (k < 1) return {-kInf, kInf};
  // Only the two order statistics are needed.
  const Differences diffs(x, y);
  return {diffs.select(k - 1), diffs.select(total - k)};
}

double walsh_median(std::span<const double> d) {
  if (d.empty()) return 0.0;
  const WalshAverages walsh(d);
  return median_of_selected(walsh.total(), [&](std::int64_t k) { return walsh.select(k); });
}

Interval walsh_ci(std::span<const double> d, double level) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const int n = static_cast<int>(d.size());
  if (n == 0) return {-kInf, kInf};
  const double tail = (1.0 - level) / 2.0;
  const std::int64_t total = static_cast<std::int64_t>(n) * (n + 1) / 2;
  std::int64_t c = 0;  // the most Walsh averages below the interval with P(T+ <= c - 1) <= tail
  if (n <= kExactLimit) {
    std::vector<double> count(static_cast<std::size_t>(total) + 1, 0.0);  // subsets of {1..n} by sum
    count[0] = 1;
    for (int r = 1; r <= n; ++r)
      for (std::int64_t s = total; s >= r; --s) count[static_cast<std::size_t>(s)] += count[static_cast<std::size_t>(s - r)];
    const double all = std::ldexp(1.0, n);
    double below = 0;
    while (c < total && below + count[static_cast<std::size_t>(c)] / all <= tail) below += count[static_cast<std::size_t>(c++)] / all;
  } else {
    const double mean_t = static_cast<double>(total) / 2, sd = std::sqrt(n * (n + 1.0) * (2.0 * n + 1.0) / 24.0);
    c = static_cast<std::int64_t>(std::floor(mean_t - normal_quantile(1.0 - tail) * sd));
  }
  if (c < 1) return {-kInf, kInf};
  const WalshAverages walsh(d);
  return {walsh.select(c - 1), walsh.select(total - c)};
}

std::vector<double> holm_adjust(std::span<const double> p) {
  const std::size_t k = p.size();
  std::vector<std::size_t> order(k);
  for (std::size_t i = 0; i < k; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] < p[b]; });
  std::vector<double> adjusted(k);
  double running = 0;
  for (std::size_t rank = 0; rank < k; ++rank) {
    running = std::max(running, std::min(1.0, static_cast<double>(k - rank) * p[order[rank]]));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

double smallest_mann_whitney_p(int n, int m) {
  // 2 / C(n + m, n), through lgamma to stay finite.
  return std::min(1.0, 2.0 * std::exp(std::lgamma(n + 1.0) + std::lgamma(m + 1.0) - std::lgamma(n + m + 1.0)));
}

double minimum_detectable_log_shift(double log_sd, int n, int m, double alpha, double power) {
  if (n < 1 || m < 1) return std::numeric_limits<double>::infinity();
  // Normal-theory shift for a two-sample test, widened by the rank test's asymptotic
  // relative efficiency on normal data (3 / pi).
  const double z = normal_quantile(1.0 - alpha / 2.0) + normal_quantile(power);
  return z * log_sd * std::sqrt(1.0 / n + 1.0 / m) * std::sqrt(std::numbers::pi / 3.0);
}

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> q(m, 1.0);
  double running = 1.0;
  for (std::size_t r = m; r-- > 0;) {
    running = std::min(running, p[order[r]] * static_cast<double>(m) / static_cast<double>(r + 1));
    q[order[r]] = std::min(running, 1.0);
  }
  return q;
}

double truncated_product_p(std::span<const double> p, int tests, double truncation) {
  double log_product = 0;
  int below = 0;
  for (double x : p)
    if (x <= truncation) {
      log_product += std::log(std::max(x, 1e-300));
      ++below;
    }
  if (below == 0 || tests < 1) return 1.0;
  tests = std::max(tests, below);
  // P(W <= w) = sum over k >= 1 below the truncation of Binomial(k; tests, truncation) times
  // P(Gamma(k) >= -log w + k log truncation): given k, each p / truncation is uniform.
  double total = 0, log_choose = 0;
  for (int k = 1; k <= tests; ++k) {
    log_choose += std::log(static_cast<double>(tests - k + 1)) - std::log(static_cast<double>(k));
    // (0 times the log of 0 where the truncation is 1 and every p is in: no term, not NaN.)
    const double log_binomial =
        log_choose + k * std::log(truncation) + (k == tests ? 0.0 : (tests - k) * std::log1p(-truncation));
    const double x = std::max(0.0, -log_product + k * std::log(truncation));
    // The gamma's upper tail with integer shape, e^-x sum_{j<k} x^j / j!, summed in logs (its
    // terms pass e^700 for a product of many tiny p's).
    double log_sum = 0;  // j = 0
    for (int j = 1; j < k && x > 0; ++j) {
      const double log_term = j * std::log(x) - std::lgamma(j + 1.0);
      log_sum = std::max(log_sum, log_term) + std::log1p(std::exp(-std::fabs(log_sum - log_term)));
    }
    total += std::exp(log_binomial - x + log_sum);
  }
  return std::clamp(total, 0.0, 1.0);
}

}  // namespace rooftop
