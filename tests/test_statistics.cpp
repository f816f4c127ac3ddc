#include <catch2/catch.hpp>
#include <vector>

#include "harness/statistics.hpp"

using namespace rooftop;

TEST_CASE("quantiles interpolate linearly between order statistics", "[statistics]") {
  const std::vector<double> v = {4, 1, 3, 2};  // sorted: 1 2 3 4
  CHECK(median(v) == Approx(2.5));
  CHECK(quantile(v, 0.25) == Approx(1.75));  // h = 0.75 -> 1 + 0.75
  CHECK(quantile(v, 0.75) == Approx(3.25));
  CHECK(quantile(v, 0.0) == 1);
  CHECK(quantile(v, 1.0) == 4);
  CHECK_THROWS(quantile(v, 1.5));
  CHECK_THROWS(median(std::vector<double>{}));
}

TEST_CASE("summary of a sample computed by hand", "[statistics]") {
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  const auto s = summarize(v);
  CHECK(s.count == 8);
  CHECK(s.median == Approx(4.5));
  CHECK(s.min == 2);
  CHECK(s.max == 9);
  CHECK(s.mean == Approx(5.0));
  CHECK(s.iqr == Approx(5.5 - 4.0));                  // Q1 = 4, Q3 = 5.5 (type 7)
  CHECK(s.cv == Approx(std::sqrt(32.0 / 7.0) / 5.0));  // sample sd / mean
}

TEST_CASE("median confidence interval from order statistics", "[statistics]") {
  std::vector<double> v;
  for (int i = 1; i <= 10; ++i) v.push_back(i);
  // n = 10: [x_(2), x_(9)] covers 1 - 2 * 11/1024 = 0.978515625; [x_(3), x_(8)] only 0.89.
  auto ci = median_confidence_interval(v);
  CHECK(ci.low == 2);
  CHECK(ci.high == 9);
  CHECK(ci.coverage == Approx(0.978515625));

  // n = 5 cannot reach 95%: the full range, with its coverage 1 - 2/32 stated.
  ci = median_confidence_interval(std::vector<double>{5, 1, 4, 2, 3});
  CHECK(ci.low == 1);
  CHECK(ci.high == 5);
  CHECK(ci.coverage == Approx(0.9375));

  // n = 1: a point, coverage 0.
  ci = median_confidence_interval(std::vector<double>{7});
  CHECK(ci.low == 7);
  CHECK(ci.high == 7);
}
