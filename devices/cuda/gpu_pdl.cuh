#pragma once
// Programmatic dependent launch (Hopper and later): a kernel launched this way may start
// while the kernel before it in the stream is finishing. It must call pdl_wait() before it
// reads what that kernel wrote or writes anything that kernel may read; what it can do
// without them (a GEMV's first weight loads) and its launch overlap the previous kernel's
// tail. The previous kernel lets it start early with pdl_allow_next(). On older GPUs, with
// HIP, or with ROOFTOP_PDL=0 the launch is an ordinary one and both calls do nothing. For
// the kernels of a chain that overlaps: the decoder's, and the split-KV decode attention
// when the decoder launches it.
#include <utility>

#include "devices/cuda/gpu_runtime.hpp"

namespace rooftop::gpu {

__device__ inline void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIPCC__)
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ inline void pdl_allow_next() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(__HIPCC__)
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

// Whether launches of `kernel` may overlap: the code that runs has the waits (compute
// capability 9.0 or later and sm_90 code built: a build compiled from older PTX on a
// Hopper GPU has them compiled out), unless ROOFTOP_PDL=0. False with HIP.
bool pdl_supported(const void* kernel);

// Queues `kernel` on gpu::stream(), as a programmatic dependent launch when `overlap`.
template <class... Params, class... Args>
void launch_pdl(bool overlap, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, Args&&... args) {
#if !defined(__HIPCC__)
  if (overlap) {
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared;
    config.stream = stream();
    config.attrs = attribute;
    config.numAttrs = 1;
    ROOFTOP_GPU_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
    return;
  }
#endif
  (void)overlap;
  kernel<<<grid, block, shared, stream()>>>(std::forward<Args>(args)...);
}

}  // namespace rooftop::gpu
