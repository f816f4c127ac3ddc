#pragma once
// The decoder's kernels launch as programmatic dependent launches (devices/cuda/gpu_pdl.cuh)
// wherever the GPU and the build allow it.
#include <utility>

#include "devices/cuda/gpu_pdl.cuh"

namespace rooftop::inference::kernels {

using gpu::pdl_allow_next;
using gpu::pdl_wait;

// Whether the decoder's launches overlap (gpu::pdl_supported for its kernels).
bool pdl_enabled();

template <class... Params, class... Args>
void launch_pdl(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, Args&&... args) {
  gpu::launch_pdl(pdl_enabled(), kernel, grid, block, shared, std::forward<Args>(args)...);
}

}  // namespace rooftop::inference::kernels
