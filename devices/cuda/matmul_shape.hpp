#pragma once
// The shape of a vendor library's GEMM (cuBLASLt, rocBLAS): row-major, as an inference engine lays it out.
#include <cstdint>

namespace rooftop::gpu {

// A batch of row-major products D[M,N] = alpha A[M,K] x B, B stored [N,K] (weights, keys)
// or [K,N] (values), each operand `stride` elements after the previous one.
struct MatmulShape {
  std::int64_t m = 1, n = 1, k = 1;
  bool b_stored_nk = true;
  bool d_fp32 = false;  // bf16/fp16 inputs, fp32 output (attention's scores)
  std::int64_t batch = 1, stride_a = 0, stride_b = 0, stride_d = 0;
};

}  // namespace rooftop::gpu
