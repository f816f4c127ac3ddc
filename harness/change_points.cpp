#include "harness/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "harness/statistics.hpp"

namespace rooftop {
namespace {

// Sums of |x_i - x_j| over blocks, from 2-D prefix sums: each candidate split in O(1).
class DistanceSums {
 public:
  explicit DistanceSums(std::span<const double> x) : n_(x.size()), p_((n_ + 1) * (n_ + 1), 0.0) {
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t j = 0; j < n_; ++j)
        at(i + 1, j + 1) = std::fabs(x[i] - x[j]) + at(i, j + 1) + at(i + 1, j) - at(i, j);
  }
  // Sum over i in [a, b), j in [c, d).
  double block(std::size_t a, std::size_t b, std::size_t c, std::size_t d) const {
    return p_[b * (n_ + 1) + d] - p_[a * (n_ + 1) + d] - p_[b * (n_ + 1) + c] + p_[a * (n_ + 1) + c];
  }

 private:
  double& at(std::size_t i, std::size_t j) { return p_[i * (n_ + 1) + j]; }
  std::size_t n_;
  std::vector<double> p_;
};

struct Split {
  std::size_t at = 0;
  double q = -1;
};

// The split of [begin, end) with the largest scaled energy distance between its sides.
Split best_split(const DistanceSums& d, std::size_t begin, std::size_t end, std::size_t min_segment) {
  Split best;
  for (std::size_t t = begin + min_segment; t + min_segment <= end; ++t) {
    const double m = static_cast<double>(t - begin), k = static_cast<double>(end - t);
    const double between = d.block(begin, t, t, end) / (m * k);
    const double left = m > 1 ? d.block(begin, t, begin, t) / (m * (m - 1)) : 0.0;
    const double right = k > 1 ? d.block(t, end, t, end) / (k * (k - 1)) : 0.0;
    const double q = m * k / (m + k) * (2 * between - left - right);
    if (q > best.q) best = {t, q};
  }
  return best;
}

void search(std::span<const double> x, std::size_t begin, std::size_t end, const ChangePointOptions& o,
            std::mt19937_64& rng, std::vector<ChangePoint>& out) {
  if (end - begin < 2 * o.min_segment) return;
  const std::span<const double> part = x.subspan(begin, end - begin);
  const Split found = best_split(DistanceSums(part), 0, part.size(), o.min_segment);
  if (found.q <= 0) return;
  // Permutation test: how often does a shuffled segment split as well?
  std::vector<double> shuffled(part.begin(), part.end());
  int as_large = 0;
  for (int r = 0; r < o.permutations; ++r) {
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    as_large += best_split(DistanceSums(shuffled), 0, shuffled.size(), o.min_segment).q >= found.q;
  }
  const double p = (as_large + 1.0) / (o.permutations + 1.0);
  if (p >= o.significance) return;
  const std::size_t at = begin + found.at;
  out.push_back({at, p, 0});
  search(x, begin, at, o, rng, out);
  search(x, at, end, o, rng, out);
}

}  // namespace

std::vector<ChangePoint> find_change_points(std::span<const double> series, const ChangePointOptions& options) {
  std::vector<ChangePoint> points;
  std::mt19937_64 rng(options.seed);
  search(series, 0, series.size(), options, rng, points);
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  // Each change measured between the segments on its two sides.
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : points[i - 1].index, end = i + 1 < points.size() ? points[i + 1].index : series.size();
    const std::vector<double> before(series.begin() + static_cast<std::ptrdiff_t>(begin),
                                     series.begin() + static_cast<std::ptrdiff_t>(points[i].index));
    const std::vector<double> after(series.begin() + static_cast<std::ptrdiff_t>(points[i].index),
                                    series.begin() + static_cast<std::ptrdiff_t>(end));
    points[i].change = std::expm1(median(after) - median(before));
  }
  return points;
}

}  // namespace rooftop
