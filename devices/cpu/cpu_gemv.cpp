#include "devices/cpu/cpu_gemv.hpp"

#include <cstring>
#include <vector>

#include "devices/cpu/isa_level.hpp"

namespace rooftop::cpu {
namespace {

inline float widen(std::uint16_t v) {
  const std::uint32_t u = static_cast<std::uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline float widen(float v) { return v; }

// 32 partial sums: enough independent chains to hide the FMA latency. One body, inlined
// into a copy for each ISA below (GCC inlines a generic function into a wider target).
constexpr int kLanes = 32;

template <class W>
[[gnu::always_inline]] inline float dot(const float* x, const W* w, std::int64_t k) {
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

template <class W>
using DotFn = float (*)(const float*, const W*, std::int64_t);

template <class W>
__attribute__((target("avx512f,avx512bw,avx512vl"))) float dot_avx512(const float* x, const W* w, std::int64_t k) {
  return dot(x, w, k);
}
template <class W>
__attribute__((target("avx2,fma"))) float dot_avx2(const float* x, const W* w, std::int64_t k) {
  return dot(x, w, k);
}
template <class W>
float dot_generic(const float* x, const W* w, std::int64_t k) {
  return dot(x, w, k);
}

// Picked by the usable ISA (devices/cpu/isa_level.hpp), so a cap runs the AVX2 copy on an
// AVX-512 machine as an AVX2-only one would.
template <class W>
DotFn<W> pick_dot() {
  
  if (isa_usable(IsaLevel::avx512)) return dot_avx512<W>;
  if (isa_usable(IsaLevel::avx2)) return dot_avx2<W>;
  return dot_generic<W>;
}

}  // namespace

std::string gemv_isa_name() {
  
  if (isa_usable(IsaLevel::avx512)) return "AVX-512";
  if (isa_usable(IsaLevel::avx2)) return "AVX2";
  return "x86-64 without AVX2";
}

void gemv_rows(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k, const void* x, const void* w, float* y) {
  static const DotFn<std::uint16_t> dot_bf16 = pick_dot<std::uint16_t>();
  static const DotFn<float> dot_fp32 = pick_dot<float>();
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

}  // namespace rooftop::cpu
