#include "devices/cuda/cublaslt_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "devices/cuda/dynamic_library.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

CublasLtApi load() {
  const auto places = cuda_library_places("ROOFTOP_CUBLASLT", ROOFTOP_CUBLASLT_SONAME);
  CublasLtApi api;
  void* lib = open_first(places, api.path);
  if (!lib)
    throw PointSkipped(fmt::format("{} not found (searched: {}); install the CUDA toolkit's cuBLAS, set "
                                   "ROOFTOP_CUBLASLT to the file, or use a bundle made with its CUDA libraries",
                                   ROOFTOP_CUBLASLT_SONAME, fmt::join(places, ", ")));
#define ROOFTOP_RESOLVE(name)                                                                        \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(lib, #name));                              \
  if (!api.name) throw PointSkipped(fmt::format("{} lacks the function {}: a cuBLAS {} is needed", api.path, #name, \
                                                ROOFTOP_CUBLASLT_SONAME));
  ROOFTOP_CUBLASLT_FUNCTIONS(ROOFTOP_RESOLVE)
#undef ROOFTOP_RESOLVE
  return api;
}
}  // namespace

const CublasLtApi& cublaslt() {
  static const CublasLtApi api = load();  // a failed load throws and is retried next time
  return api;
}

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw GpuError(fmt::format("cuBLASLt call {} failed: {} ({}) at {}:{}", call, cublaslt().cublasLtGetStatusString(status),
                             static_cast<int>(status), file, line));
}

}  // namespace rooftop::gpu
