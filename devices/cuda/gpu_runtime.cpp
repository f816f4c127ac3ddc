#include "devices/cuda/gpu_runtime.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>
#include <utility>

namespace rooftop::gpu {

void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // reported here: the next launch check must not see it again
  throw GpuError(fmt::format("{} call {} failed: {} ({}) at {}:{}", ROOFTOP_GPU_VENDOR, call,
                             cudaGetErrorString(status), cudaGetErrorName(status), file, line));
}

void check_launch(const char* kernel, const char* file, int line) {
  const cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess) return;
  throw GpuError(fmt::format("{} kernel {} failed to launch: {} ({}) at {}:{}", ROOFTOP_GPU_VENDOR, kernel,
                             cudaGetErrorString(status), cudaGetErrorName(status), file, line));
}

cudaStream_t stream() {
  static cudaStream_t s = [] {
    cudaStream_t created = nullptr;
    ROOFTOP_GPU_CHECK(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
    return created;
  }();
  return s;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) { ROOFTOP_GPU_CHECK(cudaMalloc(&ptr_, bytes)); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(ptr_, other.ptr_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);  // a destructor cannot throw; a failed free leaks nothing we can recover
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) { ROOFTOP_GPU_CHECK(cudaMallocHost(&ptr_, bytes)); }
PinnedBuffer::~PinnedBuffer() {
  if (ptr_) cudaFreeHost(ptr_);
}

CapturedGraph::~CapturedGraph() { reset(); }

void CapturedGraph::reset() {
  if (exec_) cudaGraphExecDestroy(exec_);
  exec_ = nullptr;
  nodes_ = 0;
}

void CapturedGraph::begin_capture() {
  reset();
  // Thread-local: another thread's unrelated CUDA calls neither join nor break the capture.
  ROOFTOP_GPU_CHECK(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeThreadLocal));
}

void CapturedGraph::end_capture() {
  cudaGraph_t graph = nullptr;
  ROOFTOP_GPU_CHECK(cudaStreamEndCapture(stream(), &graph));
  std::size_t count = 0;
  const cudaError_t counted = cudaGraphGetNodes(graph, nullptr, &count);
  const cudaError_t made = cudaGraphInstantiate(&exec_, graph, 0);
  cudaGraphDestroy(graph);  // the executable graph keeps what it needs
  ROOFTOP_GPU_CHECK(counted);
  ROOFTOP_GPU_CHECK(made);
  nodes_ = static_cast<int>(count);
}

void CapturedGraph::abandon_capture() {
  cudaGraph_t graph = nullptr;
  if (cudaStreamEndCapture(stream(), &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
  cudaGetLastError();  // the capture's own error was the one thrown
}

void CapturedGraph::launch() const {
  if (!exec_) throw std::logic_error("CapturedGraph::launch before a capture");
  ROOFTOP_GPU_CHECK(cudaGraphLaunch(exec_, stream()));
}

// gpu_pdl.cuh declares it; defined here, in host code, for every GPU build.
bool pdl_supported(const void* kernel) {
#if defined(ROOFTOP_HIP)
  (void)kernel;
  return false;
#else
  if (const char* v = std::getenv("ROOFTOP_PDL"); v && std::string_view(v) == "0") return false;
  cudaFuncAttributes attributes{};
  ROOFTOP_GPU_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return attributes.ptxVersion >= 90 && attributes.binaryVersion >= 90;
#endif
}

}  // namespace rooftop::gpu
