#pragma once
#include <memory>

#include "harness/device_timer.hpp"

namespace rooftop::gpu {

// CUDA events around one launch on gpu::stream(). A short spin kernel queued first keeps
// the host's launch gap out; a cold timing first overwrites twice the L2 (nvbench's way).
std::unique_ptr<DeviceTimer> make_cuda_timer(double l2_bytes);

}  // namespace rooftop::gpu
