#include "devices/cuda/cuda_timer.hpp"

#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"

namespace rooftop::gpu {
namespace {

// Longer than the host needs to queue the start event, the work and the stop event.
constexpr unsigned long long kSpinNs = 20'000;

class CudaTimer final : public DeviceTimer {
 public:
  explicit CudaTimer(double l2_bytes) : l2_bytes_(l2_bytes), flush_(static_cast<std::size_t>(2 * l2_bytes)) {
    ROOFTOP_GPU_CHECK(cudaEventCreate(&start_));
    ROOFTOP_GPU_CHECK(cudaEventCreate(&stop_));
  }
  ~CudaTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  double time(const std::function<void()>& enqueue, bool cold) override {
    if (cold) ROOFTOP_GPU_CHECK(cudaMemsetAsync(flush_.get(), ++flushes_ & 0xff, flush_.bytes(), stream()));
    spin(kSpinNs);
    ROOFTOP_GPU_CHECK(cudaEventRecord(start_, stream()));
    enqueue();
    ROOFTOP_GPU_CHECK(cudaEventRecord(stop_, stream()));
    ROOFTOP_GPU_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    ROOFTOP_GPU_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }
  double cache_bytes() const override { return l2_bytes_; }

 private:
  double l2_bytes_;
  DeviceBuffer flush_;
  int flushes_ = 0;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceTimer> make_cuda_timer(double l2_bytes) { return std::make_unique<CudaTimer>(l2_bytes); }

}  // namespace rooftop::gpu
