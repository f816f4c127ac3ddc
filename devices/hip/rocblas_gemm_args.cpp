#include "devices/hip/rocblas_gemm_args.hpp"

#include <fmt/format.h>

#include <limits>

#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

struct Types {
  rocblas_datatype ab, d, compute;
};

// The combinations gemm_ex lists as supported (rocblas-functions.h, ROCm 5.2 and later).
Types types_of(Dtype dtype, bool d_fp32) {
  const auto not_ex = [&](const char* why) {
    return PointSkipped(fmt::format("rocBLAS's gemm_ex takes no {} ({}); the HIP build's GEMMs are fp32, bf16, fp16 "
                                    "and int8",
                                    dtype_name(dtype), why));
  };
  if (d_fp32 && dtype != Dtype::bf16 && dtype != Dtype::fp16)
    throw PointSkipped(fmt::format("fp32 output of a {} product: rooftop asks for it of bf16 or fp16 inputs only",
                                   dtype_name(dtype)));
  const rocblas_datatype f32 = rocblas_datatype_f32_r;
  switch (dtype) {
    case Dtype::fp32: return {f32, f32, f32};
    case Dtype::bf16: return {rocblas_datatype_bf16_r, d_fp32 ? f32 : rocblas_datatype_bf16_r, f32};
    case Dtype::fp16: return {rocblas_datatype_f16_r, d_fp32 ? f32 : rocblas_datatype_f16_r, f32};
    case Dtype::int8: return {rocblas_datatype_i8_r, rocblas_datatype_i32_r, rocblas_datatype_i32_r};
    case Dtype::tf32: throw not_ex("tf32 is a math mode of the handle there, on gfx940 and later, not a gemm_ex type");
    case Dtype::fp8: throw not_ex("its fp8 types are gemm_ex3's, ROCm 6.0 and later");
  }
  throw PointSkipped(fmt::format("no rocBLAS types for {}", dtype_name(dtype)));
}

rocblas_int checked(const char* what, std::int64_t value) {
  if (value < 1 || value > std::numeric_limits<rocblas_int>::max())
    throw PointSkipped(fmt::format("rocBLAS's gemm_ex takes sizes of 1 to {} (32-bit rocblas_int); {} is {}",
                                   std::numeric_limits<rocblas_int>::max(), what, value));
  return static_cast<rocblas_int>(value);
}

}  // namespace

RocblasGemmArgs rocblas_gemm_args(Dtype dtype, const MatmulShape& shape) {
  const Types t = types_of(dtype, shape.d_fp32);
  const rocblas_int m = checked("M", shape.m), n = checked("N", shape.n), k = checked("K", shape.k);
  RocblasGemmArgs args;
  args.batch_count = checked("the batch", shape.batch);
  // Row-major X[r,c] is column-major X^T with ld c, so D[M,N] = A B' is, column-major,
  // D^T (N x M, ld N) = B'^T (N x K) A^T (K x M, as A is stored: ld K). B stored [N,K] is
  // K x N column-major (ld K), transposed to N x K; B stored [K,N] is N x K already (ld N).
  args.m = n;
  args.n = m;
  args.k = k;
  args.trans_a = shape.b_stored_nk ? rocblas_operation_transpose : rocblas_operation_none;
  args.lda = shape.b_stored_nk ? k : n;
  args.trans_b = rocblas_operation_none;
  args.ldb = k;
  args.ldd = n;
  args.stride_a = shape.stride_b;
  args.stride_b = shape.stride_a;
  args.stride_d = shape.stride_d;
  args.ab_type = t.ab;
  args.d_type = t.d;
  args.compute_type = t.compute;
  return args;
}

}  // namespace rooftop::gpu
