#pragma once
// The arithmetic of the CPU attention kernels' online softmax: its exponential and row maximum.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace rooftop::attention {

// exp(x) for x <= 0 in a form the compiler vectorizes: 2^n x 2^f, f in [-0.5, 0.5], degree-6
// polynomial (relative error about 2e-7 where |x| < 16, below fp32's own score rounding; the
// rounding of x log2(e) adds |x| x 4e-8 beyond). Clamped at -87, where fp32 runs out of normals.
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

// The largest of `init` and x[0, n). GCC keeps a max reduction scalar without -ffast-math,
// even under `omp simd reduction(max)`: a chain of dependent vmaxss, 4 cycles a score. A
// vector of 16 lanes makes it an element-wise max, one instruction a 16 scores on AVX-512.
inline float row_max(const float* x, int n, float init) {
  typedef float v16 __attribute__((vector_size(64)));
  v16 lane = v16{} + init;
  int j = 0;
  for (; j + 16 <= n; j += 16) {
    v16 v;
    std::memcpy(&v, x + j, sizeof v);
    lane = v > lane ? v : lane;
  }
  float m = init;
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  for (int t = 0; t < 16; ++t) m = lane[t] > m ? lane[t] : m;
  return m;
}

}  // namespace rooftop::attention
