#pragma once
// Sums and products of counts a user gives (a shape's prompt and output, a context and its
// decode steps, a serve load's batch): one that wrapped past 2^63 became negative and passed
// every "at most N" check after it.
#include <cstdint>
#include <limits>

namespace rooftop {

inline constexpr std::int64_t kSaturatedCount = std::numeric_limits<std::int64_t>::max();

// a + b of two non-negative counts, or kSaturatedCount where the sum does not fit: still
// larger than any bound it is checked against.
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kSaturatedCount : sum;
}

// a * b of two non-negative counts, or kSaturatedCount where the product does not fit.
inline std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? kSaturatedCount : product;
}

}  // namespace rooftop
