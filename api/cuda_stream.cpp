// The stream a declared cuda benchmark enqueues on: the one the harness's CUDA timer records.
#include "rooftop/rooftop.hpp"

#ifdef ROOFTOP_HAVE_CUDA
#include "devices/cuda/gpu_runtime.hpp"
#endif

namespace rooftop {

void* cuda_stream() {
#ifdef ROOFTOP_HAVE_CUDA
  return gpu::stream();
#else
  return nullptr;
#endif
}

}  // namespace rooftop
