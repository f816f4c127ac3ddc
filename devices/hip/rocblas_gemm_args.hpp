#pragma once
// rocBLAS's gemm_ex arguments for one of rooftop's row-major products (MatmulShape): the
// mapping kept apart from the calls, so it is tested in every build without an AMD GPU.
#include "devices/cuda/matmul_shape.hpp"
#include "devices/hip/rocblas_abi.hpp"
#include "harness/dtype.hpp"

namespace rooftop::gpu {

// One column-major D = alpha op(A) op(B) + beta C per batch entry, as
// rocblas_gemm_strided_batched_ex takes it (rocblas_gemm_ex where batch_count is 1). The
// operands are swapped: rocBLAS's A is the caller's B and its B the caller's A. C is D
// (beta adds to it in place): the same pointer, type, leading dimension and stride.
struct RocblasGemmArgs {
  rocblas_operation trans_a = rocblas_operation_none, trans_b = rocblas_operation_none;
  rocblas_int m = 0, n = 0, k = 0;
  rocblas_int lda = 0, ldb = 0, ldd = 0;
  rocblas_stride stride_a = 0, stride_b = 0, stride_d = 0;
  rocblas_int batch_count = 1;
  rocblas_datatype ab_type = rocblas_datatype_f32_r, d_type = rocblas_datatype_f32_r;
  rocblas_datatype compute_type = rocblas_datatype_f32_r;  // alpha and beta are of this type
};

// Throws PointSkipped with the reason where gemm_ex cannot take the product: tf32 and fp8,
// fp32 output for other than bf16/fp16 inputs, a size past rocblas_int's 32 bits.
RocblasGemmArgs rocblas_gemm_args(Dtype dtype, const MatmulShape& shape);

}  // namespace rooftop::gpu
