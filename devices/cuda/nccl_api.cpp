#include "devices/cuda/nccl_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glob.h>

#include <vector>

#include "devices/cuda/dynamic_library.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

#if defined(ROOFTOP_HIP)
constexpr const char* kSoname = "librccl.so.1";
constexpr const char* kLibrary = "RCCL";
constexpr const char* kNeeded = "RCCL with the NCCL 2.x API";
constexpr const char* kInstall = "install ROCm's RCCL or set ROOFTOP_RCCL to the file";
std::vector<std::string> candidates() { return rocm_library_places("ROOFTOP_RCCL", {kSoname}); }
#else
constexpr const char* kSoname = "libnccl.so.2";
constexpr const char* kLibrary = "NCCL";
constexpr const char* kNeeded = "NCCL 2.x";
constexpr const char* kInstall = "install NCCL or set ROOFTOP_NCCL to the file";

// The CUDA places, then PyTorch's and CuPy's machines' nvidia-nccl wheels.
std::vector<std::string> candidates() {
  auto c = cuda_library_places("ROOFTOP_NCCL", kSoname);
  for (const char* pattern : {"/usr/local/lib/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/usr/lib/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/opt/conda/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2"}) {
    glob_t g{};
    if (::glob(pattern, 0, nullptr, &g) == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i) c.push_back(g.gl_pathv[i]);
    ::globfree(&g);
  }
  return c;
}
#endif

NcclApi load() {
  const auto places = candidates();
  NcclApi api;
  void* lib = open_first(places, api.path);
  if (!lib)
    throw DeviceUnavailable(fmt::format("{} not found (searched: {}); {}", kSoname, fmt::join(places, ", "), kInstall));
#define ROOFTOP_RESOLVE(name)                                                                          \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(lib, #name));                                \
  if (!api.name) throw DeviceUnavailable(fmt::format("{} lacks the function {}: {} is needed", api.path, #name, kNeeded));
  ROOFTOP_NCCL_FUNCTIONS(ROOFTOP_RESOLVE)
#undef ROOFTOP_RESOLVE
  return api;
}

}  // namespace

const NcclApi& nccl() {
  static const NcclApi api = load();
  return api;
}

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  throw GpuError(fmt::format("{} call {} failed: {} ({}) at {}:{}", kLibrary, call, nccl().ncclGetErrorString(result),
                             static_cast<int>(result), file, line));
}

}  // namespace rooftop::gpu
