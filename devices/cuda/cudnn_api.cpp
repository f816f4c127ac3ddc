#include "devices/cuda/cudnn_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "devices/cuda/dynamic_library.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "harness/errors.hpp"

namespace rooftop::gpu {
namespace {

CudnnApi load() {
  const auto places = cuda_library_places("ROOFTOP_CUDNN", ROOFTOP_CUDNN_SONAME);
  CudnnApi api;
  void* lib = open_first(places, api.path);
  if (!lib)
    throw PointSkipped(fmt::format("{} not found (searched: {}); install cuDNN 9, or set ROOFTOP_CUDNN to the file "
                                   "(a PyTorch install has it under site-packages/nvidia/cudnn/lib)",
                                   ROOFTOP_CUDNN_SONAME, fmt::join(places, ", ")));
#define ROOFTOP_RESOLVE(name)                                                                                    \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(lib, #name));                                          \
  if (!api.name) throw PointSkipped(fmt::format("{} lacks the function {}: cuDNN 9 is needed", api.path, #name));
  ROOFTOP_CUDNN_FUNCTIONS(ROOFTOP_RESOLVE)
#undef ROOFTOP_RESOLVE
  if (api.cudnnGetVersion() < 90000)
    throw PointSkipped(fmt::format("{} is cuDNN {}: its graph API's attention needs cuDNN 9", api.path, api.cudnnGetVersion()));
  return api;
}

}  // namespace

const CudnnApi& cudnn() {
  static const CudnnApi api = load();  // a failed load throws and is retried next time
  return api;
}

std::string cudnn_version() {
  const auto v = cudnn().cudnnGetVersion();  // major * 10000 + minor * 100 + patch since 9.0
  return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
}

cudnnHandle_t cudnn_handle() {
  static const cudnnHandle_t handle = [] {
    cudnnHandle_t h = nullptr;
    ROOFTOP_CUDNN_CHECK(cudnn().cudnnCreate(&h));
    ROOFTOP_CUDNN_CHECK(cudnn().cudnnSetStream(h, stream()));
    return h;
  }();
  return handle;
}

void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  char detail[512] = {};
  cudnn().cudnnGetLastErrorString(detail, sizeof detail);
  throw GpuError(fmt::format("cuDNN call {} failed: {} ({}){}{} at {}:{}", call, cudnn().cudnnGetErrorString(status),
                             static_cast<int>(status), detail[0] ? ": " : "", detail, file, line));
}

CudnnDescriptor::CudnnDescriptor(cudnnBackendDescriptorType_t type) {
  ROOFTOP_CUDNN_CHECK(cudnn().cudnnBackendCreateDescriptor(type, &raw_));
}

CudnnDescriptor& CudnnDescriptor::operator=(CudnnDescriptor&& other) noexcept {
  if (this != &other) {
    reset();
    raw_ = other.raw_;
    other.raw_ = nullptr;
  }
  return *this;
}

CudnnDescriptor::~CudnnDescriptor() { reset(); }

void CudnnDescriptor::reset() {
  if (raw_) cudnn().cudnnBackendDestroyDescriptor(raw_);
  raw_ = nullptr;
}

CudnnDescriptor& CudnnDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                                      std::int64_t count, const void* values) {
  ROOFTOP_CUDNN_CHECK(cudnn().cudnnBackendSetAttribute(raw_, name, type, count, values));
  return *this;
}

CudnnDescriptor& CudnnDescriptor::set(cudnnBackendAttributeName_t name, const CudnnDescriptor& value) {
  const cudnnBackendDescriptor_t raw = value.raw();
  return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
}

CudnnDescriptor& CudnnDescriptor::set(cudnnBackendAttributeName_t name, std::int64_t value) {
  return set(name, CUDNN_TYPE_INT64, 1, &value);
}

CudnnDescriptor& CudnnDescriptor::finalize() {
  ROOFTOP_CUDNN_CHECK(cudnn().cudnnBackendFinalize(raw_));
  return *this;
}

bool CudnnDescriptor::try_finalize() { return cudnn().cudnnBackendFinalize(raw_) == CUDNN_STATUS_SUCCESS; }

}  // namespace rooftop::gpu
