#pragma once
// rocBLAS's C API, the subset rooftop calls, declared by its public ABI: Debian ships no
// rocBLAS headers, and the library is opened at run time (devices/hip/rocblas_api.cpp).
// Checked against github.com/ROCm/rocBLAS library/include/internal/rocblas-types.h,
// rocblas-functions.h and rocblas-auxiliary.h at tag rocm-5.2.0 (commit
// 4a92c6f126491fdc92afb1c382e7987891c9b0d3) and at develop (commit
// b520bc83fa67045bed4544f33ba83ce3a7c39c44, 2024-10-23): every value and parameter list
// below is the same in both (but statuses 14 and 15, develop's only). The LP64 build
// (rocblas_int 32-bit; rocblas_ILP64 undefined), the one ROCm ships. No HIP header: the
// mapping (rocblas_gemm_args.hpp) is tested in every build.
#include <cstddef>
#include <cstdint>

extern "C" {
typedef struct _rocblas_handle* rocblas_handle;
// As rocblas-types.h declares it; the same typedef as hip_runtime.h's, so both may be seen.
typedef struct ihipStream_t* hipStream_t;

typedef int32_t rocblas_int;     // sizes and leading dimensions: 32-bit
typedef int64_t rocblas_stride;  // strided-batch offsets, in elements

typedef enum rocblas_operation_ {
  rocblas_operation_none = 111,
  rocblas_operation_transpose = 112,
  rocblas_operation_conjugate_transpose = 113
} rocblas_operation;

// Only the real types gemm_ex takes for rooftop's dtypes (the rest left out).
typedef enum rocblas_datatype_ {
  rocblas_datatype_f16_r = 150,
  rocblas_datatype_f32_r = 151,
  rocblas_datatype_f64_r = 152,
  rocblas_datatype_i8_r = 160,
  rocblas_datatype_i32_r = 162,
  rocblas_datatype_bf16_r = 168
} rocblas_datatype;

typedef enum rocblas_status_ {
  rocblas_status_success = 0,
  rocblas_status_invalid_handle = 1,
  rocblas_status_not_implemented = 2,
  rocblas_status_invalid_pointer = 3,
  rocblas_status_invalid_size = 4,
  rocblas_status_memory_error = 5,
  rocblas_status_internal_error = 6,
  rocblas_status_perf_degraded = 7,
  rocblas_status_invalid_value = 11,
  rocblas_status_excluded_from_build = 14,  // 14 and 15: develop's (not to 5.5), declared so the
  rocblas_status_arch_mismatch = 15         // enum's range (0..15) holds every status returned
} rocblas_status;

typedef enum rocblas_gemm_algo_ { rocblas_gemm_algo_standard = 0 } rocblas_gemm_algo;
typedef enum rocblas_gemm_flags_ { rocblas_gemm_flags_none = 0 } rocblas_gemm_flags;

rocblas_status rocblas_create_handle(rocblas_handle* handle);
rocblas_status rocblas_destroy_handle(rocblas_handle handle);
rocblas_status rocblas_set_stream(rocblas_handle handle, hipStream_t stream);
const char* rocblas_status_to_string(rocblas_status status);
rocblas_status rocblas_get_version_string_size(size_t* len);
rocblas_status rocblas_get_version_string(char* buf, size_t len);

// D = alpha op(A) op(B) + beta C, column-major; alpha and beta of compute_type, on the host
// (the handle's default pointer mode). C and D may be one matrix when their types and ld match.
rocblas_status rocblas_gemm_ex(rocblas_handle handle, rocblas_operation transA, rocblas_operation transB, rocblas_int m,
                               rocblas_int n, rocblas_int k, const void* alpha, const void* a, rocblas_datatype a_type,
                               rocblas_int lda, const void* b, rocblas_datatype b_type, rocblas_int ldb,
                               const void* beta, const void* c, rocblas_datatype c_type, rocblas_int ldc, void* d,
                               rocblas_datatype d_type, rocblas_int ldd, rocblas_datatype compute_type,
                               rocblas_gemm_algo algo, int32_t solution_index, uint32_t flags);
rocblas_status rocblas_gemm_strided_batched_ex(
    rocblas_handle handle, rocblas_operation transA, rocblas_operation transB, rocblas_int m, rocblas_int n,
    rocblas_int k, const void* alpha, const void* a, rocblas_datatype a_type, rocblas_int lda, rocblas_stride stride_a,
    const void* b, rocblas_datatype b_type, rocblas_int ldb, rocblas_stride stride_b, const void* beta, const void* c,
    rocblas_datatype c_type, rocblas_int ldc, rocblas_stride stride_c, void* d, rocblas_datatype d_type,
    rocblas_int ldd, rocblas_stride stride_d, rocblas_int batch_count, rocblas_datatype compute_type,
    rocblas_gemm_algo algo, int32_t solution_index, uint32_t flags);
}
