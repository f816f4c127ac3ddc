#pragma once
// The compiled instances of the fused prefill kernels, for the host code in
// attention_cuda_prefill.cpp: kept apart so the .cu files need no fmt.
#include <vector>

#include "suites/attention/attention_cuda_prefill.cuh"

namespace rooftop::attention {

// One configuration, compiled for [bf16, fp16] x [head dim 64, 128].
struct PrefillKernel {
  PrefillConfig config;
  const void* kernels[2][2];
  int shared[2];  // dynamic shared memory bytes, by head dim
  void (*launch[2][2])(const PrefillArgs&);
};

// mma.sync's (sm_80+, attention_cuda_prefill.cu) and wgmma's (sm_90a,
// attention_cuda_prefill_hopper.cu).
const std::vector<PrefillKernel>& mma_prefill_kernels();
const std::vector<PrefillKernel>& hopper_prefill_kernels();

}  // namespace rooftop::attention
