#include "suites/inference/cuda_gemv.cuh"

#include "devices/cuda/gpu_runtime.hpp"

namespace rooftop::inference::kernels {
namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kRows = 4;    // weight rows a block streams at once
constexpr int kUnroll = 2;  // 16-byte chunks of each row in flight a thread

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

// A block streams kRows weight rows (rows 4b .. 4b + 3, or for SwiGLU gate rows 2b, 2b + 1
// and their up rows), its threads side by side along K, and applies each to the M rows of
// x; the partial sums meet in shared memory, in a fixed order (the result does not depend
// on timing). Spreading K over the block, not a row over a warp, keeps enough loads in
// flight when N is small (2048 rows gave each multiprocessor 8 warps).
template <int M>
__global__ void __launch_bounds__(kThreads) gemv_kernel(const uint4* __restrict__ x, const uint4* __restrict__ w,
                                                        void* __restrict__ y, std::int64_t n, std::int64_t chunks,
                                                        GemvEpilogue epilogue) {
  const bool swiglu = epilogue == GemvEpilogue::swiglu;
  const std::int64_t half = n / 2;
  std::int64_t row[kRows];
  bool valid[kRows];
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    row[i] = swiglu ? 2 * static_cast<std::int64_t>(blockIdx.x) + i % 2 + (i / 2) * half
                    : kRows * static_cast<std::int64_t>(blockIdx.x) + i;
    valid[i] = swiglu ? 2 * static_cast<std::int64_t>(blockIdx.x) + i % 2 < half : row[i] < n;
  }
  const uint4* wr[kRows];
#pragma unroll
  for (int i = 0; i < kRows; ++i) wr[i] = w + (valid[i] ? row[i] : row[0]) * chunks;  // an idle row rereads row 0
  float acc[kRows][M] = {};
  for (std::int64_t c0 = threadIdx.x; c0 < chunks; c0 += kThreads * kUnroll) {
    uint4 a[kUnroll][kRows];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + kThreads * u;
#pragma unroll
      for (int i = 0; i < kRows; ++i) a[u][i] = c < chunks ? __ldcs(wr[i] + c) : uint4{};  // each weight read once
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t c = c0 + kThreads * u;
      if (c >= chunks) break;
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const uint4 xm = __ldg(x + m * chunks + c);
#pragma unroll
        for (int i = 0; i < kRows; ++i) dot8(a[u][i], xm, acc[i][m]);
      }
    }
  }
  __shared__ float partial[kWarps][kRows][M];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const float v = warp_sum(acc[i][m]);
      if (lane == 0) partial[warp][i][m] = v;
    }
  __syncthreads();
  const int i = threadIdx.x / M, m = threadIdx.x % M;
  if (i >= (swiglu ? kRows / 2 : kRows) || !valid[i]) return;
  const auto total = [&](int r) {
    float t = 0;
    for (int wp = 0; wp < kWarps; ++wp) t += partial[wp][r][m];
    return t;
  };
  const float s = total(i);
  if (swiglu) {
    const float up = total(i + 2);
    static_cast<__nv_bfloat16*>(y)[m * half + row[i]] = __float2bfloat16(s / (1.0f + __expf(-s)) * up);
  } else if (epilogue == GemvEpilogue::accumulate) {
    static_cast<float*>(y)[m * n + row[i]] += s;
  } else {
    static_cast<float*>(y)[m * n + row[i]] = s;
  }
}

template <int M>
void launch(const void* x, const void* w, void* y, std::int64_t n, std::int64_t k, GemvEpilogue e) {
  const std::int64_t blocks = e == GemvEpilogue::swiglu ? (n / 2 + 1) / 2 : (n + kRows - 1) / kRows;
  gemv_kernel<M><<<static_cast<unsigned>(blocks), kThreads, 0, gpu::stream()>>>(
      static_cast<const uint4*>(x), static_cast<const uint4*>(w), y, n, k / 8, e);
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
