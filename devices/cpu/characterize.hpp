#pragma once
#include <iosfwd>

#include "devices/cpu/cpu_info.hpp"
#include "harness/backend.hpp"

namespace rooftop::cpu {

// Measures this CPU's ceilings with all cores: FP32 FMA vector peak, bf16 and int8 matrix
// peaks through oneDNN at a compute-bound size, read bandwidth per memory level from a
// working-set sweep, and the dispatch latency of the smallest oneDNN operation.
DeviceProfile characterize_cpu(const CpuInfo& info, const CharacterizeOptions& options, std::ostream& log);

}  // namespace rooftop::cpu
