#pragma once
#include <cstdint>
#include <memory>

#include "harness/problem.hpp"

namespace rooftop::attention {
// Attention on a CUDA GPU: the fused tensor-core prefill kernel (its tile configuration
// from the shape) and the split-KV decode kernel (contiguous and paged caches).
std::unique_ptr<Instance> create_attention_cuda(const Problem& problem, std::uint64_t seed);
}  // namespace rooftop::attention
