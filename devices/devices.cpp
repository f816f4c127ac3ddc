#include "devices/devices.hpp"

#include "devices/cpu/cpu_backend.hpp"
#if defined(ROOFTOP_HAVE_CUDA) || defined(ROOFTOP_HAVE_HIP)
#include "devices/cuda/cuda_backend.hpp"
#endif
#include "harness/backend.hpp"

namespace rooftop {

void register_all_backends() {
  register_backend(cpu::make_cpu_backend());
#if defined(ROOFTOP_HAVE_CUDA) || defined(ROOFTOP_HAVE_HIP)
  register_backend(gpu::make_cuda_backend());  // "cuda" or "hip": the GPU vendor of this build
#endif
}

}  // namespace rooftop
