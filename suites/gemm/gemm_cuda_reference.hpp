#pragma once
// The GEMM reference on the GPU: chosen output elements recomputed as double-precision dot
// products (one warp each), for the layout of gpu::CublasLtMatmul (B stored [N,K]).
#include <cstdint>
#include <vector>

#include "harness/dtype.hpp"
#include "suites/gemm/element_reference.hpp"
#include "suites/gemm/gemm_shape.hpp"

namespace rooftop::gemm {

// Every element when M x N is at most this, else this many seeded picks (plus the corners).
inline constexpr std::int64_t kGpuCheckedElements = 1 << 16;

std::vector<ElementReference> reference_on_gpu(Dtype dtype, const GemmShape& shape, const void* a, const void* b,
                                               const void* d, std::uint64_t seed);

}  // namespace rooftop::gemm
