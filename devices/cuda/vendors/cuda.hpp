#pragma once
// CUDA: the names GPU code uses are CUDA's own.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#define ROOFTOP_GPU_VENDOR "CUDA"

#if defined(__CUDACC__)
// Nanoseconds from the GPU's global timer.
__device__ inline unsigned long long gpu_global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif
