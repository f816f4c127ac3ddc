#pragma once
#include <cstdint>
#include <memory>

#include "harness/problem.hpp"

namespace rooftop::attention {
// Attention on a CUDA GPU: today the split-KV decode kernel (contiguous and paged caches);
// prefill points are skipped with the reason until the fused prefill kernel lands.
std::unique_ptr<Instance> create_attention_cuda(const Problem& problem, std::uint64_t seed);
}  // namespace rooftop::attention
