#pragma once
// cuDNN 9's graph API, loaded at run time like cuBLASLt: cuDNN is a separate install of about
// a gigabyte that most machines lack, so its points skip with the places searched.
#include <cudnn_graph.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace rooftop::gpu {

#define ROOFTOP_CUDNN_FUNCTIONS(X)                                                                       \
  X(cudnnGetVersion) X(cudnnGetErrorString) X(cudnnGetLastErrorString) X(cudnnCreate) X(cudnnDestroy)    \
  X(cudnnSetStream) X(cudnnBackendCreateDescriptor) X(cudnnBackendDestroyDescriptor)                    \
  X(cudnnBackendSetAttribute) X(cudnnBackendGetAttribute) X(cudnnBackendFinalize) X(cudnnBackendExecute)

struct CudnnApi {
#define ROOFTOP_DECLARE(name) decltype(&::name) name = nullptr;
  ROOFTOP_CUDNN_FUNCTIONS(ROOFTOP_DECLARE)
#undef ROOFTOP_DECLARE
  std::string path;  // the file it was loaded from
};

// The loaded library; throws PointSkipped naming the places searched when it is absent.
// Searched: $ROOFTOP_CUDNN, the bundle's lib/, the loader's path, $CUDA_HOME/lib64,
// /usr/local/cuda/lib64.
const CudnnApi& cudnn();
// "9.19.0" from the library that was loaded (not the headers this was built with).
std::string cudnn_version();
// One handle for the process, on rooftop's stream and the device current at its first use
// (a process that runs cuDNN drives one GPU). Never destroyed: at exit the CUDA context may
// already be gone, and cudnnDestroy would then fault in a static destructor.
cudnnHandle_t cudnn_handle();

// Throws GpuError naming the call and cuDNN's own account of the failure.
void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line);
#define ROOFTOP_CUDNN_CHECK(call) ::rooftop::gpu::check_cudnn((call), #call, __FILE__, __LINE__)

// An owned backend descriptor: created with a type, given attributes, finalized.
class CudnnDescriptor {
 public:
  explicit CudnnDescriptor(cudnnBackendDescriptorType_t type);
  CudnnDescriptor(CudnnDescriptor&& other) noexcept : raw_(other.raw_) { other.raw_ = nullptr; }
  CudnnDescriptor& operator=(CudnnDescriptor&& other) noexcept;
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  ~CudnnDescriptor();

  CudnnDescriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
                       const void* values);
  CudnnDescriptor& set(cudnnBackendAttributeName_t name, const CudnnDescriptor& value);
  CudnnDescriptor& set(cudnnBackendAttributeName_t name, std::int64_t value);
  // An enum would convert to int64 and be set as CUDNN_TYPE_INT64, which cuDNN refuses only at
  // finalize: name its attribute type with the first overload instead.
  template <class E>
    requires std::is_enum_v<E>
  CudnnDescriptor& set(cudnnBackendAttributeName_t name, E value) = delete;
  CudnnDescriptor& finalize();
  // Finalizes, and says whether cuDNN accepted it (an engine that cannot run this graph refuses).
  bool try_finalize();
  cudnnBackendDescriptor_t raw() const { return raw_; }
  cudnnBackendDescriptor_t* address() { return &raw_; }

 private:
  void reset();
  cudnnBackendDescriptor_t raw_ = nullptr;
};

}  // namespace rooftop::gpu
