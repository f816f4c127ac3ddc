#include "suites/inference/cpu_gemv.hpp"

#include <cstring>
#include <vector>

namespace rooftop::inference {
namespace {

inline float widen(std::uint16_t v) {
  const std::uint32_t u = static_cast<std::uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// 32 partial sums: enough independent chains to hide the FMA latency.
constexpr int kLanes = 32;

__attribute__((target_clones("avx512f", "avx2", "default"))) float dot_bf16(const float* x, const std::uint16_t* w,
                                                                           std::int64_t k) {
  float acc[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes)
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l] * widen(w[i + l]);
  float sum = 0;
  for (; i < k; ++i) sum += x[i] * widen(w[i]);
  for (float a : acc) sum += a;
  return sum;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) float dot_fp32(const float* x, const float* w, std::int64_t k) {
  float acc[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes)
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l] * w[i + l];
  float sum = 0;
  for (; i < k; ++i) sum += x[i] * w[i];
  for (float a : acc) sum += a;
  return sum;
}

}  // namespace

void gemv_rows(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k, const void* x, const void* w, float* y) {
  // The rows of x in fp32, once.
  std::vector<float> xf(static_cast<std::size_t>(m * k));
  for (std::int64_t i = 0; i < m * k; ++i)
    xf[static_cast<std::size_t>(i)] =
        dtype == Dtype::bf16 ? widen(static_cast<const std::uint16_t*>(x)[i]) : static_cast<const float*>(x)[i];
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t r = 0; r < m; ++r)
      y[r * n + j] = dtype == Dtype::bf16 ? dot_bf16(xf.data() + r * k, static_cast<const std::uint16_t*>(w) + j * k, k)
                                          : dot_fp32(xf.data() + r * k, static_cast<const float*>(w) + j * k, k);
}

}  // namespace rooftop::inference
