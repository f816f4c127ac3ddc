#include "devices/cpu/ceiling_kernels.hpp"

#include <immintrin.h>

#include "devices/cpu/isa_level.hpp"

namespace rooftop::cpu {
namespace {
// Horizontal sum through memory: GCC 12's _mm512_reduce_add_ps trips -Wuninitialized.
__attribute__((target("avx512f"))) float sum_lanes(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float s = 0;
  for (float x : lanes) s += x;
  return s;
}

constexpr int kChains512 = 16;  // 2 FMA ports x 4-cycle latency needs >= 8; 16 leaves margin
constexpr int kChains256 = 12;

__attribute__((target("avx512f"))) float fma_avx512(std::int64_t iterations, float seed) {
  __m512 acc[kChains512];
  for (int j = 0; j < kChains512; ++j) acc[j] = _mm512_set1_ps(seed + static_cast<float>(j));
  const __m512 mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-6f);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kChains512; ++j) acc[j] = _mm512_fmadd_ps(acc[j], mul, add);
  }
  __m512 sum = acc[0];
  for (int j = 1; j < kChains512; ++j) sum = _mm512_add_ps(sum, acc[j]);
  return sum_lanes(sum);
}

__attribute__((target("avx2,fma"))) float fma_avx2(std::int64_t iterations, float seed) {
  __m256 acc[kChains256];
  for (int j = 0; j < kChains256; ++j) acc[j] = _mm256_set1_ps(seed + static_cast<float>(j));
  const __m256 mul = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-6f);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < kChains256; ++j) acc[j] = _mm256_fmadd_ps(acc[j], mul, add);
  }
  alignas(32) float lanes[8];
  __m256 sum = acc[0];
  for (int j = 1; j < kChains256; ++j) sum = _mm256_add_ps(sum, acc[j]);
  _mm256_store_ps(lanes, sum);
  float s = 0;
  for (float x : lanes) s += x;
  return s;
}

float fma_scalar(std::int64_t iterations, float seed) {
  float acc[8];
  for (int j = 0; j < 8; ++j) acc[j] = seed + static_cast<float>(j);
  for (std::int64_t i = 0; i < iterations; ++i)
    for (float& a : acc) a = a * 0.999999f + 1e-6f;
  float s = 0;
  for (float a : acc) s += a;
  return s;
}

// 16 independent accumulators: 2 loads per cycle x 4-cycle add latency needs >= 8 in flight.
// Passes loop inside so that a block that fits in L1 is not dominated by call overhead.
// With `prefetch`, each line is also requested kPrefetchAhead bytes early: it costs load
// slots in L1 but helps the hardware prefetchers keep DRAM streams full.
constexpr std::size_t kPrefetchAheadFloats = 1024;  // 4 KiB

template <bool prefetch>
__attribute__((target("avx512f"))) float read_sum_avx512(const float* p, std::size_t n, int passes) {
  __m512 acc[16];
  for (auto& a : acc) a = _mm512_setzero_ps();
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = 0; i < n; i += 256) {
      if constexpr (prefetch) {
#pragma GCC unroll 16
        for (int j = 0; j < 16; ++j)
          _mm_prefetch(reinterpret_cast<const char*>(p + i + kPrefetchAheadFloats + 16 * j), _MM_HINT_T0);
      }
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) acc[j] = _mm512_add_ps(acc[j], _mm512_load_ps(p + i + 16 * j));
    }
  for (int j = 1; j < 16; ++j) acc[0] = _mm512_add_ps(acc[0], acc[j]);
  return sum_lanes(acc[0]);
}

__attribute__((target("avx2"))) float read_sum_avx2(const float* p, std::size_t n, int passes) {
  __m256 acc[16];
  for (auto& a : acc) a = _mm256_setzero_ps();
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = 0; i < n; i += 128) {
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) acc[j] = _mm256_add_ps(acc[j], _mm256_load_ps(p + i + 8 * j));
    }
  for (int j = 1; j < 16; ++j) acc[0] = _mm256_add_ps(acc[0], acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc[0]);
  float s = 0;
  for (float x : lanes) s += x;
  return s;
}
}  // namespace

FmaKernel best_fma_kernel() {
  if (isa_usable(IsaLevel::avx512)) return {"avx512_fma", 16, kChains512};
  if (isa_usable(IsaLevel::avx2)) return {"avx2_fma", 8, kChains256};
  return {"scalar", 1, 8};
}

float run_fma_kernel(const FmaKernel& k, std::int64_t iterations, float seed) {
  if (k.unit == "avx512_fma") return fma_avx512(iterations, seed);
  if (k.unit == "avx2_fma") return fma_avx2(iterations, seed);
  return fma_scalar(iterations, seed);
}

float read_sum(const float* data, std::size_t count, int passes, bool prefetch) {
  if (isa_usable(IsaLevel::avx512))
    return prefetch ? read_sum_avx512<true>(data, count, passes) : read_sum_avx512<false>(data, count, passes);
  if (isa_usable(IsaLevel::avx2)) return read_sum_avx2(data, count, passes);
  float s = 0;
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = 0; i < count; ++i) s += data[i];
  return s;
}

}  // namespace rooftop::cpu
