#pragma once
// rocBLAS's functions, resolved at run time from the library amd_gemm_library() opened
// (the binary runs where ROCm's math libraries are absent), and its status checked.
#include <string>

#include "devices/hip/rocblas_abi.hpp"
#include "devices/hip/vendor_gemm_library.hpp"

namespace rooftop::gpu {

#define ROOFTOP_ROCBLAS_FUNCTIONS(X)                                                                    \
  X(rocblas_create_handle) X(rocblas_destroy_handle) X(rocblas_set_stream) X(rocblas_status_to_string) \
  X(rocblas_get_version_string_size) X(rocblas_get_version_string) X(rocblas_gemm_ex)                  \
  X(rocblas_gemm_strided_batched_ex)

struct RocblasApi {
#define ROOFTOP_DECLARE(name) decltype(&::name) name = nullptr;
  ROOFTOP_ROCBLAS_FUNCTIONS(ROOFTOP_DECLARE)
#undef ROOFTOP_DECLARE
  std::string path;
  std::string version;  // "2.45.0.b3d2b1c9-dirty", as rocblas_get_version_string gives it
};

// The functions from `library`; throws PointSkipped where it is hipBLASLt (rooftop calls
// rocBLAS's gemm_ex) or lacks one of them.
RocblasApi load_rocblas(const GemmLibrary& library);
// load_rocblas(amd_gemm_library()), once; throws PointSkipped as the two do.
const RocblasApi& rocblas();

void check_rocblas(rocblas_status status, const char* call, const char* file, int line);
#define ROOFTOP_ROCBLAS_CHECK(call) ::rooftop::gpu::check_rocblas((call), #call, __FILE__, __LINE__)

}  // namespace rooftop::gpu
