#include "suites/inference/cuda_gemv.cuh"

#include "devices/cuda/gpu_runtime.hpp"

namespace rooftop::inference::kernels {
namespace {

constexpr int kWarps = 8;
constexpr int kUnroll = 4;  // 16-byte chunks of each of a warp's two weight rows in flight a lane

__device__ inline void dot8(const uint4& w, const uint4& x, float& acc) {
  const auto* wp = reinterpret_cast<const __nv_bfloat162*>(&w);
  const auto* xp = reinterpret_cast<const __nv_bfloat162*>(&x);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 a = __bfloat1622float2(wp[i]), b = __bfloat1622float2(xp[i]);
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
  }
}

__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// A warp computes two output rows for all M rows of x: rows r and r + 1, or for SwiGLU a
// gate row and its up row; their chunks are loaded kUnroll at a time before any is used.
template <int M>
__global__ void __launch_bounds__(kWarps * 32) gemv_kernel(const uint4* __restrict__ x, const uint4* __restrict__ w,
                                                           void* __restrict__ y, std::int64_t n, std::int64_t chunks,
                                                           GemvEpilogue epilogue) {
  const std::int64_t warp = blockIdx.x * static_cast<std::int64_t>(kWarps) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const bool swiglu = epilogue == GemvEpilogue::swiglu;
  const std::int64_t half = n / 2;
  const std::int64_t r0 = swiglu ? warp : 2 * warp, r1 = swiglu ? warp + half : 2 * warp + 1;
  if (swiglu ? r0 >= half : r0 >= n) return;  // whole warps leave: no shuffle waits on them
  const bool second = r1 < n;
  const uint4* w0 = w + r0 * chunks;
  const uint4* w1 = w + (second ? r1 : r0) * chunks;
  float acc0[M] = {}, acc1[M] = {};
  for (std::int64_t c0 = lane; c0 < chunks; c0 += 32 * kUnroll) {
    uint4 a[kUnroll], b[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + 32 * u;
      a[u] = c < chunks ? __ldcs(w0 + c) : uint4{};  // streamed: each weight is read once
      b[u] = c < chunks ? __ldcs(w1 + c) : uint4{};
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + 32 * u;
      if (c >= chunks) break;
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const uint4 xm = __ldg(x + m * chunks + c);
        dot8(a[u], xm, acc0[m]);
        dot8(b[u], xm, acc1[m]);
      }
    }
  }
#pragma unroll
  for (int m = 0; m < M; ++m) {
    const float s0 = warp_sum(acc0[m]), s1 = warp_sum(acc1[m]);
    if (lane != m % 32) continue;
    if (swiglu) {
      static_cast<__nv_bfloat16*>(y)[m * half + r0] = __float2bfloat16(s0 / (1.0f + __expf(-s0)) * s1);
    } else {
      float* out = static_cast<float*>(y) + m * n;
      if (epilogue == GemvEpilogue::accumulate) {
        out[r0] += s0;
        if (second) out[r1] += s1;
      } else {
        out[r0] = s0;
        if (second) out[r1] = s1;
      }
    }
  }
}

template <int M>
void launch(const void* x, const void* w, void* y, std::int64_t n, std::int64_t k, GemvEpilogue e) {
  const std::int64_t warps = e == GemvEpilogue::swiglu ? n / 2 : (n + 1) / 2;
  const auto blocks = static_cast<unsigned>((warps + kWarps - 1) / kWarps);
  gemv_kernel<M><<<blocks, kWarps * 32, 0, gpu::stream()>>>(static_cast<const uint4*>(x), static_cast<const uint4*>(w), y,
                                                             n, k / 8, e);
}

}  // namespace

bool gemv_fits(std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue e) {
  return m >= 1 && m <= kGemvMaxRows && k % 8 == 0 && n >= 1 && (e != GemvEpilogue::swiglu || n % 2 == 0);
}

void gemv(const void* x, const void* w, void* y, std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue e) {
  switch (m) {
    case 1: launch<1>(x, w, y, n, k, e); break;
    case 2: launch<2>(x, w, y, n, k, e); break;
    case 3: launch<3>(x, w, y, n, k, e); break;
    case 4: launch<4>(x, w, y, n, k, e); break;
    case 5: launch<5>(x, w, y, n, k, e); break;
    case 6: launch<6>(x, w, y, n, k, e); break;
    case 7: launch<7>(x, w, y, n, k, e); break;
    default: launch<8>(x, w, y, n, k, e); break;
  }
  ROOFTOP_GPU_CHECK_LAUNCH("gemv");
}

}  // namespace rooftop::inference::kernels
