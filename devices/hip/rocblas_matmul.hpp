#pragma once
// The HIP build's vendor GEMM (devices/cuda/vendor_matmul.hpp), with CublasLtMatmul's
// interface so the suites' host code is shared. It finds hipBLASLt or rocBLAS at run time;
// the calls into them are not written yet (no AMD GPU to check them on), so every point
// that needs a vendor GEMM is skipped with the reason: the library's absence, or that.
#include <cstdint>
#include <string>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/matmul_shape.hpp"
#include "harness/dtype.hpp"

namespace rooftop::gpu {

class RocblasMatmul {
 public:
  // Throws PointSkipped, always (see above).
  RocblasMatmul(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k);
  RocblasMatmul(Dtype dtype, const MatmulShape& shape);
  RocblasMatmul(const RocblasMatmul&) = delete;
  RocblasMatmul& operator=(const RocblasMatmul&) = delete;

  void* a() const { return nullptr; }
  void* b() const { return nullptr; }
  void* d() const { return nullptr; }
  void execute();
  void execute_on(const void* a, const void* b, void* d, float alpha = 1, float beta = 0);
  const std::string& algorithm() const { return algorithm_; }
  const std::string& algorithm_label() const { return algorithm_; }
  static double device_bytes(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k);

 private:
  std::string algorithm_;
};

}  // namespace rooftop::gpu
