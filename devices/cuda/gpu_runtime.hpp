#pragma once
// Host-side GPU runtime helpers: every runtime call checked with the call named, the one
// stream rooftop's GPU work runs on, and owning device and pinned host buffers.
#include <cstddef>
#include <stdexcept>
#include <string>

#include "devices/cuda/vendors/gpu.hpp"

namespace rooftop::gpu {

// A failed GPU runtime or library call; the message names the call and where it was made.
struct GpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t status, const char* call, const char* file, int line);
// The error of the last launch, if any (launches report no status of their own).
void check_launch(const char* kernel, const char* file, int line);

#define ROOFTOP_GPU_CHECK(call) ::rooftop::gpu::check((call), #call, __FILE__, __LINE__)
#define ROOFTOP_GPU_CHECK_LAUNCH(kernel) ::rooftop::gpu::check_launch(kernel, __FILE__, __LINE__)

// The stream all of rooftop's GPU work is queued on (created on first use).
cudaStream_t stream();

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes);
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// The work a function queues on stream(), captured once and replayed with one launch: the
// host's per-kernel launch cost paid once per replay instead of per kernel. Whatever the
// work reads that changes between replays must live in device memory.
class CapturedGraph {
 public:
  CapturedGraph() = default;
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  ~CapturedGraph();
  template <class Queue>
  void capture(Queue&& queue) {
    begin_capture();
    try {
      queue();
    } catch (...) {
      abandon_capture();
      throw;
    }
    end_capture();
  }
  bool empty() const { return exec_ == nullptr; }
  void reset();             // the captured work refers to buffers that moved: capture again
  void launch() const;      // queues one replay on stream()
  int nodes() const { return nodes_; }  // kernels and copies in the graph

 private:
  void begin_capture();
  void end_capture();
  void abandon_capture();
  cudaGraphExec_t exec_ = nullptr;
  int nodes_ = 0;
};

}  // namespace rooftop::gpu
