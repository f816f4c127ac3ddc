#pragma once
// The CUDA decode kernel's limits on one split, shared by the problem's checks (host code)
// and the kernel (suites/attention/attention_cuda_decode.cuh).
#include <cstdint>

namespace rooftop::attention {

// A split walks this many keys at most (its paged block ids fit in shared memory) and at
// least (one stage of the tensor-core kernel's ring).
inline constexpr std::int64_t kDecodeMaxSplitKeys = 8192;
inline constexpr std::int64_t kDecodeMinSplitKeys = 64;
// The splits are the launch's grid y: at most 65535; fewer are ever useful.
inline constexpr std::int64_t kDecodeMaxSplits = 4096;

}  // namespace rooftop::attention
