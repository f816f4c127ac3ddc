#pragma once
#include <memory>

#include "harness/device_timer.hpp"

namespace rooftop::gpu {

// CUDA events around launches on gpu::stream(). A short spin kernel queued first keeps the
// host's launch gap out. A cold timing first reads a buffer twice the L2's size: the L2 is
// then full of clean lines, so the timed kernel pays no write-back of the flush (a memset,
// nvbench's way, leaves dirty lines: measured, it cost decode GEMMs up to a third).
std::unique_ptr<DeviceTimer> make_cuda_timer(double l2_bytes, int sm_count);

}  // namespace rooftop::gpu
