// Ragged, paged kernels of the serve scenario: one thread an item (RoPE and the cache write),
// one warp a (row, KV head) (attention), 32 keys at a time through the row's block table.
#include <cfloat>
#include <stdexcept>
#include <string>
#include <cuda_bf16.h>

#include "devices/cuda/gpu_runtime.hpp"
#include "suites/inference/cuda_serve_kernels.cuh"

namespace rooftop::inference::kernels {
namespace {

constexpr int kThreads = 256;

__device__ inline std::int64_t paged_row(const RaggedRows& w, std::int64_t row, std::int64_t g, std::int64_t p,
                                         std::int64_t kv_heads, std::int64_t d) {
  const std::int64_t block = w.tables[w.table_at[row] + p / w.page];
  return ((block * kv_heads + g) * w.page + p % w.page) * d;
}

__global__ void ragged_rope_kernel(float* qkv, __nv_bfloat16* kc, __nv_bfloat16* vc, __nv_bfloat16* q16, const float2* table,
                                   RaggedRows w, std::int64_t heads, std::int64_t kv_heads, std::int64_t d, const float* bias) {
  const std::int64_t row = blockIdx.x, pos = w.pos[row];
  const std::int64_t half = d / 2, pairs = (heads + kv_heads) * half;
  const std::int64_t item = blockIdx.y * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float* x = qkv + row * (heads + 2 * kv_heads) * d;
  if (item < pairs) {
    const std::int64_t head = item / half, i = item % half;
    const float2 cs = table[pos * half + i];
    float* v = x + head * d;
    const float a = v[i] + (bias ? bias[head * d + i] : 0.0f), b = v[i + half] + (bias ? bias[head * d + i + half] : 0.0f);
    const float lo = a * cs.x - b * cs.y, hi = b * cs.x + a * cs.y;
    v[i] = lo;
    v[i + half] = hi;
    if (head < heads) {
      __nv_bfloat16* q = q16 + (row * heads + head) * d;
      q[i] = __float2bfloat16(lo);
      q[i + half] = __float2bfloat16(hi);
    } else {
      __nv_bfloat16* k = kc + paged_row(w, row, head - heads, pos, kv_heads, d);
      k[i] = __float2bfloat16(lo);
      k[i + half] = __float2bfloat16(hi);
    }
  } else if (item < pairs + kv_heads * d) {
    const std::int64_t e = item - pairs, g = e / d, i = e % d;
    const float value = x[(heads + kv_heads) * d + e] + (bias ? bias[(heads + kv_heads) * d + e] : 0.0f);
    vc[paged_row(w, row, g, pos, kv_heads, d) + i] = __float2bfloat16(value);
  }
}

// One warp a (row, KV head): the group's query heads share each key and value row it loads.
// Keys go 32 at a time, a lane a key (its score against every head of the group), so no key
// waits on the one before (a warp walking keys one by one waited on two dependent loads a
// key); then each lane adds the 32 values into the output pairs it owns (lane + 32 c).
// G: the group rounded up to a power of two (heads past it masked); P: pairs a lane, d / 64
// rounded up. Queries in shared memory, read as broadcasts.
constexpr int kAttentionWarps = 4;

template <int G, int P>
__global__ void __launch_bounds__(kAttentionWarps * 32)
    ragged_attention_kernel(const float* qkv, const __nv_bfloat16* kc, const __nv_bfloat16* vc, __nv_bfloat16* out,
                            std::int64_t warps, RaggedRows w, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
                            std::int64_t window) {
  constexpr int kMaxPairs = P;
  extern __shared__ float q_shared[];  // [warp][G][d]
  const int warp_in_block = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t warp = blockIdx.x * static_cast<std::int64_t>(kAttentionWarps) + warp_in_block;
  if (warp >= warps) return;  // the whole warp leaves together; no block-wide barrier follows
  const std::int64_t row = warp / kv_heads, g = warp % kv_heads, last = w.pos[row];
  const std::int64_t width = (heads + 2 * kv_heads) * d;
  const std::int64_t group = heads / kv_heads;
  float* q = q_shared + static_cast<std::int64_t>(warp_in_block) * G * d;
  const float scale = rsqrtf(static_cast<float>(d));
  for (std::int64_t i = lane; i < G * d; i += 32) q[i] = i < group * d ? qkv[row * width + g * group * d + i] * scale : 0.0f;
  __syncwarp();
  const std::int32_t* table = w.tables + w.table_at[row];
  const int pairs = static_cast<int>(d / 2);
  float m[G], l[G], acc[G][kMaxPairs * 2];
#pragma unroll
  for (int h = 0; h < G; ++h) {
    m[h] = -FLT_MAX;
    l[h] = 0;
#pragma unroll
    for (int e = 0; e < kMaxPairs * 2; ++e) acc[h][e] = 0;
  }
  const std::int64_t first = window > 0 && last >= window ? last - window + 1 : 0;
  for (std::int64_t p0 = first; p0 <= last; p0 += 32) {
    const std::int64_t p = p0 + lane;
    const bool live = p <= last;
    const std::int64_t at = live ? ((static_cast<std::int64_t>(table[p / w.page]) * kv_heads + g) * w.page + p % w.page) * d : 0;
    float s[G];
#pragma unroll
    for (int h = 0; h < G; ++h) s[h] = 0;
    if (live) {
      const uint4* k = reinterpret_cast<const uint4*>(kc + at);
      for (std::int64_t c = 0; c < d / 8; ++c) {
        const uint4 raw = k[c];
        const __nv_bfloat162* k2 = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float2 kf = __bfloat1622float2(k2[e]);
#pragma unroll
          for (int h = 0; h < G; ++h) {
            const float2 qf = *reinterpret_cast<const float2*>(q + h * d + c * 8 + 2 * e);
            s[h] += qf.x * kf.x + qf.y * kf.y;
          }
        }
      }
    }
    // Online softmax over the tile: each head's new max, its old state rescaled.
    float e_[G];
#pragma unroll
    for (int h = 0; h < G; ++h) {
      float tile = live ? s[h] : -FLT_MAX;
      for (int o = 16; o > 0; o /= 2) tile = fmaxf(tile, __shfl_xor_sync(0xffffffffu, tile, o));
      const float nm = fmaxf(m[h], tile), corr = __expf(m[h] - nm);
      e_[h] = live ? __expf(s[h] - nm) : 0.0f;
      float sum = e_[h];
      for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
      l[h] = l[h] * corr + sum;
      m[h] = nm;
#pragma unroll
      for (int e = 0; e < kMaxPairs * 2; ++e) acc[h][e] *= corr;
    }
    const int keys = last - p0 + 1 < 32 ? static_cast<int>(last - p0 + 1) : 32;
    for (int j = 0; j < keys; ++j) {
      const std::int64_t vat = __shfl_sync(0xffffffffu, at, j);
      const __nv_bfloat162* v = reinterpret_cast<const __nv_bfloat162*>(vc + vat);
      float2 vf[kMaxPairs];
#pragma unroll
      for (int c = 0; c < kMaxPairs; ++c) vf[c] = lane + 32 * c < pairs ? __bfloat1622float2(v[lane + 32 * c]) : make_float2(0, 0);
#pragma unroll
      for (int h = 0; h < G; ++h) {
        const float pj = __shfl_sync(0xffffffffu, e_[h], j);
#pragma unroll
        for (int c = 0; c < kMaxPairs; ++c) {
          acc[h][2 * c] += pj * vf[c].x;
          acc[h][2 * c + 1] += pj * vf[c].y;
        }
      }
    }
  }
#pragma unroll
  for (int h = 0; h < G; ++h) {
    if (h >= group) break;
    __nv_bfloat162* o = reinterpret_cast<__nv_bfloat162*>(out + (row * heads + g * group + h) * d);
#pragma unroll
    for (int c = 0; c < kMaxPairs; ++c)
      if (lane + 32 * c < pairs) o[lane + 32 * c] = __floats2bfloat162_rn(acc[h][2 * c] / l[h], acc[h][2 * c + 1] / l[h]);
  }
}

__global__ void gather_rows_kernel(const float* h, const std::int32_t* which, float* out, std::int64_t count, std::int64_t hidden) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= count * hidden) return;
  out[i] = h[static_cast<std::int64_t>(which[i / hidden]) * hidden + i % hidden];
}

}  // namespace

void ragged_rope_and_cache(float* qkv, void* k_cache, void* v_cache, void* q16, const float* table, std::int64_t rows,
                           const RaggedRows& where, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
                           const float* bias) {
  if (rows == 0) return;
  const std::int64_t items = (heads + kv_heads) * (d / 2) + kv_heads * d;
  const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((items + kThreads - 1) / kThreads));
  ragged_rope_kernel<<<grid, kThreads, 0, gpu::stream()>>>(qkv, static_cast<__nv_bfloat16*>(k_cache),
                                                          static_cast<__nv_bfloat16*>(v_cache),
                                                          static_cast<__nv_bfloat16*>(q16), reinterpret_cast<const float2*>(table), where, heads, kv_heads, d, bias);
  ROOFTOP_GPU_CHECK_LAUNCH("ragged_rope_and_cache");
}

template <int G>
void launch_ragged_attention(std::int64_t d, unsigned blocks, std::size_t shared, const float* qkv, const __nv_bfloat16* kc,
                             const __nv_bfloat16* vc, __nv_bfloat16* out, std::int64_t warps, const RaggedRows& where,
                             std::int64_t heads, std::int64_t kv_heads, std::int64_t window) {
  const auto go = [&](auto kernel) {
    if (shared > 48 * 1024)
      ROOFTOP_GPU_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    kernel<<<blocks, kAttentionWarps * 32, shared, gpu::stream()>>>(qkv, kc, vc, out, warps, where, heads, kv_heads, d, window);
  };
  if (d <= 64) go(ragged_attention_kernel<G, 1>);
  else if (d <= 128) go(ragged_attention_kernel<G, 2>);
  else go(ragged_attention_kernel<G, 4>);
}

void ragged_attention(const float* qkv, const void* k_cache, const void* v_cache, void* out, std::int64_t rows,
                      const RaggedRows& where, std::int64_t heads, std::int64_t kv_heads, std::int64_t d, std::int64_t window) {
  if (rows == 0) return;
  const std::int64_t group = heads / kv_heads;
  if (heads % kv_heads != 0 || group > 16 || d % 8 != 0 || d > 256)
    throw std::invalid_argument("ragged attention runs groups of 1 to 16 query heads a KV head and head dims that are "
                                "multiples of 8 up to 256, not " + std::to_string(heads) + " heads over " +
                                std::to_string(kv_heads) + " and d " + std::to_string(d));
  const std::int64_t warps = rows * kv_heads;
  const auto blocks = static_cast<unsigned>((warps + kAttentionWarps - 1) / kAttentionWarps);
  const auto* kc = static_cast<const __nv_bfloat16*>(k_cache);
  const auto* vc = static_cast<const __nv_bfloat16*>(v_cache);
  auto* o = static_cast<__nv_bfloat16*>(out);
  const int g = group <= 1 ? 1 : group <= 2 ? 2 : group <= 4 ? 4 : group <= 8 ? 8 : 16;
  const std::size_t shared = static_cast<std::size_t>(kAttentionWarps * g * d) * sizeof(float);
  switch (g) {
    case 1: launch_ragged_attention<1>(d, blocks, shared, qkv, kc, vc, o, warps, where, heads, kv_heads, window); break;
    case 2: launch_ragged_attention<2>(d, blocks, shared, qkv, kc, vc, o, warps, where, heads, kv_heads, window); break;
    case 4: launch_ragged_attention<4>(d, blocks, shared, qkv, kc, vc, o, warps, where, heads, kv_heads, window); break;
    case 8: launch_ragged_attention<8>(d, blocks, shared, qkv, kc, vc, o, warps, where, heads, kv_heads, window); break;
    default: launch_ragged_attention<16>(d, blocks, shared, qkv, kc, vc, o, warps, where, heads, kv_heads, window); break;
  }
  ROOFTOP_GPU_CHECK_LAUNCH("ragged_attention");
}

void gather_rows(const float* h, const std::int32_t* which, float* out, std::int64_t count, std::int64_t hidden) {
  if (count == 0) return;
  const std::int64_t n = count * hidden;
  gather_rows_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, gpu::stream()>>>(h, which, out, count,
                                                                                                           hidden);
  ROOFTOP_GPU_CHECK_LAUNCH("gather_rows");
}

}  // namespace rooftop::inference::kernels
