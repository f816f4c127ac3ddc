#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "devices/cuda/gpu_runtime.hpp"
#include "suites/inference/cuda_activation.cuh"
#include "suites/inference/cuda_rope_cache.cuh"
#include "suites/inference/cuda_decoder_kernels.cuh"
#include "suites/inference/cuda_pdl.cuh"

namespace rooftop::inference::kernels {
namespace {

constexpr int kThreads = 256;
unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__device__ float block_sum(float v) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  __shared__ float total;
  if (threadIdx.x == 0) total = v;
  __syncthreads();
  return total;
}

__global__ void embed_kernel(const std::int32_t* tokens, const __nv_bfloat16* e, float* h, std::int64_t rows, std::int64_t hidden) {
  pdl_allow_next();
  pdl_wait();  // the previous kernel's outputs are this one's inputs
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows * hidden) return;
  const std::int64_t r = i / hidden, c = i % hidden;
  h[i] = __bfloat162float(e[static_cast<std::int64_t>(tokens[r]) * hidden + c]);
}

__global__ void rms_norm_kernel(const float* h, const float* w, void* out, std::int64_t stride, std::int64_t first,
                                std::int64_t hidden, float eps, float fp8_inverse) {
  pdl_allow_next();
  pdl_wait();  // the previous kernel's outputs are this one's inputs
  const float* x = h + (first + blockIdx.x * stride) * hidden;
  float sq = 0;
  for (std::int64_t i = threadIdx.x; i < hidden; i += blockDim.x) sq += x[i] * x[i];
  const float inv = rsqrtf(block_sum(sq) / static_cast<float>(hidden) + eps);
  for (std::int64_t i = threadIdx.x; i < hidden; i += blockDim.x)
    store_activation(out, blockIdx.x * hidden + i, x[i] * inv * w[i], fp8_inverse);
}

// A thread an item of row blockIdx.x: a rotary pair of q or k (rotated with the position's
// cos/sin from the table, written back and to q_bf16 or the key cache), or an element of v
// (to the value cache). Many blocks a row: a decode step's single row fills the GPU too.
__global__ void rope_cache_kernel(float* qkv, __nv_bfloat16* kc, __nv_bfloat16* vc, __nv_bfloat16* q16, const float2* table,
                                  std::int64_t tokens, const std::int32_t* start, std::int64_t heads, std::int64_t kv_heads,
                                  std::int64_t d, CacheLayout cache, __nv_bfloat16* k_rows, __nv_bfloat16* v_rows,
                                  const float* bias) {
  pdl_allow_next();
  pdl_wait();  // the previous kernel's outputs are this one's inputs
  // Rows on x (up to 2^31 - 1: a long prompt times a batch), a row's items on y.
  const std::int64_t row = blockIdx.x, b = row / tokens, t = row % tokens, pos = *start + t;
  const std::int64_t half = d / 2, pairs = (heads + kv_heads) * half;
  const std::int64_t item = blockIdx.y * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float* x = qkv + row * (heads + 2 * kv_heads) * d;
  if (item < pairs) {
    const std::int64_t head = item / half, i = item % half;
    const float2 cs = table[pos * half + i];
    float* v = x + head * d;
    const float a = v[i] + (bias ? bias[head * d + i] : 0.0f), bb = v[i + half] + (bias ? bias[head * d + i + half] : 0.0f);
    const float2 r = rotate_pair(a, bb, cs);
    const float lo = r.x, hi = r.y;
    v[i] = lo;
    v[i + half] = hi;
    if (head < heads) {
      if (q16) {  // [B, heads, tokens, d]
        __nv_bfloat16* q = q16 + ((b * heads + head) * tokens + t) * d;
        q[i] = __float2bfloat16(lo);
        q[i + half] = __float2bfloat16(hi);
      }
    } else {
      const std::int64_t g = head - heads;
      __nv_bfloat16* k = kc + cache_row(cache, b, g, pos, kv_heads, d);
      k[i] = __float2bfloat16(lo);
      k[i + half] = __float2bfloat16(hi);
      if (k_rows) {
        __nv_bfloat16* kr = k_rows + ((b * kv_heads + g) * tokens + t) * d;
        kr[i] = k[i];
        kr[i + half] = k[i + half];
      }
    }
  } else if (item < pairs + kv_heads * d) {
    const std::int64_t e = item - pairs, g = e / d, i = e % d;
    const __nv_bfloat16 value = __float2bfloat16(x[(heads + kv_heads) * d + e] + (bias ? bias[(heads + kv_heads) * d + e] : 0.0f));
    vc[cache_row(cache, b, g, pos, kv_heads, d) + i] = value;
    if (v_rows) v_rows[((b * kv_heads + g) * tokens + t) * d + i] = value;
  }
}

// One warp a (row, head): lanes split the head dimension; keys one at a time with an
// online softmax. Plain, correct, and memory-bound on the cache for decode.
__global__ void attention_kernel(const float* qkv, const __nv_bfloat16* kc, const __nv_bfloat16* vc, __nv_bfloat16* out,
                                 std::int64_t warps, std::int64_t tokens, const std::int32_t* start, std::int64_t heads,
                                 std::int64_t kv_heads, std::int64_t d, CacheLayout cache, std::int64_t window) {
  pdl_allow_next();
  pdl_wait();  // the previous kernel's outputs are this one's inputs
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= warps) return;  // the whole warp leaves together: no shuffle is left waiting
  const std::int64_t row = warp / heads, h = warp % heads;
  const std::int64_t b = row / tokens, t = row % tokens, last = *start + t, g = h / (heads / kv_heads);
  const std::int64_t width = (heads + 2 * kv_heads) * d;
  const float* q = qkv + row * width + h * d;
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
    const std::int64_t row_at = cache_row(cache, b, g, p, kv_heads, d);
    float s = 0;
    for (int j = 0; j < per_lane; ++j) {
      const std::int64_t i = lane + 32 * j;
      if (i < d) s += qr[j] * __bfloat162float(kc[row_at + i]);
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    s *= scale;
    const float nm = fmaxf(m, s), corr = __expf(m - nm), e = __expf(s - nm);
    sum = sum * corr + e;
    for (int j = 0; j < per_lane; ++j) {
      const std::int64_t i = lane + 32 * j;
      acc[j] = acc[j] * corr + (i < d ? e * __bfloat162float(vc[row_at + i]) : 0.0f);
    }
    m = nm;
  }
  for (int j = 0; j < per_lane; ++j) {
    const std::int64_t i = lane + 32 * j;
    if (i < d) out[row * heads * d + h * d + i] = __float2bfloat16(acc[j] / sum);
  }
}

__global__ void swiglu_kernel(const float* gu, void* act, std::int64_t rows, std::int64_t inter, float fp8_inverse,
                              const float* bias) {
  pdl_allow_next();
  pdl_wait();  // the previous kernel's outputs are this one's inputs
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows * inter) return;
  const std::int64_t r = i / inter, c = i % inter;
  const float g = gu[r * 2 * inter + c] + (bias ? bias[c] : 0.0f), u = gu[r * 2 * inter + inter + c] + (bias ? bias[inter + c] : 0.0f);
  store_activation(act, i, g / (1.0f + __expf(-g)) * u, fp8_inverse);
}

__global__ void add_bias_kernel(float* y, const float* bias, std::int64_t rows, std::int64_t n) {
  pdl_allow_next();
  pdl_wait();  // the previous kernel's outputs are this one's inputs
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < rows * n) y[i] += bias[i % n];
}

__global__ void quantize_kernel(const __nv_bfloat16* x, __nv_fp8_storage_t* out, std::int64_t n, float fp8_inverse) {
  pdl_allow_next();
  pdl_wait();
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) store_activation(out, i, __bfloat162float(x[i]), fp8_inverse);
}

// Orders floats as unsigned integers; the index is stored inverted so that equal logits
// pick the lower index under a max.
__device__ inline unsigned long long argmax_key(float v, std::int64_t i) {
  const unsigned u = __float_as_uint(v);
  const unsigned ordered = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  return (static_cast<unsigned long long>(ordered) << 32) | (0xffffffffu - static_cast<unsigned>(i));
}

// Blocks (slice, row): each folds its slice into the row's key with one atomicMax; the last
// block of a row to finish (a ticket) writes the token and clears the key and ticket for
// the next launch. A vocabulary of 128k in one block took 109 us a step on the H100.
__global__ void argmax_kernel(const float* logits, std::int32_t* next, std::int64_t vocab, unsigned long long* keys,
                              unsigned* tickets) {
  pdl_allow_next();
  pdl_wait();  // the previous kernel's outputs are this one's inputs
  const std::int64_t row = blockIdx.y;
  const float* x = logits + row * vocab;
  unsigned long long best = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < vocab;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    best = max(best, argmax_key(x[i], i));
  for (int o = 16; o > 0; o /= 2) best = max(best, __shfl_xor_sync(0xffffffffu, best, o));
  __shared__ unsigned long long warp_best[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_best[threadIdx.x / 32] = best;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < kThreads / 32; ++w) best = max(best, warp_best[w]);
  atomicMax(keys + row, best);
  __threadfence();
  if (atomicAdd(tickets + row, 1u) != gridDim.x - 1) return;
  const unsigned long long key = atomicExch(keys + row, 0ull);
  tickets[row] = 0;
  next[row] = static_cast<std::int32_t>(0xffffffffu - static_cast<unsigned>(key & 0xffffffffu));
}

__global__ void tp_best_keys_kernel(const float* logits, const std::int32_t* next, std::int64_t rows, std::int64_t vocab,
                                    std::int64_t offset, unsigned long long* keys) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  const std::int64_t at = next[row];
  keys[row] = argmax_key(logits[row * vocab + at], offset + at);
}

__global__ void tp_pick_best_kernel(const unsigned long long* gathered, int tp, std::int64_t rows, std::int32_t* next) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= rows) return;
  unsigned long long best = 0;
  for (int q = 0; q < tp; ++q) best = max(best, gathered[q * rows + row]);
  next[row] = static_cast<std::int32_t>(0xffffffffu - static_cast<unsigned>(best & 0xffffffffu));
}

__global__ void fill_bf16_kernel(__nv_bfloat16* p, std::int64_t n, std::uint64_t seed, float lo, float hi) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  p[i] = __float2bfloat16(lo + (hi - lo) * static_cast<float>(z >> 40) * (1.0f / 16777216.0f));
}

__global__ void poison_kernel(float* p, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = __int_as_float(0x7fc00000);
}

}  // namespace

void embed(const std::int32_t* tokens, const void* e, float* h, std::int64_t rows, std::int64_t hidden) {
  launch_pdl(embed_kernel, blocks_for(rows * hidden), kThreads, 0, tokens, static_cast<const __nv_bfloat16*>(e), h, rows, hidden);
  ROOFTOP_GPU_CHECK_LAUNCH("embed");
}
void rms_norm(const float* h, const float* w, void* out, std::int64_t rows, std::int64_t stride, std::int64_t first,
              std::int64_t hidden, float eps, float fp8_inverse) {
  launch_pdl(rms_norm_kernel, static_cast<unsigned>(rows), kThreads, 0, h, w, out, stride, first, hidden, eps, fp8_inverse);
  ROOFTOP_GPU_CHECK_LAUNCH("rms_norm");
}
void rope_and_cache(float* qkv, void* k, void* v, void* q16, const float* table, std::int64_t batch, std::int64_t tokens,
                    const std::int32_t* start, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
                    const CacheLayout& cache, void* const* kv_rows, const float* bias) {
  const std::int64_t items = (heads + kv_heads) * (d / 2) + kv_heads * d;
  launch_pdl(rope_cache_kernel, dim3(static_cast<unsigned>(batch * tokens), blocks_for(items)), kThreads, 0,
      qkv, static_cast<__nv_bfloat16*>(k), static_cast<__nv_bfloat16*>(v), static_cast<__nv_bfloat16*>(q16),
      reinterpret_cast<const float2*>(table), tokens, start, heads, kv_heads, d, cache,
      kv_rows ? static_cast<__nv_bfloat16*>(kv_rows[0]) : nullptr, kv_rows ? static_cast<__nv_bfloat16*>(kv_rows[1]) : nullptr,
      bias);
  ROOFTOP_GPU_CHECK_LAUNCH("rope_and_cache");
}
void attention(const float* qkv, const void* k, const void* v, void* out, std::int64_t batch, std::int64_t tokens,
               const std::int32_t* start, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
               const CacheLayout& cache, std::int64_t window) {
  const std::int64_t warps = batch * tokens * heads;
  launch_pdl(attention_kernel, static_cast<unsigned>((warps * 32 + kThreads - 1) / kThreads), kThreads, 0,
      qkv, static_cast<const __nv_bfloat16*>(k), static_cast<const __nv_bfloat16*>(v), static_cast<__nv_bfloat16*>(out),
      warps, tokens, start, heads, kv_heads, d, cache, window);
  ROOFTOP_GPU_CHECK_LAUNCH("attention");
}
void swiglu(const float* gu, void* act, std::int64_t rows, std::int64_t inter, float fp8_inverse, const float* bias) {
  launch_pdl(swiglu_kernel, blocks_for(rows * inter), kThreads, 0, gu, act, rows, inter, fp8_inverse, bias);
  ROOFTOP_GPU_CHECK_LAUNCH("swiglu");
}
void add_bias(float* y, const float* bias, std::int64_t rows, std::int64_t n) {
  launch_pdl(add_bias_kernel, blocks_for(rows * n), kThreads, 0, y, bias, rows, n);
  ROOFTOP_GPU_CHECK_LAUNCH("add_bias");
}
void quantize_e4m3(const void* x, void* out, std::int64_t n, float fp8_inverse) {
  launch_pdl(quantize_kernel, blocks_for(n), kThreads, 0, static_cast<const __nv_bfloat16*>(x),
             static_cast<__nv_fp8_storage_t*>(out), n, fp8_inverse);
  ROOFTOP_GPU_CHECK_LAUNCH("quantize_e4m3");
}
void argmax(const float* logits, std::int32_t* next, std::int64_t rows, std::int64_t vocab, void* workspace) {
  // Slices of 4 elements a thread at least: the row's blocks, up to a wave of the GPU.
  const auto slices = static_cast<unsigned>(std::min<std::int64_t>(128, (vocab + 4 * kThreads - 1) / (4 * kThreads)));
  auto* keys = static_cast<unsigned long long*>(workspace);
  launch_pdl(argmax_kernel, dim3(slices, static_cast<unsigned>(rows)), kThreads, 0,
      logits, next, vocab, keys, reinterpret_cast<unsigned*>(keys + rows));
  ROOFTOP_GPU_CHECK_LAUNCH("argmax");
}
void tp_best_keys(const float* logits, const std::int32_t* next, std::int64_t rows, std::int64_t vocab, std::int64_t offset,
                  void* keys) {
  tp_best_keys_kernel<<<static_cast<unsigned>((rows + kThreads - 1) / kThreads), kThreads, 0, gpu::stream()>>>(
      logits, next, rows, vocab, offset, static_cast<unsigned long long*>(keys));
  ROOFTOP_GPU_CHECK_LAUNCH("tp_best_keys");
}

void tp_pick_best(const void* gathered, int tp, std::int64_t rows, std::int32_t* next) {
  tp_pick_best_kernel<<<static_cast<unsigned>((rows + kThreads - 1) / kThreads), kThreads, 0, gpu::stream()>>>(
      static_cast<const unsigned long long*>(gathered), tp, rows, next);
  ROOFTOP_GPU_CHECK_LAUNCH("tp_pick_best");
}

bool pdl_enabled() {
  static const bool enabled = gpu::pdl_supported(reinterpret_cast<const void*>(rms_norm_kernel));
  return enabled;
}

std::vector<float> rope_table(std::int64_t positions, const std::vector<double>& frequencies, double amplitude) {
  const auto half = static_cast<std::int64_t>(frequencies.size());
  std::vector<float> t(static_cast<std::size_t>(positions * half * 2));
  for (std::int64_t p = 0; p < positions; ++p)
    for (std::int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p) * frequencies[static_cast<std::size_t>(i)];
      t[static_cast<std::size_t>((p * half + i) * 2)] = static_cast<float>(amplitude * std::cos(angle));
      t[static_cast<std::size_t>((p * half + i) * 2 + 1)] = static_cast<float>(amplitude * std::sin(angle));
    }
  return t;
}

std::int64_t argmax_workspace_bytes(std::int64_t rows) { return rows * 12; }

void fill_bf16(void* data, std::int64_t n, std::uint64_t seed, float lo, float hi) {
  fill_bf16_kernel<<<blocks_for(n), kThreads, 0, gpu::stream()>>>(static_cast<__nv_bfloat16*>(data), n, seed, lo, hi);
  ROOFTOP_GPU_CHECK_LAUNCH("fill_bf16");
}
void poison_f32(float* data, std::int64_t n) {
  poison_kernel<<<blocks_for(n), kThreads, 0, gpu::stream()>>>(data, n);
  ROOFTOP_GPU_CHECK_LAUNCH("poison_f32");
}

}  // namespace rooftop::inference::kernels
