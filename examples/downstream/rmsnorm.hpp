#pragma once
// What the CPU and CUDA RMSNorm benchmarks share: the work of a point, its inputs and the
// check against a double-precision reference.
#include <rooftop/rooftop.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace rmsnorm_example {

// Per element: a square and a sum, then two multiplies. Compulsory bytes: x read, y
// written, w read once.
inline rooftop::Work work(const rooftop::Point& p) {
  const double rows = static_cast<double>(p.get("rows")), cols = static_cast<double>(p.get("cols"));
  return {4 * rows * cols, (2 * rows * cols + cols) * 4};
}

inline double memory(const rooftop::Point& p) { return (2.0 * p.get("rows") * p.get("cols") + p.get("cols")) * 4; }

inline void fill(std::vector<float>& x, std::vector<float>& w, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f), weight(0.5f, 1.5f);
  for (auto& v : x) v = value(rng);
  for (auto& v : w) v = weight(rng);
}

// The harness passes the check when every element is within this (max_error_ratio <= 1).
// The error allowed: a few fp32 roundings per element, plus the sum of squares' rounding,
// which grows as the square root of the row's length for a tree-like (SIMD) sum.
inline rooftop::Check compare(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& y,
                              std::int64_t rows, std::int64_t cols, float eps) {
  const double relative = std::ldexp(8.0 + 4.0 * std::sqrt(static_cast<double>(cols)), -24);
  rooftop::Check c;
  c.elements_total = c.elements_checked = static_cast<std::uint64_t>(rows * cols);
  c.tolerance = "(8 + 4 sqrt(cols)) * 2^-24 * |ref| + 1e-30";
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (std::int64_t k = 0; k < cols; ++k) sum += double(x[r * cols + k]) * x[r * cols + k];
    const double inv = 1.0 / std::sqrt(sum / cols + eps);
    for (std::int64_t k = 0; k < cols; ++k) {
      const double ref = x[r * cols + k] * inv * w[k], got = y[r * cols + k];
      const double err = std::isnan(got) ? INFINITY : std::abs(got - ref);
      const double ratio = err / (relative * std::abs(ref) + 1e-30);
      c.max_abs_error = std::max(c.max_abs_error, err);
      if (ratio > c.max_error_ratio) {
        c.max_error_ratio = ratio;
        c.worst_element = "row " + std::to_string(r) + ", col " + std::to_string(k) + ": " + std::to_string(got) +
                          " against " + std::to_string(ref);
      }
    }
  }
  return c;
}

}  // namespace rmsnorm_example
