#pragma once
// How a kernel stores an activation that a projection reads: bf16, or for fp8 weights the
// e4m3 value of bf16(v) x (1 / the projection's input scale), saturating. Rounding through
// bf16 first keeps the values those of the reference (reference_decoder.cpp), which
// quantises the bf16 activation.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace rooftop::inference::kernels {

// fp8_inverse 0: bf16 out; else e4m3 out.
__device__ inline void store_activation(void* out, std::int64_t i, float v, float fp8_inverse) {
  const __nv_bfloat16 b = __float2bfloat16(v);
  if (fp8_inverse == 0.0f) {
    static_cast<__nv_bfloat16*>(out)[i] = b;
  } else {
    static_cast<__nv_fp8_storage_t*>(out)[i] =
        __nv_cvt_float_to_fp8(__bfloat162float(b) * fp8_inverse, __NV_SATFINITE, __NV_E4M3);
  }
}

}  // namespace rooftop::inference::kernels
