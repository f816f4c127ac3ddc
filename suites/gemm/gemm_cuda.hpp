#pragma once
#include <cstdint>
#include <memory>

#include "harness/problem.hpp"

namespace rooftop::gemm {
// A GEMM point on the GPU through cuBLASLt, inputs drawn on the device.
std::unique_ptr<Instance> create_gemm_cuda(const Problem& problem, std::uint64_t seed);
}  // namespace rooftop::gemm
