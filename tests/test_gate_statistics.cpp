#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "harness/gate_statistics.hpp"

using namespace rooftop;

// Reference values: the examples of R's ?wilcox.test (data and p-values printed there),
// R's p.adjust, and exact counts worked by hand.
TEST_CASE("Mann-Whitney p-values match R", "[gate][statistics]") {
  // ?wilcox.test: wilcox.test(x, y, alternative = "g") gives W = 35, p = 0.1272 (exact).
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  CHECK(mann_whitney_p(x, y) == Approx(2 * 0.1272).margin(2e-4));
  CHECK(mann_whitney_p(y, x) == Approx(2 * 0.1272).margin(2e-4));  // symmetric
  // Complete separation of 3 vs 3: one arrangement in C(6,3) = 20 per side.
  CHECK(mann_whitney_p(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}) == Approx(0.1));
  CHECK(mann_whitney_p(std::vector<double>{1, 2, 3}, std::vector<double>{1, 2, 3}) == Approx(1.0));
  // 10 vs 10 separated: 2 / C(20, 10).
  std::vector<double> a, b;
  for (int i = 0; i < 10; ++i) {
    a.push_back(i);
    b.push_back(100 + i);
  }
  CHECK(mann_whitney_p(a, b) == Approx(2.0 / 184756));
  CHECK(smallest_mann_whitney_p(10, 10) == Approx(2.0 / 184756));
  // With ties the test stays exact (the normal approximation, R's wilcox.test(correct =
  // TRUE), gave 0.01471 here): of the C(10, 5) = 252 choices of five mid-ranks, 4 sum as far
  // from the mean 27.5 as x's 15.5 or farther.
  CHECK(mann_whitney_p(std::vector<double>{1, 1, 2, 2, 3}, std::vector<double>{3, 4, 4, 5, 5}) ==
        Approx(4.0 / 252).margin(1e-12));
}

TEST_CASE("Wilcoxon signed-rank p-values match R", "[gate][statistics]") {
  // ?wilcox.test depression data: paired, "greater" gives V = 40, p = 0.01953; two-sided 0.03906.
  const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  std::vector<double> d;
  for (std::size_t i = 0; i < x.size(); ++i) d.push_back(x[i] - y[i]);
  CHECK(wilcoxon_signed_rank_p(d) == Approx(0.03906).margin(1e-5));
  CHECK(wilcoxon_signed_rank_p(std::vector<double>{1, 2, 3, 4, 5}) == Approx(2.0 / 32));
  CHECK(wilcoxon_signed_rank_p(std::vector<double>{0, 0, 0}) == 1.0);
}

TEST_CASE("Hodges-Lehmann shift, the Walsh-average centre and its exact interval", "[gate][statistics]") {
  CHECK(hodges_lehmann_shift(std::vector<double>{1, 2}, std::vector<double>{3, 5}) == Approx(2.5));
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(1.0 + 0.01 * i);
    y.push_back(1.2 + 0.01 * i);
  }
  CHECK(hodges_lehmann_shift(x, y) == Approx(0.2));
  // Walsh averages of {1, 2, 4}: 1, 1.5, 2.5, 2, 3, 4: median 2.25.
  CHECK(walsh_median(std::vector<double>{1, 2, 4}) == Approx(2.25));
  // Hollander & Wolfe's table: n = 10 at 95% two-sided takes c = 9 (P(T+ <= 8) = 0.0244).
  std::vector<double> d;
  for (int i = 1; i <= 10; ++i) d.push_back(i);
  const auto ci = walsh_ci(d, 0.95);
  std::vector<double> w;
  for (std::size_t i = 0; i < d.size(); ++i)
    for (std::size_t j = i; j < d.size(); ++j) w.push_back((d[i] + d[j]) / 2);
  std::sort(w.begin(), w.end());
  CHECK(ci.low == w[8]);
  CHECK(ci.high == w[w.size() - 9]);
  // Too few values for any 95% interval: unbounded, never a decision.
  CHECK(std::isinf(walsh_ci(std::vector<double>{1, 2, 3, 4, 5}, 0.95).low));
}

TEST_CASE("the exact tests keep their power with ties: one repeated value does not hide a clean shift",
          "[gate][statistics]") {
  // Cleanly separated, one value repeated on the baseline side: exact p 2 / C(16, 8) as without it.
  std::vector<double> x{1.00, 1.01, 1.02, 1.02, 1.03, 1.04, 1.05, 1.06}, y;
  for (double v : x) y.push_back(v * 1.2);
  CHECK(mann_whitney_p(x, y) == Approx(2.0 / 12870).epsilon(1e-9));
  // Ties across the sides: the exact permutation p of the mid-rank sum, counted by hand for
  // {1, 2, 2} against {2, 3, 3} (mid-ranks 1, 3, 3 | 3, 5.5, 5.5): of the 20 choices of three
  // ranks, 6 sum as far from 10.5 as x's 7 or farther.
  CHECK(mann_whitney_p(std::vector<double>{1, 2, 2}, std::vector<double>{2, 3, 3}) == Approx(0.3).margin(1e-12));
}

TEST_CASE("Holm adjustment matches R's p.adjust", "[gate][statistics]") {
  // p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
  const auto adj = holm_adjust(std::vector<double>{0.01, 0.04, 0.03, 0.005});
  CHECK(adj[0] == Approx(0.03));
  CHECK(adj[1] == Approx(0.06));
  CHECK(adj[2] == Approx(0.06));
  CHECK(adj[3] == Approx(0.02));
  CHECK(holm_adjust(std::vector<double>{0.6, 0.9})[1] == Approx(1.0));
}

TEST_CASE("normal quantile and detectable effect", "[gate][statistics]") {
  CHECK(normal_quantile(0.975) == Approx(1.959964).margin(1e-5));
  CHECK(normal_quantile(0.5) == Approx(0).margin(1e-9));
  // More noise or fewer samples: a larger detectable shift.
  const double base = minimum_detectable_log_shift(0.01, 10, 10, 0.001);
  CHECK(minimum_detectable_log_shift(0.02, 10, 10, 0.001) == Approx(2 * base));
  CHECK(minimum_detectable_log_shift(0.01, 20, 20, 0.001) < base);
}

TEST_CASE("the Hodges-Lehmann interval: order statistics of the differences, exact k, unbounded when too few",
          "[gate]") {
  // 10 vs 10: P(U <= 23) = 0.0216 <= 0.025 < P(U <= 24): k = 24, the 24th smallest and largest
  // of the 100 differences (Hollander & Wolfe's table for m = n = 10).
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    y.push_back(i + 100 * (i % 2) + 0.5);  // odd y far above: the differences spread
  }
  std::vector<double> d;
  for (double yj : y)
    for (double xi : x) d.push_back(yj - xi);
  std::sort(d.begin(), d.end());
  const auto ci = hodges_lehmann_ci(x, y, 0.95);
  CHECK(ci.low == d[23]);
  CHECK(ci.high == d[100 - 24]);
  CHECK(ci.low <= hodges_lehmann_shift(x, y));
  CHECK(ci.high >= hodges_lehmann_shift(x, y));
  // 3 vs 3: the smallest tail, 1/20 = 0.05, is above 0.025: no 95% interval.
  const std::vector<double> a{1, 2, 3}, b{4, 5, 6};
  CHECK(std::isinf(hodges_lehmann_ci(a, b).low));
  // Beyond 50 a side, the normal approximation: a shift of exactly 1 is inside, and tight.
  std::vector<double> big_x, big_y;
  for (int i = 0; i < 200; ++i) {
    big_x.push_back(std::sin(i) * 0.1);
    big_y.push_back(std::sin(i * 7) * 0.1 + 1);
  }
  const auto big = hodges_lehmann_ci(big_x, big_y);
  CHECK(big.low < 1.0);
  CHECK(big.high > 1.0);
  CHECK(big.high - big.low < 0.1);
}

TEST_CASE("the truncated product: exact where it reduces to a product of uniforms, uniform under the null",
          "[gate][statistics]") {
  // Without truncation one p is its own p, and two are Fisher's: P(U1 U2 <= w) = w (1 - log w).
  CHECK(truncated_product_p(std::vector<double>{0.037}, 1, 1.0) == Approx(0.037).epsilon(1e-9));
  const double w = 0.004 * 0.2;
  CHECK(truncated_product_p(std::vector<double>{0.004, 0.2}, 2, 1.0) == Approx(w * (1 - std::log(w))).epsilon(1e-9));
  // Above the truncation a p counts for nothing; none below it is no evidence.
  CHECK(truncated_product_p(std::vector<double>{0.003, 0.5}, 18, 0.05) ==
        Approx(truncated_product_p(std::vector<double>{0.003}, 18, 0.05)));
  CHECK(truncated_product_p(std::vector<double>{0.2, 0.6}, 18, 0.05) == 1.0);
  // Three moderate p's of 18, none a discovery alone (Bonferroni needs 0.01 / 18), together are.
  CHECK(truncated_product_p(std::vector<double>{0.002, 0.004, 0.006}, 18, 0.05) < 0.01);
  // A product of many tiny p's stays finite and small.
  CHECK(truncated_product_p(std::vector<double>(60, 1e-200), 200, 0.05) < 1e-100);
  // Under the null (every p uniform) it rejects at its level: 1% of 40,000 suites of 18.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  int rejected = 0;
  constexpr int kSuites = 40000;
  for (int s = 0; s < kSuites; ++s) {
    std::vector<double> p(18);
    for (auto& x : p) x = u(rng);
    rejected += truncated_product_p(p, 18, 0.05) <= 0.01;
  }
  CHECK(rejected / double(kSuites) == Approx(0.01).margin(0.0015));
}
