#include "devices/cuda/cuda_backend.hpp"

#include <fmt/format.h>

#include <cmath>
#include <mutex>
#include <optional>

#include "devices/cuda/characterize.hpp"
#include "devices/cuda/cuda_info.hpp"
#include "devices/cuda/cuda_timer.hpp"
#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/nccl_transport.hpp"
#include "devices/cuda/device_monitor.hpp"
#include "devices/cuda/device_reading.hpp"
#include "harness/process_group.hpp"

namespace rooftop::gpu {
namespace {

// The datasheet link (devices/specs/) a collective between this vendor's GPUs is drawn against.
#if defined(ROOFTOP_HIP)
constexpr const char* kGpuLink = "infinity_fabric";
#else
constexpr const char* kGpuLink = "nvlink";
#endif

class CudaBackend final : public Backend {
 public:
  std::string name() const override { return ROOFTOP_GPU_BACKEND; }  // "cuda" or "hip"
  std::string summary() const override {
    const auto& g = info();
#if defined(ROOFTOP_HIP)
    return fmt::format("{} ({}), {} CUs, wave {}, {:.0f} GiB, {:.0f} MiB L2, max clock {:.0f} MHz, driver {}, HIP runtime {}{}",
                       g.name, g.arch, g.sm_count, g.warp_size, g.memory_bytes / 0x1p30, g.l2_bytes / 0x1p20,
                       g.max_sm_clock_mhz, g.driver_version.empty() ? "?" : g.driver_version, version_text(g.runtime_version),
                       g.power_limit_w > 0 ? fmt::format(", power limit {:.0f} W", g.power_limit_w) : "");
#else
    // The settings that change what is measured, where NVML tells them.
    std::string modes;
    if (g.default_power_limit_w > 0 && std::abs(g.default_power_limit_w - g.power_limit_w) >= 1)
      modes += fmt::format(" (default {:.0f} W)", g.default_power_limit_w);
    if (g.ecc) modes += *g.ecc ? ", ECC on" : ", ECC off";
    if (g.mig && *g.mig) modes += ", MIG on";
    if (g.persistence && !*g.persistence) modes += ", persistence off";
    return fmt::format("{}, {} SMs, compute capability {}.{}, {:.0f} GiB, {:.0f} MiB L2, max SM clock {:.0f} MHz, "
                       "driver {} (CUDA {}), runtime {}{}{}, PCI {}",
                       g.name, g.sm_count, g.cc_major, g.cc_minor, g.memory_bytes / 0x1p30, g.l2_bytes / 0x1p20,
                       g.max_sm_clock_mhz, g.driver_version.empty() ? "?" : g.driver_version,
                       version_text(g.driver_cuda_version), version_text(g.runtime_version),
                       g.power_limit_w > 0 ? fmt::format(", power limit {:.0f} W", g.power_limit_w) : "", modes,
                       g.pci_bus_id);
#endif
  }
  nlohmann::ordered_json properties() const override { return to_json(info()); }
  std::string fingerprint() const override { return gpu::fingerprint(info()); }
  // The SM clock now (NVML); 0 where NVML is absent, which the gate reads as unknown.
  double clock_mhz() const override {
    info();
    return nvml_ && nvml_->present() ? nvml_->sm_clock_mhz().value_or(0) : 0;
  }
  std::optional<double> energy_j() const override {
    info();
    return nvml_ && nvml_->present() ? nvml_->total_energy_j() : std::nullopt;
  }
  std::optional<DeviceReading> read_device(const std::string& when) const override {
    info();
    return nvml_ ? read_device_state(*nvml_, when) : std::nullopt;
  }
  DeviceProfile characterize(const CharacterizeOptions& options, std::ostream& log) const override {
    return characterize_gpu(info(), options, log);
  }
  std::string unavailable_reason() const override {
    std::call_once(probe_once_, [this] { reason_ = gpu_unavailable_reason(); });
    return reason_;
  }
  double available_memory_bytes() const override {
    info();
    std::size_t free = 0, total = 0;
    ROOFTOP_GPU_CHECK(cudaMemGetInfo(&free, &total));
    return static_cast<double>(free);
  }
  std::unique_ptr<DeviceTimer> make_timer() const override { return make_cuda_timer(info().l2_bytes, info().sm_count); }
  std::unique_ptr<Transport> make_transport() const override { return make_nccl_transport(process_group()); }
  // Between GPUs: NVLink (AMD's Infinity Fabric), from the datasheet (one direction).
  std::optional<Link> collective_link(const Ceilings*, const Datasheet* datasheet) const override {
    if (datasheet)
      for (const auto& l : datasheet->ceilings.links)
        if (l.name == kGpuLink) return Link{fmt::format("{} (datasheet {}, one direction)", kGpuLink, datasheet->name), l.bytes_per_s};
    return std::nullopt;
  }

 private:
  const GpuInfo& info() const {
    std::call_once(detect_once_, [this] {
      info_ = detect_gpu();
      nvml_.emplace(info_->pci_bus_id);
    });
    return *info_;
  }
  mutable std::once_flag probe_once_, detect_once_;
  mutable std::string reason_;
  mutable std::optional<GpuInfo> info_;
  mutable std::optional<DeviceMonitor> nvml_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace rooftop::gpu
