#pragma once
#include <memory>

#include "harness/problem.hpp"

namespace rooftop::gemm {
// A GEMM point on the CPU through a oneDNN matmul primitive.
std::unique_ptr<Instance> create_gemm_cpu(const Problem& problem, std::uint64_t seed);
}  // namespace rooftop::gemm
