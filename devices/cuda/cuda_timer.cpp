#include "devices/cuda/cuda_timer.hpp"

#include "devices/cuda/gpu_kernels.hpp"
#include "devices/cuda/gpu_runtime.hpp"

namespace rooftop::gpu {
namespace {

// Longer than the host needs to queue the start event, the work and the stop event.
constexpr unsigned long long kSpinNs = 20'000;

class CudaTimer final : public DeviceTimer {
 public:
  CudaTimer(double l2_bytes, int sm_count)
      : l2_bytes_(l2_bytes), sm_count_(sm_count), flush_(static_cast<std::size_t>(2 * l2_bytes) / 16 * 16), sink_(sizeof(int)) {
    fill_uniform(Dtype::int8, flush_.get(), flush_.bytes(), 7, -100, 100);
    ROOFTOP_GPU_CHECK(cudaEventCreate(&start_));
    ROOFTOP_GPU_CHECK(cudaEventCreate(&stop_));
  }
  ~CudaTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  double time(const std::function<void()>& enqueue, bool cold, int launches) override {
    if (cold) {
      read_words(flush_.get(), flush_.bytes(), 1, sm_count_ * 4, sink_.as<int>());
      launches = 1;
    }
    spin(kSpinNs);
    ROOFTOP_GPU_CHECK(cudaEventRecord(start_, stream()));
    for (int i = 0; i < launches; ++i) enqueue();
    ROOFTOP_GPU_CHECK(cudaEventRecord(stop_, stream()));
    ROOFTOP_GPU_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    ROOFTOP_GPU_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3 / launches;
  }
  double cache_bytes() const override { return l2_bytes_; }

 private:
  double l2_bytes_;
  int sm_count_;
  DeviceBuffer flush_, sink_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceTimer> make_cuda_timer(double l2_bytes, int sm_count) {
  return std::make_unique<CudaTimer>(l2_bytes, sm_count);
}

}  // namespace rooftop::gpu
