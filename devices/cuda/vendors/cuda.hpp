#pragma once
// CUDA: the names GPU code uses are CUDA's own.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#define ROOFTOP_GPU_VENDOR "CUDA"
#define ROOFTOP_GPU_BACKEND "cuda"  // the backend's name on the command line and in results
#define ROOFTOP_GPU_DEVICE_WORDS "CUDA device"
// Capabilities the shared sources test: NVIDIA-only instructions and types.
#define ROOFTOP_GPU_HAS_FP8 1       // __nv_fp8_e4m3 (cuda_fp8.h)
#define ROOFTOP_GPU_HAS_MMA_SYNC 1  // mma.sync, ldmatrix, cp.async (sm_80 PTX)

// The *_sync shuffles' mask of every lane (CUDA's 32 bits; HIP ignores it).
inline constexpr unsigned kFullMask = 0xffffffffu;
// Lanes of a warp, for device code and the host code that sizes its launches.
inline constexpr int kGpuWarpSize = 32;

#if defined(__CUDACC__)
// Nanoseconds from the GPU's global timer.
__device__ inline unsigned long long gpu_global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif
