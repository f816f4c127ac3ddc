#include "harness/recent_change.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "harness/special_functions.hpp"
#include "harness/statistics.hpp"

namespace rooftop {
namespace {

double choose(std::size_t n, std::size_t k) {
  if (k > n) return 0;
  double c = 1;
  for (std::size_t i = 0; i < k; ++i) c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
  return c;
}

// The nights as clipped distances from the pool's median in robust scales (1.4826 MAD). The
// same for every night of the pool, so that the permutation test stays exact.
std::vector<double> clipped_scores(std::span<const double> pool, double clip) {
  const double centre = median(pool);
  std::vector<double> distance;
  for (double v : pool) distance.push_back(std::fabs(v - centre));
  // Identical nights (a coarse timer) have no MAD: every night then scores 0 or the clip.
  const double scale = std::max(1.4826 * median(distance), 1e-12);
  std::vector<double> scores;
  for (double v : pool) scores.push_back(std::clamp((v - centre) / scale, -clip, clip));
  return scores;
}

// The winsorized two-sample t-test (Yuen 1974, Biometrika 61) of the last j scores against
// the reference's, one-sided (slower): for pools too small for the permutation test to reach
// a p that matters. It assumes near-normal nights; `most` is the p with all j at the clip.
struct TTest {
  double p = 1, most = 1;
};
TTest winsorized_t(std::span<const double> scores, std::size_t j, double clip) {
  const std::size_t nb = scores.size() - j;
  double sum = 0, squares = 0, last = 0;
  for (std::size_t i = 0; i < nb; ++i) {
    sum += scores[i];
    squares += scores[i] * scores[i];
  }
  for (std::size_t i = nb; i < scores.size(); ++i) last += scores[i] / static_cast<double>(j);
  const double n = static_cast<double>(nb), mean = sum / n;
  // A floor of a tenth of a scale: identical nights do not make any wobble significant.
  const double spread = std::max(std::sqrt(std::max(squares - n * mean * mean, 0.0) / (n - 1)), 0.1);
  const double se = spread * std::sqrt(1 / static_cast<double>(j) + 1 / n);
  return {student_t_cdf(-(last - mean) / se, n - 1), student_t_cdf(-(clip - mean) / se, n - 1)};
}

// One candidate age of the step: the last j nights of the pool against the nights before.
struct Age {
  std::size_t j = 0;
  std::vector<double> scores;  // the pool's: the reference, then the last j
  double statistic = 0;        // the last j scores' sum / sqrt(j): the likeliest age has the largest
  double change = 0;
};

}  // namespace

double count_subsets_at_least(std::span<const double> v, std::size_t k, double sum, long budget) {
  const std::size_t n = v.size();
  if (k > n) return 0;
  // prefix[i] = v[0] + ... + v[i - 1]: the largest k from i on sum to prefix[i + k] - prefix[i].
  std::vector<double> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + v[i];
  const double tolerance = 1e-9 * (1 + std::fabs(sum));
  long steps = 0;
  std::function<double(std::size_t, std::size_t, double)> count = [&](std::size_t from, std::size_t left, double need) -> double {
    if (++steps > budget) return 0;
    if (left == 0) return need <= tolerance ? 1 : 0;
    if (n - from < left) return 0;
    if (prefix[from + left] - prefix[from] < need - tolerance) return 0;  // not even the largest reach it
    if (prefix[n] - prefix[n - left] >= need - tolerance) return choose(n - from, left);  // even the smallest do
    double total = 0;
    for (std::size_t i = from; i + left <= n; ++i) {
      if (prefix[i + left] - prefix[i] < need - tolerance) break;  // from v[i] on, the largest no longer reach it
      total += count(i + 1, left - 1, need - v[i]);
    }
    return total;
  };
  const double total = count(0, k, sum);
  return steps > budget ? -1 : total;
}

RecentChange test_recent_change(std::span<const double> y, std::span<const std::size_t> past, const RecentChangeOptions& o) {
  RecentChange result;
  const std::size_t n = y.size(), recent = std::clamp<std::size_t>(o.recent, 1, RecentChangeOptions::kMaxRecent);
  std::size_t cut = 0;  // the last past change point before the recent nights: the level is read after it
  for (std::size_t c : past)
    if (c + recent < n) cut = std::max(cut, c);
  std::vector<Age> ages;
  for (std::size_t j = 1; j <= recent && j < n; ++j) {
    const std::size_t end = n - j;  // the candidate first night of the new level
    const std::size_t begin = std::max(cut, end > o.reference ? end - o.reference : 0);
    if (end < begin + 3) continue;  // a level needs three nights
    Age a{j, clipped_scores(y.subspan(begin, n - begin), o.clip), 0, 0};
    a.statistic = std::accumulate(a.scores.end() - static_cast<std::ptrdiff_t>(j), a.scores.end(), 0.0) /
                  std::sqrt(static_cast<double>(j));
    a.change = std::expm1(median(y.subspan(end, j)) - median(y.subspan(begin, end - begin)));
    ages.push_back(std::move(a));
  }
  // The permutation test where the pool can reach a p that matters (1 / C(pool, j) at most
  // half the smallest useful p). Where it cannot, the oldest age alone falls back on the
  // t-test (a short history: a few weeks of nights), the younger ones are not tested: the
  // t-test of one or two nights raised 3.6 false changes per 100 nights with heavy tails.
  const auto exact = [&](const Age& a) { return o.smallest_useful_p <= 0 || 1 / choose(a.scores.size(), a.j) <= o.smallest_useful_p / 2; };
  std::vector<const Age*> testable;
  for (const auto& a : ages)
    if (exact(a) || (&a == &ages.back() && winsorized_t(a.scores, a.j, o.clip).most <= o.smallest_useful_p / 2))
      testable.push_back(&a);
  // The error is shared: half to the oldest age tested (the most nights after the step, the
  // last night it is new), half among the younger ones; all of it when one age is tested.
  const auto weight = [&](const Age* a) {
    if (testable.size() == 1) return 1.0;
    return a == testable.back() ? 0.5 : 0.5 / static_cast<double>(testable.size() - 1);
  };
  for (const auto* a : testable) {
    result.tested = true;
    if (!exact(*a)) {
      result.p = std::min(result.p, std::min(1.0, winsorized_t(a->scores, a->j, o.clip).p / weight(a)));
      continue;
    }
    std::vector<double> descending = a->scores;
    const double observed = std::accumulate(descending.end() - static_cast<std::ptrdiff_t>(a->j), descending.end(), 0.0);
    std::sort(descending.begin(), descending.end(), std::greater<>());
    const double at_least = count_subsets_at_least(descending, a->j, observed);
    const double p = at_least < 0 ? 1.0 : at_least / choose(descending.size(), a->j);  // gave up: no claim
    result.p = std::min(result.p, std::min(1.0, p / weight(a)));
  }
  if (!ages.empty()) {
    const auto likeliest = std::max_element(ages.begin(), ages.end(), [](const Age& a, const Age& b) { return a.statistic < b.statistic; });
    result.index = n - likeliest->j;
    result.change = likeliest->change;
  }
  return result;
}

}  // namespace rooftop
