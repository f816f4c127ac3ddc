#include "devices/hip/rocblas_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <vector>

#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {

RocblasApi load_rocblas(const GemmLibrary& library) {
  if (library.name != "rocBLAS")
    throw PointSkipped(fmt::format("{} found at {}, but rooftop calls rocBLAS's gemm_ex and rocBLAS was not found "
                                   "(searched: {}); install ROCm's rocblas or set ROOFTOP_ROCBLAS=/path/to/librocblas.so",
                                   library.name, library.path, fmt::join(library.rocblas_searched, ", ")));
  RocblasApi api;
  api.path = library.path;
#define ROOFTOP_RESOLVE(name)                                                                               \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(library.handle, #name));                          \
  if (!api.name)                                                                                            \
    throw PointSkipped(fmt::format("{} lacks the function {}: rocBLAS of ROCm 5.2 or later is needed", api.path, #name));
  ROOFTOP_ROCBLAS_FUNCTIONS(ROOFTOP_RESOLVE)
#undef ROOFTOP_RESOLVE
  std::size_t size = 0;
  if (api.rocblas_get_version_string_size(&size) == rocblas_status_success && size > 0) {
    std::vector<char> text(size);
    if (api.rocblas_get_version_string(text.data(), size) == rocblas_status_success)
      api.version.assign(text.data(), ::strnlen(text.data(), size));
  }
  if (api.version.empty()) api.version = "(version unknown)";
  return api;
}

const RocblasApi& rocblas() {
  static const RocblasApi api = load_rocblas(amd_gemm_library());  // a throw is retried next time
  return api;
}

void check_rocblas(rocblas_status status, const char* call, const char* file, int line) {
  if (status == rocblas_status_success) return;
  throw GpuError(fmt::format("rocBLAS call {} failed: {} ({}) at {}:{}", call, rocblas().rocblas_status_to_string(status),
                             static_cast<int>(status), file, line));
}

}  // namespace rooftop::gpu
