// Ragged, paged kernels of the serve scenario: one thread an item (rope), one warp a (row,
// head) (attention), keys one at a time through the row's block table.
#include <cfloat>
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

__global__ void ragged_rope_kernel(float* qkv, __nv_bfloat16* kc, __nv_bfloat16* vc, const float2* table, RaggedRows w,
                                   std::int64_t heads, std::int64_t kv_heads, std::int64_t d, const float* bias) {
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
    if (head >= heads) {
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

__global__ void ragged_attention_kernel(const float* qkv, const __nv_bfloat16* kc, const __nv_bfloat16* vc, __nv_bfloat16* out,
                                        std::int64_t warps, RaggedRows w, std::int64_t heads, std::int64_t kv_heads,
                                        std::int64_t d, std::int64_t window) {
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= warps) return;  // the whole warp leaves together
  const std::int64_t row = warp / heads, h = warp % heads, last = w.pos[row], g = h / (heads / kv_heads);
  const float* q = qkv + row * (heads + 2 * kv_heads) * d + h * d;
  const float scale = rsqrtf(static_cast<float>(d));
  constexpr int kMaxPerLane = 8;  // head dims up to 256
  float qr[kMaxPerLane], acc[kMaxPerLane];
  const int per_lane = static_cast<int>((d + 31) / 32);
  for (int j = 0; j < per_lane; ++j) {
    const std::int64_t i = lane + 32 * j;
    qr[j] = i < d ? q[i] : 0.0f;
    acc[j] = 0;
  }
  float m = -FLT_MAX, sum = 0;
  for (std::int64_t p = window > 0 && last >= window ? last - window + 1 : 0; p <= last; ++p) {
    const std::int64_t at = paged_row(w, row, g, p, kv_heads, d);
    float s = 0;
    for (int j = 0; j < per_lane; ++j) {
      const std::int64_t i = lane + 32 * j;
      if (i < d) s += qr[j] * __bfloat162float(kc[at + i]);
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    s *= scale;
    const float nm = fmaxf(m, s), corr = __expf(m - nm), e = __expf(s - nm);
    sum = sum * corr + e;
    for (int j = 0; j < per_lane; ++j) {
      const std::int64_t i = lane + 32 * j;
      acc[j] = acc[j] * corr + (i < d ? e * __bfloat162float(vc[at + i]) : 0.0f);
    }
    m = nm;
  }
  for (int j = 0; j < per_lane; ++j) {
    const std::int64_t i = lane + 32 * j;
    if (i < d) out[(row * heads + h) * d + i] = __float2bfloat16(acc[j] / sum);
  }
}

__global__ void gather_rows_kernel(const float* h, const std::int32_t* which, float* out, std::int64_t count, std::int64_t hidden) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= count * hidden) return;
  out[i] = h[static_cast<std::int64_t>(which[i / hidden]) * hidden + i % hidden];
}

}  // namespace

void ragged_rope_and_cache(float* qkv, void* k_cache, void* v_cache, const float* table, std::int64_t rows,
                           const RaggedRows& where, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
                           const float* bias) {
  if (rows == 0) return;
  const std::int64_t items = (heads + kv_heads) * (d / 2) + kv_heads * d;
  const dim3 grid(static_cast<unsigned>(rows), static_cast<unsigned>((items + kThreads - 1) / kThreads));
  ragged_rope_kernel<<<grid, kThreads, 0, gpu::stream()>>>(qkv, static_cast<__nv_bfloat16*>(k_cache),
                                                          static_cast<__nv_bfloat16*>(v_cache),
                                                          reinterpret_cast<const float2*>(table), where, heads, kv_heads, d, bias);
  ROOFTOP_GPU_CHECK_LAUNCH("ragged_rope_and_cache");
}

void ragged_attention(const float* qkv, const void* k_cache, const void* v_cache, void* out, std::int64_t rows,
                      const RaggedRows& where, std::int64_t heads, std::int64_t kv_heads, std::int64_t d, std::int64_t window) {
  if (rows == 0) return;
  const std::int64_t warps = rows * heads, threads = warps * 32;
  ragged_attention_kernel<<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0, gpu::stream()>>>(
      qkv, static_cast<const __nv_bfloat16*>(k_cache), static_cast<const __nv_bfloat16*>(v_cache),
      static_cast<__nv_bfloat16*>(out), warps, where, heads, kv_heads, d, window);
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
