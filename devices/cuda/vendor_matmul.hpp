#pragma once
// The vendor library's GEMM the suites and `characterize` use: cuBLASLt for CUDA,
// rocBLAS for HIP; both take the same shapes and calls.
#include "devices/cuda/vendors/gpu.hpp"
#if defined(ROOFTOP_HIP)
#include "devices/hip/rocblas_matmul.hpp"
namespace rooftop::gpu {
using VendorMatmul = RocblasMatmul;
inline constexpr const char* kVendorMatmulName = "rocBLAS";  // in implementation names and labels
}
#else
#include "devices/cuda/cublaslt_matmul.hpp"
namespace rooftop::gpu {
using VendorMatmul = CublasLtMatmul;
inline constexpr const char* kVendorMatmulName = "cuBLASLt";
}
#endif
