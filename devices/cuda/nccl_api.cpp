#include "devices/cuda/nccl_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glob.h>

#include <cstdlib>
#include <vector>

#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"
#include "harness/share_dir.hpp"

namespace rooftop::gpu {
namespace {

constexpr const char* kSoname = "libnccl.so.2";

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* p = std::getenv("ROOFTOP_NCCL"); p && *p) c.push_back(p);
  c.push_back((bundle_lib_dir() / kSoname).string());
  c.push_back(kSoname);
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) c.push_back(std::string(home) + "/lib64/" + kSoname);
  c.push_back(std::string("/usr/local/cuda/lib64/") + kSoname);
  // PyTorch's and CuPy's machines carry NCCL in the nvidia-nccl wheel.
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

NcclApi load() {
  const auto places = candidates();
  void* lib = nullptr;
  NcclApi api;
  for (const auto& p : places)
    if ((lib = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      api.path = p;
      break;
    }
  if (!lib)
    throw DeviceUnavailable(fmt::format("{} not found (searched: {}); install NCCL or set ROOFTOP_NCCL to the file",
                                        kSoname, fmt::join(places, ", ")));
#define ROOFTOP_RESOLVE(name)                                                                          \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(lib, #name));                                \
  if (!api.name) throw DeviceUnavailable(fmt::format("{} lacks the function {}: NCCL 2.x is needed", api.path, #name));
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
  throw GpuError(fmt::format("NCCL call {} failed: {} ({}) at {}:{}", call, nccl().ncclGetErrorString(result),
                             static_cast<int>(result), file, line));
}

}  // namespace rooftop::gpu
