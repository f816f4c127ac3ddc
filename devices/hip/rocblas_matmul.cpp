#include "devices/hip/rocblas_matmul.hpp"

#include <fmt/format.h>

#include <cmath>

#include "devices/hip/rocblas_api.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {
const char* type_name(rocblas_datatype t) {
  switch (t) {
    case rocblas_datatype_f32_r: return "f32";
    case rocblas_datatype_i32_r: return "i32";
    default: return "?";
  }
}
}  // namespace

double RocblasMatmul::device_bytes(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k) {
  const double in = static_cast<double>(input_size(dtype)), out = static_cast<double>(accumulator_output_size(dtype));
  return (static_cast<double>(m) * k + static_cast<double>(n) * k) * in + static_cast<double>(m) * n * out;
}

RocblasMatmul::RocblasMatmul(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k) : dtype_(dtype) {
  setup({m, n, k});
  a_ = DeviceBuffer(static_cast<std::size_t>(m * k) * input_size(dtype));
  b_ = DeviceBuffer(static_cast<std::size_t>(n * k) * input_size(dtype));
  d_ = DeviceBuffer(static_cast<std::size_t>(m * n) * accumulator_output_size(dtype));
}

RocblasMatmul::RocblasMatmul(Dtype dtype, const MatmulShape& shape) : dtype_(dtype) {
  if (dtype != Dtype::bf16 && dtype != Dtype::fp16 && !(dtype == Dtype::fp8 && shape.batch == 1))
    throw PointSkipped("products on the caller's buffers take bf16 or fp16, or fp8 unbatched");
  setup(shape);  // fp8: skipped there, with gemm_ex's reason
}

void RocblasMatmul::setup(const MatmulShape& shape) {
  args_ = rocblas_gemm_args(dtype_, shape);  // throws PointSkipped before any library is needed
  const auto& rb = rocblas();                // throws PointSkipped when rocBLAS is absent
  rocblas_handle handle = nullptr;
  ROOFTOP_ROCBLAS_CHECK(rb.rocblas_create_handle(&handle));
  handle_.reset(handle);
  const char* function = args_.batch_count > 1 ? "gemm_strided_batched_ex" : "gemm_ex";
  algorithm_label_ = fmt::format("rocBLAS {}", function);
  algorithm_ = fmt::format("rocBLAS {} {} algo standard, {} compute", rb.version, function, type_name(args_.compute_type));
}

void RocblasMatmul::DestroyHandle::operator()(rocblas_handle handle) const { rocblas().rocblas_destroy_handle(handle); }

void RocblasMatmul::execute() { execute_on(a_.get(), b_.get(), d_.get(), 1); }

void RocblasMatmul::execute_on(const void* a, const void* b, void* d, float alpha, float beta) {
  // alpha and beta are of the compute type, read on the host (the handle's default pointer mode).
  if (args_.compute_type == rocblas_datatype_i32_r) {
    const std::int32_t alpha_i = static_cast<std::int32_t>(std::lround(alpha)), beta_i = static_cast<std::int32_t>(std::lround(beta));
    enqueue(a, b, d, &alpha_i, &beta_i);
  } else {
    enqueue(a, b, d, &alpha, &beta);
  }
}

void RocblasMatmul::enqueue(const void* a, const void* b, void* d, const void* alpha, const void* beta) {
  const auto& rb = rocblas();
  const rocblas_handle handle = handle_.get();
  if (const cudaStream_t s = stream(); !stream_set_ || s != stream_) {  // set once per stream, not per call
    ROOFTOP_ROCBLAS_CHECK(rb.rocblas_set_stream(handle, s));
    stream_ = s;
    stream_set_ = true;
  }
  const RocblasGemmArgs& g = args_;
  // The caller's B is rocBLAS's A, its A rocBLAS's B; C is D (beta accumulates in place).
  if (g.batch_count == 1) {
    ROOFTOP_ROCBLAS_CHECK(rb.rocblas_gemm_ex(handle, g.trans_a, g.trans_b, g.m, g.n, g.k, alpha, b, g.ab_type, g.lda, a,
                                             g.ab_type, g.ldb, beta, d, g.d_type, g.ldd, d, g.d_type, g.ldd,
                                             g.compute_type, rocblas_gemm_algo_standard, 0, rocblas_gemm_flags_none));
  } else {
    ROOFTOP_ROCBLAS_CHECK(rb.rocblas_gemm_strided_batched_ex(
        handle, g.trans_a, g.trans_b, g.m, g.n, g.k, alpha, b, g.ab_type, g.lda, g.stride_a, a, g.ab_type, g.ldb,
        g.stride_b, beta, d, g.d_type, g.ldd, g.stride_d, d, g.d_type, g.ldd, g.stride_d, g.batch_count,
        g.compute_type, rocblas_gemm_algo_standard, 0, rocblas_gemm_flags_none));
  }
}

}  // namespace rooftop::gpu
