#include "suites/attention/attention_cuda_softmax.cuh"

#include <cmath>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::attention {
namespace {

constexpr int kThreads = 256;

__device__ inline void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }
__device__ inline void store(__half* p, float v) { *p = __float2half(v); }

// Across the block: within each warp (wavefront: 64 lanes on CDNA) by shuffles, then its warps.
template <class Op>
__device__ float block_reduce(float v, Op op) {
  constexpr int kWarps = kThreads / kGpuWarpSize;
  __shared__ float part[kWarps];
  for (int off = kGpuWarpSize / 2; off > 0; off /= 2) v = op(v, __shfl_xor_sync(kFullMask, v, off));
  if (threadIdx.x % kGpuWarpSize == 0) part[threadIdx.x / kGpuWarpSize] = v;
  __syncthreads();
  float all = part[0];
  for (int w = 1; w < kWarps; ++w) all = op(all, part[w]);
  __syncthreads();  // part is reused by the next reduction
  return all;
}

// One block a row: its maximum, its sum of exponentials, then the probabilities.
template <class T>
__global__ void __launch_bounds__(kThreads) softmax_rows(const float* scores, T* out, std::int64_t sq, std::int64_t skv,
                                                         bool causal) {
  const std::int64_t row = blockIdx.x, i = row % sq;
  const std::int64_t last = causal ? min(skv - 1, i + skv - sq) : skv - 1;  // the last key the query sees
  const float* s = scores + row * skv;
  T* p = out + row * skv;
  float mx = -INFINITY;
  for (std::int64_t j = threadIdx.x; j <= last; j += kThreads) mx = fmaxf(mx, s[j]);
  mx = block_reduce(mx, [](float a, float b) { return fmaxf(a, b); });
  float sum = 0;
  for (std::int64_t j = threadIdx.x; j <= last; j += kThreads) sum += __expf(s[j] - mx);
  sum = block_reduce(sum, [](float a, float b) { return a + b; });
  const float inv = 1.0f / sum;
  for (std::int64_t j = threadIdx.x; j < skv; j += kThreads) store(p + j, j <= last ? __expf(s[j] - mx) * inv : 0.0f);
}

}  // namespace

void launch_softmax_rows(Dtype out_dtype, const float* scores, void* probabilities, std::int64_t rows, std::int64_t sq,
                         std::int64_t skv, bool causal) {
  const auto blocks = static_cast<unsigned>(rows);
  if (out_dtype == Dtype::bf16)
    softmax_rows<<<blocks, kThreads, 0, gpu::stream()>>>(scores, static_cast<__nv_bfloat16*>(probabilities), sq, skv, causal);
  else
    softmax_rows<<<blocks, kThreads, 0, gpu::stream()>>>(scores, static_cast<__half*>(probabilities), sq, skv, causal);
  ROOFTOP_GPU_CHECK_LAUNCH("softmax_rows");
}

}  // namespace rooftop::attention
