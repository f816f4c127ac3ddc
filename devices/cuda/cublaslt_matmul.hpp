#pragma once
// One GEMM through cuBLASLt, the way an inference engine lays it out: D[M,N] = A[M,K] x
// B^T, with the weights B stored [N,K] (K contiguous, as nn.Linear keeps them), all
// row-major. The algorithm is cuBLASLt's heuristic first choice, recorded by name.
// Used by the GEMM suite and by `characterize` for the matrix peaks.
#include <cstdint>
#include <string>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/matmul_shape.hpp"
#include "harness/dtype.hpp"

namespace rooftop::gpu {

class CublasLtMatmul {
 public:
  // Throws PointSkipped where the GPU lacks the dtype or cuBLASLt has no algorithm.
  CublasLtMatmul(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k);
  // On the caller's buffers (execute_on), batched; D in the input type for bf16 and fp16
  // (bf16 for fp8, which takes no batch) unless d_fp32. fp8's per-tensor scales are 1: a
  // caller folds its own into alpha.
  CublasLtMatmul(Dtype dtype, const MatmulShape& shape);
  CublasLtMatmul(const CublasLtMatmul&) = delete;
  CublasLtMatmul& operator=(const CublasLtMatmul&) = delete;
  ~CublasLtMatmul();

  void* a() const { return a_.get(); }
  void* b() const { return b_.get(); }
  void* d() const { return d_.get(); }
  // Queues the product on gpu::stream().
  void execute();
  // beta 1: D += the product (a residual added in place, no kernel of its own).
  void execute_on(const void* a, const void* b, void* d, float alpha = 1, float beta = 0);
  // "cublasLt 13.0.0 algo 66 tile 256x128 stages 4 splitK 1 cluster 2x1x1"
  const std::string& algorithm() const { return algorithm_; }
  const std::string& algorithm_label() const { return algorithm_label_; }  // "cuBLASLt algo 43"
  // Bytes the instance allocates on the device: A, B, D, workspace.
  static double device_bytes(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k);

 private:
  void setup(const MatmulShape& shape);
  void enqueue(const void* a, const void* b, void* d, const void* alpha, const void* beta);

  Dtype dtype_;
  DeviceBuffer a_, b_, d_, scales_, workspace_;
  void* handle_ = nullptr;
  void* desc_ = nullptr;
  void* layouts_[3] = {};
  unsigned char algo_[64] = {};  // cublasLtMatmulAlgo_t, kept opaque here
  std::string algorithm_;
  std::string algorithm_label_;
};

}  // namespace rooftop::gpu
