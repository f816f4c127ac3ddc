#include "devices/cuda/cublaslt_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <vector>

#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"
#include "harness/share_dir.hpp"

namespace rooftop::gpu {
namespace {

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* p = std::getenv("ROOFTOP_CUBLASLT"); p && *p) c.push_back(p);
  c.push_back((bundle_lib_dir() / ROOFTOP_CUBLASLT_SONAME).string());
  c.push_back(ROOFTOP_CUBLASLT_SONAME);  // LD_LIBRARY_PATH, ld.so.cache
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) c.push_back(std::string(home) + "/lib64/" + ROOFTOP_CUBLASLT_SONAME);
  c.push_back(std::string("/usr/local/cuda/lib64/") + ROOFTOP_CUBLASLT_SONAME);
  return c;
}

CublasLtApi load() {
  const auto places = candidates();
  void* lib = nullptr;
  CublasLtApi api;
  for (const auto& p : places)
    if ((lib = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      api.path = p;
      break;
    }
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
