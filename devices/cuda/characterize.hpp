#pragma once
#include <ostream>

#include "devices/cuda/cuda_info.hpp"
#include "harness/backend.hpp"

namespace rooftop::gpu {

// Memory bandwidth (copy, read-only, write-only; a read sweep from L2 to HBM), the fp32 FMA
// peak of an own kernel, cuBLASLt matrix peaks per dtype, host<->device bandwidth and the
// shortest kernel time.
DeviceProfile characterize_gpu(const GpuInfo& info, const CharacterizeOptions& options, std::ostream& log);

}  // namespace rooftop::gpu
