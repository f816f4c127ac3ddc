#include "devices/cuda/cuda_info.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "devices/cuda/gpu_runtime.hpp"
#include "devices/cuda/device_monitor.hpp"
#include "devices/ranks/local_ranks.hpp"
#include "harness/fingerprint.hpp"

namespace rooftop::gpu {
namespace {
// ROOFTOP_GPU, else a rank's own GPU: the node-local rank of a multi-rank run (what its
// NCCL communicator uses), where there are that many GPUs.
int selected_ordinal() {
  const char* s = std::getenv("ROOFTOP_GPU");
  if (s && *s) return std::atoi(s);
  int count = 0;
  const int local = node_local_rank();
  return local > 0 && cudaGetDeviceCount(&count) == cudaSuccess && local < count ? local : 0;
}
}  // namespace

#if defined(ROOFTOP_HIP)
// HIP's versions count major x 10^7 + minor x 10^5 + patch: 50221153 is 5.2.
std::string version_text(int v) { return fmt::format("{}.{}", v / 10'000'000, (v / 100'000) % 100); }
#else
std::string version_text(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }
#endif

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver) {
    int driver = 0;
    (void)cudaDriverGetVersion(&driver);  // 0 where no driver answers
    int runtime = 0;
    (void)cudaRuntimeGetVersion(&runtime);
#if defined(ROOFTOP_HIP)
    if (driver == 0) return "no AMD GPU driver is usable (the amdgpu kernel driver's /dev/kfd is absent or not accessible)";
    return fmt::format("the AMD GPU driver is older than this build's HIP runtime {}: update ROCm", version_text(runtime));
#else
    if (driver == 0) return "no NVIDIA driver is installed (libcuda.so.1 not found)";
    return fmt::format("the NVIDIA driver supports CUDA {}, older than this build's runtime {}: update the driver",
                       version_text(driver), version_text(runtime));
#endif
  }
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0))
    return fmt::format("no {} is present", ROOFTOP_GPU_DEVICE_WORDS);
  if (status != cudaSuccess)
    return fmt::format("the {} runtime could not start: {} ({})", ROOFTOP_GPU_VENDOR, cudaGetErrorString(status),
                       cudaGetErrorName(status));
  if (const int ordinal = selected_ordinal(); ordinal < 0 || ordinal >= count)
    return fmt::format("ROOFTOP_GPU={} but there are {} {}s (0..{})", ordinal, count, ROOFTOP_GPU_DEVICE_WORDS, count - 1);
  return {};
}

GpuInfo detect_gpu() {
  GpuInfo g;
  g.ordinal = selected_ordinal();
  ROOFTOP_GPU_CHECK(cudaSetDevice(g.ordinal));
  cudaDeviceProp p{};
  ROOFTOP_GPU_CHECK(cudaGetDeviceProperties(&p, g.ordinal));
  g.name = p.name;
  char bus[32] = {};
  ROOFTOP_GPU_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, g.ordinal));
  g.pci_bus_id = bus;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  g.sm_count = p.multiProcessorCount;
  int khz = 0;
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, g.ordinal));
  g.max_sm_clock_mhz = khz / 1000.0;
  ROOFTOP_GPU_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, g.ordinal));
  g.memory_clock_mhz = khz / 1000.0;
  g.memory_bus_bits = p.memoryBusWidth;
  g.memory_bytes = static_cast<double>(p.totalGlobalMem);
  g.l2_bytes = p.l2CacheSize;
  g.warp_size = p.warpSize;
#if defined(ROOFTOP_HIP)
  g.arch = p.gcnArchName;  // "gfx90a:sramecc+:xnack-"
  g.shared_per_block_optin_bytes = static_cast<double>(p.sharedMemPerBlock);  // LDS: no opt-in beyond it
  g.shared_per_sm_bytes = static_cast<double>(p.maxSharedMemoryPerMultiProcessor);
#else
  g.shared_per_block_optin_bytes = static_cast<double>(p.sharedMemPerBlockOptin);
  g.shared_per_sm_bytes = static_cast<double>(p.sharedMemPerMultiprocessor);
#endif
  ROOFTOP_GPU_CHECK(cudaDriverGetVersion(&g.driver_cuda_version));
  ROOFTOP_GPU_CHECK(cudaRuntimeGetVersion(&g.runtime_version));
  const DeviceMonitor nvml(g.pci_bus_id);
  g.nvml_status = nvml.present() ? "ok" : nvml.absent_reason();
  g.driver_version = nvml.driver_version().value_or("");
  g.power_limit_w = nvml.power_limit_w().value_or(0);
  if (const auto max_clock = nvml.max_sm_clock_mhz()) g.max_sm_clock_mhz = *max_clock;
#if !defined(ROOFTOP_HIP)  // NVML's: ROCm SMI has no such modes here
  g.default_power_limit_w = nvml.default_power_limit_w().value_or(0);
  g.ecc = nvml.ecc_enabled();
  g.mig = nvml.mig_enabled();
  g.persistence = nvml.persistence_enabled();
#endif
  return g;
}

nlohmann::ordered_json to_json(const GpuInfo& g) {
  nlohmann::ordered_json j = {{"name", g.name},
          {"vendor", ROOFTOP_GPU_VENDOR},
          {"ordinal", g.ordinal},
          {"pci_bus_id", g.pci_bus_id},
          {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
          {"multiprocessors", g.sm_count},
          {"max_sm_clock_mhz", g.max_sm_clock_mhz},
          {"memory_clock_mhz", g.memory_clock_mhz},
          {"memory_bus_bits", g.memory_bus_bits},
          {"memory_bytes", g.memory_bytes},
          {"l2_bytes", g.l2_bytes},
          {"shared_memory_per_block_optin_bytes", g.shared_per_block_optin_bytes},
          {"shared_memory_per_multiprocessor_bytes", g.shared_per_sm_bytes},
          {"driver_version", g.driver_version},
          {"driver_cuda_version", version_text(g.driver_cuda_version)},
          {"runtime_version", version_text(g.runtime_version)},
          {"power_limit_w", g.power_limit_w},
          {"default_power_limit_w", g.default_power_limit_w},
          {"ecc", g.ecc ? nlohmann::ordered_json(*g.ecc) : nlohmann::ordered_json(nullptr)},
          {"mig", g.mig ? nlohmann::ordered_json(*g.mig) : nlohmann::ordered_json(nullptr)},
          {"persistence", g.persistence ? nlohmann::ordered_json(*g.persistence) : nlohmann::ordered_json(nullptr)},
          {DeviceMonitor::kName, g.nvml_status}};
#if defined(ROOFTOP_HIP)
  // Only where they say something CUDA's compute capability does not.
  j["arch"] = g.arch;
  j["warp_size"] = g.warp_size;
#endif
  return j;
}

std::string fingerprint(const GpuInfo& g) {
  const std::string identity =
      fmt::format("{}|{}.{}|{}|{:.0f}|{:.0f}|{:.0f}|{}|{:.0f}", g.name, g.cc_major, g.cc_minor, g.sm_count,
                  g.max_sm_clock_mhz, g.memory_clock_mhz, g.memory_bytes / 0x1p30, g.memory_bus_bits, g.l2_bytes);
  return make_fingerprint(ROOFTOP_GPU_BACKEND, g.name, fmt::format("{}sm", g.sm_count), identity);
}

}  // namespace rooftop::gpu
