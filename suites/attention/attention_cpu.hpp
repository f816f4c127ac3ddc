#pragma once
#include <cstdint>
#include <memory>

#include "harness/problem.hpp"

namespace rooftop::attention {
// Our fused, tiled attention with online softmax (prefill and decode, contiguous or paged
// cache), or the unfused oneDNN path (matmul, softmax, matmul), per the problem's impl.
std::unique_ptr<Instance> create_attention_cpu(const Problem& problem, std::uint64_t seed);
}  // namespace rooftop::attention
