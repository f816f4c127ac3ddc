#include "harness/special_functions.hpp"

#include <cmath>
#include <initializer_list>
#include <limits>

namespace rooftop {
namespace {

// Below this the functions step up by their recurrences; at and above it their asymptotic
// series are good to about 1e-15.
constexpr double kAsymptotic = 10;

// The continued fraction of the regularized incomplete beta function I_x(a, b) (modified
// Lentz), good for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double f = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    for (const double numerator : {m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                                   -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))}) {
      d = 1 + numerator * d;
      c = 1 + numerator / c;
      if (std::fabs(d) < tiny) d = tiny;
      if (std::fabs(c) < tiny) c = tiny;
      d = 1 / d;
      f *= c * d;
      if (std::fabs(c * d - 1) < 1e-15) return f;
    }
  }
  return f;
}

double regularized_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  return x < (a + 1) / (a + b + 2) ? front * beta_fraction(a, b, x) / a : 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

double digamma(double x) {
  double shift = 0;
  for (; x < kAsymptotic; x += 1) shift -= 1 / x;
  const double r = 1 / (x * x);
  return shift + std::log(x) - 0.5 / x - r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r / 132))));
}

double trigamma(double x) {
  double shift = 0;
  for (; x < kAsymptotic; x += 1) shift += 1 / (x * x);
  const double r = 1 / (x * x);
  return shift + 1 / x + r / 2 + r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * 5.0 / 66))));
}

double tetragamma(double x) {
  double shift = 0;
  for (; x < kAsymptotic; x += 1) shift -= 2 / (x * x * x);
  const double r = 1 / (x * x);
  return shift - r - r / x - r * r * (1.0 / 2 - r * (1.0 / 6 - r * (1.0 / 6 - r * (3.0 / 10 - r * 5.0 / 6))));
}

double trigamma_inverse(double x) {
  if (x > 1e7) return 1 / std::sqrt(x);
  if (x < 1e-6) return 1 / x;
  double y = 0.5 + 1 / x;  // Smyth's start: from it, Newton's steps on 1 / trigamma only fall toward the root
  for (int i = 0; i < 60; ++i) {
    const double t = trigamma(y);
    const double step = t * (1 - t / x) / tetragamma(y);
    y += step;
    if (-step / y < 1e-10) break;
  }
  return y;
}

double student_t_cdf(double t, double df) {
  if (std::isinf(df)) return 0.5 * std::erfc(-t / std::sqrt(2.0));
  const double tail = 0.5 * regularized_beta(df / 2, 0.5, df / (df + t * t));
  return t > 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace rooftop
