// The GEMV configuration r8t256 (cuda_gemv_kernel.cuh says why a file each).
#include "suites/inference/cuda_gemv_kernel.cuh"

namespace rooftop::inference::kernels::gemv_detail {
ROOFTOP_GEMV_INSTANTIATE(8, 256);
}
