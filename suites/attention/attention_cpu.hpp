#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/problem.hpp"
#include "suites/attention/attention_problem.hpp"

namespace rooftop::attention {
// Our fused, tiled attention with online softmax (prefill and decode, contiguous or paged
// cache), or the unfused oneDNN path (matmul, softmax, matmul), per the problem's impl.
std::unique_ptr<Instance> create_attention_cpu(const Problem& problem, std::uint64_t seed);
// Whether the CPU runs this prefill on oneDNN tiles, and so takes a CPU tile (m<rows>n<keys>).
bool cpu_tiled_prefill(const AttentionShape& shape, Dtype dtype);
// The tiles `rooftop tune` tries for a point without one (none where tiles do not apply).
std::vector<std::string> cpu_tile_candidates(const AttentionShape& shape, Dtype dtype);
}  // namespace rooftop::attention
