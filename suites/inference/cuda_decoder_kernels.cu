#include <cfloat>

#include "devices/cuda/gpu_runtime.hpp"
#include "suites/inference/cuda_decoder_kernels.cuh"

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
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows * hidden) return;
  const std::int64_t r = i / hidden, c = i % hidden;
  h[i] = __bfloat162float(e[static_cast<std::int64_t>(tokens[r]) * hidden + c]);
}

__global__ void rms_norm_kernel(const float* h, const float* w, __nv_bfloat16* out, std::int64_t stride, std::int64_t first,
                                std::int64_t hidden, float eps) {
  const float* x = h + (first + blockIdx.x * stride) * hidden;
  float sq = 0;
  for (std::int64_t i = threadIdx.x; i < hidden; i += blockDim.x) sq += x[i] * x[i];
  const float inv = rsqrtf(block_sum(sq) / static_cast<float>(hidden) + eps);
  for (std::int64_t i = threadIdx.x; i < hidden; i += blockDim.x)
    out[blockIdx.x * hidden + i] = __float2bfloat16(x[i] * inv * w[i]);
}

__global__ void rope_cache_kernel(float* qkv, __nv_bfloat16* kc, __nv_bfloat16* vc, __nv_bfloat16* q16, std::int64_t tokens,
                                  const std::int32_t* start, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
                                  std::int64_t max_context, double theta) {
  // One block a row (b, t); threads over the (heads + kv_heads) x d/2 pairs, then k and v.
  const std::int64_t row = blockIdx.x, b = row / tokens, t = row % tokens, pos = *start + t;
  const std::int64_t width = (heads + 2 * kv_heads) * d, half = d / 2;
  float* x = qkv + row * width;
  for (std::int64_t p = threadIdx.x; p < (heads + kv_heads) * half; p += blockDim.x) {
    const std::int64_t head = p / half, i = p % half;
    const double angle = static_cast<double>(pos) * pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(d));
    const float c = static_cast<float>(cos(angle)), s = static_cast<float>(sin(angle));
    float* v = x + head * d;
    const float a = v[i], bb = v[i + half];
    v[i] = a * c - bb * s;
    v[i + half] = bb * c + a * s;
  }
  __syncthreads();
  if (q16)  // [B, heads, tokens, d]
    for (std::int64_t e = threadIdx.x; e < heads * d; e += blockDim.x)
      q16[((b * heads + e / d) * tokens + t) * d + e % d] = __float2bfloat16(x[e]);
  for (std::int64_t e = threadIdx.x; e < kv_heads * d; e += blockDim.x) {
    const std::int64_t g = e / d, i = e % d;
    const std::int64_t at = ((b * kv_heads + g) * max_context + pos) * d + i;
    kc[at] = __float2bfloat16(x[(heads + g) * d + i]);
    vc[at] = __float2bfloat16(x[(heads + kv_heads + g) * d + i]);
  }
}

// One warp a (row, head): lanes split the head dimension; keys one at a time with an
// online softmax. Plain, correct, and memory-bound on the cache for decode.
__global__ void attention_kernel(const float* qkv, const __nv_bfloat16* kc, const __nv_bfloat16* vc, __nv_bfloat16* out,
                                 std::int64_t warps, std::int64_t tokens, const std::int32_t* start, std::int64_t heads,
                                 std::int64_t kv_heads, std::int64_t d, std::int64_t max_context) {
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= warps) return;  // the whole warp leaves together: no shuffle is left waiting
  const std::int64_t row = warp / heads, h = warp % heads;
  const std::int64_t b = row / tokens, t = row % tokens, last = *start + t, g = h / (heads / kv_heads);
  const std::int64_t width = (heads + 2 * kv_heads) * d;
  const float* q = qkv + row * width + h * d;
  const __nv_bfloat16* k = kc + (b * kv_heads + g) * max_context * d;
  const __nv_bfloat16* v = vc + (b * kv_heads + g) * max_context * d;
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
  for (std::int64_t p = 0; p <= last; ++p) {
    float s = 0;
    for (int j = 0; j < per_lane; ++j) {
      const std::int64_t i = lane + 32 * j;
      if (i < d) s += qr[j] * __bfloat162float(k[p * d + i]);
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    s *= scale;
    const float nm = fmaxf(m, s), corr = __expf(m - nm), e = __expf(s - nm);
    sum = sum * corr + e;
    for (int j = 0; j < per_lane; ++j) {
      const std::int64_t i = lane + 32 * j;
      acc[j] = acc[j] * corr + (i < d ? e * __bfloat162float(v[p * d + i]) : 0.0f);
    }
    m = nm;
  }
  for (int j = 0; j < per_lane; ++j) {
    const std::int64_t i = lane + 32 * j;
    if (i < d) out[row * heads * d + h * d + i] = __float2bfloat16(acc[j] / sum);
  }
}

__global__ void swiglu_kernel(const float* gu, __nv_bfloat16* act, std::int64_t rows, std::int64_t inter) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= rows * inter) return;
  const std::int64_t r = i / inter, c = i % inter;
  const float g = gu[r * 2 * inter + c], u = gu[r * 2 * inter + inter + c];
  act[i] = __float2bfloat16(g / (1.0f + __expf(-g)) * u);
}

__global__ void argmax_kernel(const float* logits, std::int32_t* next, std::int64_t vocab) {
  const float* row = logits + blockIdx.x * vocab;
  float best = -FLT_MAX;
  std::int64_t at = 0;
  for (std::int64_t i = threadIdx.x; i < vocab; i += blockDim.x)
    if (row[i] > best) {
      best = row[i];
      at = i;
    }
  __shared__ float bv[kThreads];
  __shared__ std::int64_t bi[kThreads];
  bv[threadIdx.x] = best;
  bi[threadIdx.x] = at;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s && (bv[threadIdx.x + s] > bv[threadIdx.x] ||
                            (bv[threadIdx.x + s] == bv[threadIdx.x] && bi[threadIdx.x + s] < bi[threadIdx.x]))) {
      bv[threadIdx.x] = bv[threadIdx.x + s];
      bi[threadIdx.x] = bi[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) next[blockIdx.x] = static_cast<std::int32_t>(bi[0]);
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
  embed_kernel<<<blocks_for(rows * hidden), kThreads, 0, gpu::stream()>>>(tokens, static_cast<const __nv_bfloat16*>(e), h, rows, hidden);
  ROOFTOP_GPU_CHECK_LAUNCH("embed");
}
void rms_norm(const float* h, const float* w, void* out, std::int64_t rows, std::int64_t stride, std::int64_t first,
              std::int64_t hidden, float eps) {
  rms_norm_kernel<<<static_cast<unsigned>(rows), kThreads, 0, gpu::stream()>>>(h, w, static_cast<__nv_bfloat16*>(out), stride, first, hidden, eps);
  ROOFTOP_GPU_CHECK_LAUNCH("rms_norm");
}
void rope_and_cache(float* qkv, void* k, void* v, void* q16, std::int64_t batch, std::int64_t tokens, const std::int32_t* start,
                    std::int64_t heads, std::int64_t kv_heads, std::int64_t d, std::int64_t max_context, double theta) {
  rope_cache_kernel<<<static_cast<unsigned>(batch * tokens), kThreads, 0, gpu::stream()>>>(
      qkv, static_cast<__nv_bfloat16*>(k), static_cast<__nv_bfloat16*>(v), static_cast<__nv_bfloat16*>(q16), tokens, start,
      heads, kv_heads, d, max_context, theta);
  ROOFTOP_GPU_CHECK_LAUNCH("rope_and_cache");
}
void attention(const float* qkv, const void* k, const void* v, void* out, std::int64_t batch, std::int64_t tokens,
               const std::int32_t* start, std::int64_t heads, std::int64_t kv_heads, std::int64_t d,
               std::int64_t max_context) {
  const std::int64_t warps = batch * tokens * heads;
  attention_kernel<<<static_cast<unsigned>((warps * 32 + kThreads - 1) / kThreads), kThreads, 0, gpu::stream()>>>(
      qkv, static_cast<const __nv_bfloat16*>(k), static_cast<const __nv_bfloat16*>(v), static_cast<__nv_bfloat16*>(out),
      warps, tokens, start, heads, kv_heads, d, max_context);
  ROOFTOP_GPU_CHECK_LAUNCH("attention");
}
void swiglu(const float* gu, void* act, std::int64_t rows, std::int64_t inter) {
  swiglu_kernel<<<blocks_for(rows * inter), kThreads, 0, gpu::stream()>>>(gu, static_cast<__nv_bfloat16*>(act), rows, inter);
  ROOFTOP_GPU_CHECK_LAUNCH("swiglu");
}
void argmax(const float* logits, std::int32_t* next, std::int64_t rows, std::int64_t vocab) {
  argmax_kernel<<<static_cast<unsigned>(rows), kThreads, 0, gpu::stream()>>>(logits, next, vocab);
  ROOFTOP_GPU_CHECK_LAUNCH("argmax");
}
void fill_bf16(void* data, std::int64_t n, std::uint64_t seed, float lo, float hi) {
  fill_bf16_kernel<<<blocks_for(n), kThreads, 0, gpu::stream()>>>(static_cast<__nv_bfloat16*>(data), n, seed, lo, hi);
  ROOFTOP_GPU_CHECK_LAUNCH("fill_bf16");
}
void poison_f32(float* data, std::int64_t n) {
  poison_kernel<<<blocks_for(n), kThreads, 0, gpu::stream()>>>(data, n);
  ROOFTOP_GPU_CHECK_LAUNCH("poison_f32");
}

}  // namespace rooftop::inference::kernels
