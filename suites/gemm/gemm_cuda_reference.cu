#include "suites/gemm/gemm_cuda_reference.hpp"

#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"
#include "devices/cuda/vendors/gpu.hpp"
#include "harness/random_fill.hpp"

namespace rooftop::gemm {
namespace {

constexpr int kWarp = kGpuWarpSize;  // 32 on NVIDIA, 64 on CDNA: the reduction below spans it
constexpr int kWarpsPerBlock = 8;

__device__ inline double value(float x) { return x; }
__device__ inline double value(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ inline double value(__half x) { return __half2float(x); }
#if ROOFTOP_GPU_HAS_FP8
__device__ inline double value(__nv_fp8_e4m3 x) { return static_cast<float>(x); }
#endif
__device__ inline double value(std::int8_t x) { return x; }
__device__ inline double value(std::int32_t x) { return x; }

struct Pick {
  std::int64_t i, j;
};
struct Sums {
  double got, ref, abs_sum, sq_sum;
};

// One warp per picked element: lanes stride over K (A's row and B's row are contiguous).
template <class In, class Out>
__global__ void reference_kernel(const In* a, const In* b, const Out* d, std::int64_t n, std::int64_t k,
                                 const Pick* picks, int count, Sums* out) {
  const int warp = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  if (warp >= count) return;
  const Pick p = picks[warp];
  double ref = 0, abs_sum = 0, sq_sum = 0;
  for (std::int64_t kk = lane; kk < k; kk += kWarp) {
    const double prod = value(a[p.i * k + kk]) * value(b[p.j * k + kk]);
    ref += prod;
    abs_sum += fabs(prod);
    sq_sum += prod * prod;
  }
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    ref += __shfl_down_sync(kFullMask, ref, offset);
    abs_sum += __shfl_down_sync(kFullMask, abs_sum, offset);
    sq_sum += __shfl_down_sync(kFullMask, sq_sum, offset);
  }
  if (lane == 0) out[warp] = {value(d[p.i * n + p.j]), ref, abs_sum, sq_sum};
}

template <class In, class Out>
void launch(const GemmShape& s, const void* a, const void* b, const void* d, const Pick* picks, int count, Sums* out) {
  const int blocks = (count + kWarpsPerBlock - 1) / kWarpsPerBlock;
  reference_kernel<In, Out><<<blocks, kWarpsPerBlock * kWarp, 0, gpu::stream()>>>(
      static_cast<const In*>(a), static_cast<const In*>(b), static_cast<const Out*>(d), s.n, s.k, picks, count, out);
  ROOFTOP_GPU_CHECK_LAUNCH("reference_kernel");
}

}  // namespace

std::vector<ElementReference> reference_on_gpu(Dtype dtype, const GemmShape& s, const void* a, const void* b,
                                               const void* d, std::uint64_t seed) {
  std::vector<Pick> picks;
  if (s.m * s.n <= kGpuCheckedElements) {
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) picks.push_back({i, j});
  } else {
    picks = {{0, 0}, {s.m - 1, s.n - 1}};
    for (std::int64_t p = 0; p < kGpuCheckedElements; ++p)
      picks.push_back({static_cast<std::int64_t>(splitmix64(seed + 2 * p) % static_cast<std::uint64_t>(s.m)),
                       static_cast<std::int64_t>(splitmix64(seed + 2 * p + 1) % static_cast<std::uint64_t>(s.n))});
  }
  const int count = static_cast<int>(picks.size());
  gpu::DeviceBuffer picks_d(picks.size() * sizeof(Pick)), sums_d(picks.size() * sizeof(Sums));
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(picks_d.get(), picks.data(), picks_d.bytes(), cudaMemcpyHostToDevice, gpu::stream()));
  const auto* pk = picks_d.as<Pick>();
  auto* out = sums_d.as<Sums>();
  switch (dtype) {
    case Dtype::fp32:
    case Dtype::tf32: launch<float, float>(s, a, b, d, pk, count, out); break;
    case Dtype::bf16: launch<__nv_bfloat16, __nv_bfloat16>(s, a, b, d, pk, count, out); break;
    case Dtype::fp16: launch<__half, __half>(s, a, b, d, pk, count, out); break;
    case Dtype::fp8:
#if ROOFTOP_GPU_HAS_FP8
      launch<__nv_fp8_e4m3, __nv_bfloat16>(s, a, b, d, pk, count, out);
      break;
#else
      throw PointSkipped(gpu::kNoFp8);
#endif
    case Dtype::int8: launch<std::int8_t, std::int32_t>(s, a, b, d, pk, count, out); break;
  }
  std::vector<Sums> sums(picks.size());
  ROOFTOP_GPU_CHECK(cudaMemcpyAsync(sums.data(), out, sums_d.bytes(), cudaMemcpyDeviceToHost, gpu::stream()));
  ROOFTOP_GPU_CHECK(cudaStreamSynchronize(gpu::stream()));
  std::vector<ElementReference> result(picks.size());
  for (std::size_t e = 0; e < picks.size(); ++e)
    result[e] = {picks[e].i, picks[e].j, sums[e].got, sums[e].ref, sums[e].abs_sum, sums[e].sq_sum};
  return result;
}

}  // namespace rooftop::gemm
