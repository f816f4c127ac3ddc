// The same RMSNorm on the GPU: a block per row, the sum of squares reduced in registers and
// shared memory, x read once through registers (rows of up to 8192 floats fit a block's).
#include <cuda_runtime.h>

#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rmsnorm.hpp"

namespace {

constexpr int kThreads = 256, kMaxPerThread = 32;  // rows up to 8192 columns
constexpr float kEps = 1e-6f;

cudaStream_t stream() { return static_cast<cudaStream_t>(rooftop::cuda_stream()); }

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void __launch_bounds__(kThreads) rmsnorm_rows(const float* x, const float* w, float* y, int cols) {
  const float* xr = x + static_cast<long long>(blockIdx.x) * cols;
  float* yr = y + static_cast<long long>(blockIdx.x) * cols;
  float v[kMaxPerThread];
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kMaxPerThread; ++i) {
    const int c = threadIdx.x + i * kThreads;
    v[i] = c < cols ? xr[c] : 0.0f;
    sum += v[i] * v[i];
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  __shared__ float warp_sums[kThreads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  float total = 0;
  for (int i = 0; i < kThreads / 32; ++i) total += warp_sums[i];
  const float inv = rsqrtf(total / cols + kEps);
#pragma unroll
  for (int i = 0; i < kMaxPerThread; ++i) {
    const int c = threadIdx.x + i * kThreads;
    if (c < cols) yr[c] = v[i] * inv * w[c];
  }
}

class RmsNormCuda final : public rooftop::Case {
 public:
  RmsNormCuda(const rooftop::Point& p, std::uint64_t seed)
      : rows_(p.get("rows")), cols_(p.get("cols")), x_(rows_ * cols_), w_(cols_), y_(rows_ * cols_) {
    if (cols_ > kThreads * kMaxPerThread) throw rooftop::Skip("rows longer than 8192 columns are not built");
    rmsnorm_example::fill(x_, w_, seed);
    check_cuda(cudaMalloc(&dx_, x_.size() * 4), "cudaMalloc");
    check_cuda(cudaMalloc(&dw_, w_.size() * 4), "cudaMalloc");
    check_cuda(cudaMalloc(&dy_, y_.size() * 4), "cudaMalloc");
    // On the harness's stream, which does not wait for the legacy default stream.
    check_cuda(cudaMemcpyAsync(dx_, x_.data(), x_.size() * 4, cudaMemcpyHostToDevice, stream()), "cudaMemcpyAsync");
    check_cuda(cudaMemcpyAsync(dw_, w_.data(), w_.size() * 4, cudaMemcpyHostToDevice, stream()), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(stream()), "upload");
  }
  ~RmsNormCuda() override {
    cudaFree(dx_);
    cudaFree(dw_);
    cudaFree(dy_);
  }
  void run() override {
    rmsnorm_rows<<<static_cast<unsigned>(rows_), kThreads, 0, stream()>>>(
        dx_, dw_, dy_, static_cast<int>(cols_));
    check_cuda(cudaGetLastError(), "rmsnorm_rows launch");
  }
  rooftop::Check check() override {
    check_cuda(cudaMemsetAsync(dy_, 0xff, y_.size() * 4, stream()), "cudaMemsetAsync");  // NaN: unwritten elements show
    run();
    check_cuda(cudaMemcpyAsync(y_.data(), dy_, y_.size() * 4, cudaMemcpyDeviceToHost, stream()), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(stream()), "rmsnorm_rows");
    return rmsnorm_example::compare(x_, w_, y_, rows_, cols_, kEps);
  }
  std::string implementation() const override { return "fused rmsnorm, a block per row"; }

 private:
  std::int64_t rows_, cols_;
  std::vector<float> x_, w_, y_;
  float *dx_ = nullptr, *dw_ = nullptr, *dy_ = nullptr;
};

}  // namespace

ROOFTOP_BENCHMARK("rmsnorm_cuda")
    .description("Fused RMSNorm over rows (this example's CUDA kernel)")
    .backend("cuda")
    .axis("rows", {4096, 16384})
    .axis("cols", {2048, 8192})
    .work(rmsnorm_example::work)
    .memory(rmsnorm_example::memory)
    .setup([](const rooftop::Point& p, std::uint64_t seed) -> std::unique_ptr<rooftop::Case> {
      return std::make_unique<RmsNormCuda>(p, seed);
    });
