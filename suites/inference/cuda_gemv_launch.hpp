#pragma once
// The GEMV's launch for one compiled configuration, declared for the dispatcher
// (cuda_gemv.cu) and defined in the configuration's own file (cuda_gemv_kernel.cuh).
#include <cstdint>

#include "suites/inference/cuda_gemv.cuh"

namespace rooftop::inference::kernels::gemv_detail {

// x [m][k] times W [n][k] with R weight rows a block of T threads; m picks the unrolled M.
template <int R, int T>
void launch_rows(const void* x, const void* w, void* y, std::int64_t m, std::int64_t n, std::int64_t k, GemvEpilogue e,
                 const GemvFp8* fp8, const GemvNorm* norm, const GemvRope* rope);

// In the configuration's file, after cuda_gemv_kernel.cuh.
#define ROOFTOP_GEMV_INSTANTIATE(R, T)                                                                          \
  template void launch_rows<R, T>(const void*, const void*, void*, std::int64_t, std::int64_t, std::int64_t, \
                                  GemvEpilogue, const GemvFp8*, const GemvNorm*, const GemvRope*)

}  // namespace rooftop::inference::kernels::gemv_detail
