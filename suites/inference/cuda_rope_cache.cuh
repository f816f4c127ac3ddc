#pragma once
// What the two writers of rotated q and k and of the cache share (the RoPE kernel and the
// qkv GEMV's RoPE epilogue), so that both write the same bits: the rotation and where a
// CacheLayout (cuda_decoder_kernels.cuh) keeps one row of keys or values.
#include <cstdint>

#include "suites/inference/cuda_decoder_kernels.cuh"

namespace rooftop::inference::kernels {

// A rotate-half pair (a, b) by the angle whose (cos, sin) is cs. Rounded operations, not
// contractible: left to the compiler, each kernel could fuse a different multiply-add and
// differ in the last bit.
__device__ inline float2 rotate_pair(float a, float b, float2 cs) {
  return {__fsub_rn(__fmul_rn(a, cs.x), __fmul_rn(b, cs.y)), __fadd_rn(__fmul_rn(b, cs.x), __fmul_rn(a, cs.y))};
}

// Element offset of (b, g, pos)'s row of d in one layer's cache.
__device__ inline std::int64_t cache_row(const CacheLayout& c, std::int64_t b, std::int64_t g, std::int64_t pos,
                                         std::int64_t kv_heads, std::int64_t d) {
  if (!c.page) return ((b * kv_heads + g) * c.capacity + pos) * d;
  const std::int64_t block = c.block_table[b * (c.capacity / c.page) + pos / c.page];
  return ((block * kv_heads + g) * c.page + pos % c.page) * d;
}

}  // namespace rooftop::inference::kernels
