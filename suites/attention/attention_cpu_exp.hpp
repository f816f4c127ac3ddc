#pragma once
// The exponential of the CPU attention kernels' online softmax.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace rooftop::attention {

// exp(x) for x <= 0 in a form the compiler vectorizes: 2^n x 2^f, f in [-0.5, 0.5], degree-6
// polynomial (relative error about 2e-7, below fp32's own score rounding). Underflows to 0.
inline float fast_exp(float x) {
  x = std::max(x, -87.0f);
  const float t = x * 1.44269504f;
  // Round to nearest by adding and removing 1.5 x 2^23: plain arithmetic that vectorizes on
  // any x86-64, where std::nearbyint needs SSE4.1 or a libm call.
  const float n = (t + 12582912.0f) - 12582912.0f;
  const float f = t - n;
  float p = 1.5403530e-4f;
  p = p * f + 1.3333558e-3f;
  p = p * f + 9.6181291e-3f;
  p = p * f + 5.5504109e-2f;
  p = p * f + 2.4022650e-1f;
  p = p * f + 6.9314718e-1f;
  p = p * f + 1.0f;
  return p * std::bit_cast<float>(static_cast<std::int32_t>(n + 127.0f) << 23);
}

}  // namespace rooftop::attention
