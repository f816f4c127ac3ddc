#pragma once
// The HIP build's vendor GEMM (devices/cuda/vendor_matmul.hpp): rocBLAS's gemm_ex with
// CublasLtMatmul's interface and semantics, so the suites' host code is shared. Row-major
// D[M,N] = alpha A[M,K] x B, B stored [N,K] or [K,N], run as the column-major D^T
// (rocblas_gemm_args.hpp). fp32, bf16, fp16 (fp32 compute) and int8 (int32 out); tf32 and
// fp8 are skipped with the reason. Written against rocBLAS's public ABI, never run on an
// AMD GPU here.
#include <cstdint>
#include <memory>
#include <string>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/matmul_shape.hpp"
#include "devices/hip/rocblas_gemm_args.hpp"
#include "harness/dtype.hpp"

namespace rooftop::gpu {

class RocblasMatmul {
 public:
  // Throws PointSkipped where gemm_ex has no such product or rocBLAS is absent.
  RocblasMatmul(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k);
  // On the caller's buffers (execute_on), batched; D in the input type unless d_fp32.
  // bf16 and fp16 only, as CublasLtMatmul's (its fp8 is skipped here).
  RocblasMatmul(Dtype dtype, const MatmulShape& shape);
  RocblasMatmul(const RocblasMatmul&) = delete;
  RocblasMatmul& operator=(const RocblasMatmul&) = delete;

  void* a() const { return a_.get(); }
  void* b() const { return b_.get(); }
  void* d() const { return d_.get(); }
  // Queues the product on gpu::stream().
  void execute();
  // beta 1: D += the product (in place: rocBLAS's C is D).
  void execute_on(const void* a, const void* b, void* d, float alpha = 1, float beta = 0);
  // "rocBLAS 2.45.0 gemm_ex algo standard, f32 compute"
  const std::string& algorithm() const { return algorithm_; }
  const std::string& algorithm_label() const { return algorithm_label_; }  // "rocBLAS gemm_ex"
  // Bytes the instance allocates on the device: A, B, D (rocBLAS's handle sizes its own
  // workspace, not counted).
  static double device_bytes(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k);

 private:
  void setup(const MatmulShape& shape);
  void enqueue(const void* a, const void* b, void* d, const void* alpha, const void* beta);

  Dtype dtype_;
  RocblasGemmArgs args_;
  DeviceBuffer a_, b_, d_;
  struct DestroyHandle {
    void operator()(rocblas_handle handle) const;
  };
  std::unique_ptr<_rocblas_handle, DestroyHandle> handle_;  // destroyed by a constructor's throw too
  cudaStream_t stream_{};   // the stream last given to the handle
  bool stream_set_ = false;
  std::string algorithm_;
  std::string algorithm_label_;
};

}  // namespace rooftop::gpu
