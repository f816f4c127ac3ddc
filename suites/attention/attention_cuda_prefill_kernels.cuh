#pragma once
// The compiled instances of the fused prefill kernel (attention_cuda_prefill.cu), for the
// host code in attention_cuda_prefill.cpp: kept apart so the .cu needs no fmt.
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

// The first is the default.
const std::vector<PrefillKernel>& prefill_kernels();

}  // namespace rooftop::attention
