// The GEMV configuration r4t128 (cuda_gemv_kernel.cuh says why a file each).
#include "suites/inference/cuda_gemv_kernel.cuh"

namespace rooftop::inference::kernels::gemv_detail {
ROOFTOP_GEMV_INSTANTIATE(4, 128);
}
