// The GEMV configuration r2t128 (cuda_gemv_kernel.cuh says why a file each).
#include "suites/inference/cuda_gemv_kernel.cuh"

namespace rooftop::inference::kernels::gemv_detail {
ROOFTOP_GEMV_INSTANTIATE(2, 128);
}
