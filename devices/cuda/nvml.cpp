#include "devices/cuda/nvml.hpp"

#include <dlfcn.h>

namespace rooftop::gpu {
namespace {
// The few NVML entry points used, declared by their documented C ABI (nvml.h is not part
// of the CUDA toolkit here): every function returns 0 (NVML_SUCCESS) on success.
using InitFn = int (*)();
using ShutdownFn = int (*)();
using HandleByBusIdFn = int (*)(const char*, void**);
using ClockFn = int (*)(void*, int, unsigned*);
using PowerLimitFn = int (*)(void*, unsigned*);
using DriverVersionFn = int (*)(char*, unsigned);
using EnergyFn = int (*)(void*, unsigned long long*);
using UintFn = int (*)(void*, unsigned*);
using TemperatureFn = int (*)(void*, int, unsigned*);
using ReasonsFn = int (*)(void*, unsigned long long*);
using ModePairFn = int (*)(void*, unsigned*, unsigned*);  // current, pending (nvmlEnableState_t / MIG mode)
using ModeFn = int (*)(void*, unsigned*);
using ProcessesFn = int (*)(void*, unsigned*, void*);
constexpr int kClockSm = 1;           // NVML_CLOCK_SM
constexpr int kClockMem = 2;          // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;    // NVML_TEMPERATURE_GPU
constexpr int kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE: the count is set

template <class F>
F symbol(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(::dlsym(lib, name)) : nullptr;
}
}  // namespace

Nvml::Nvml(const std::string& pci_bus_id) {
  library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    reason_ = "libnvidia-ml.so.1 not found (the driver's NVML): no clock or power readings";
    return;
  }
  const auto init = symbol<InitFn>(library_, "nvmlInit_v2");
  const auto by_bus = symbol<HandleByBusIdFn>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  if (!init || !by_bus || init() != 0) {
    reason_ = "NVML did not initialise: no clock or power readings";
    return;
  }
  if (by_bus(pci_bus_id.c_str(), &device_) != 0) {
    device_ = nullptr;
    reason_ = "NVML does not know the device at " + pci_bus_id;
  }
}

Nvml::~Nvml() {
  if (!library_) return;
  if (const auto shutdown = symbol<ShutdownFn>(library_, "nvmlShutdown"); shutdown && device_) shutdown();
  ::dlclose(library_);
}

std::optional<double> Nvml::sm_clock_mhz() const {
  const auto f = symbol<ClockFn>(library_, "nvmlDeviceGetClockInfo");
  unsigned mhz = 0;
  if (!device_ || !f || f(device_, kClockSm, &mhz) != 0) return std::nullopt;
  return mhz;
}

std::optional<double> Nvml::max_sm_clock_mhz() const {
  const auto f = symbol<ClockFn>(library_, "nvmlDeviceGetMaxClockInfo");
  unsigned mhz = 0;
  if (!device_ || !f || f(device_, kClockSm, &mhz) != 0) return std::nullopt;
  return mhz;
}

std::optional<double> Nvml::power_limit_w() const {
  const auto f = symbol<PowerLimitFn>(library_, "nvmlDeviceGetPowerManagementLimit");
  unsigned milliwatts = 0;
  if (!device_ || !f || f(device_, &milliwatts) != 0) return std::nullopt;
  return milliwatts / 1000.0;
}

std::optional<double> Nvml::total_energy_j() const {
  const auto f = symbol<EnergyFn>(library_, "nvmlDeviceGetTotalEnergyConsumption");
  unsigned long long millijoules = 0;
  if (!device_ || !f || f(device_, &millijoules) != 0) return std::nullopt;
  return static_cast<double>(millijoules) / 1000.0;
}

std::optional<double> Nvml::memory_clock_mhz() const {
  const auto f = symbol<ClockFn>(library_, "nvmlDeviceGetClockInfo");
  unsigned mhz = 0;
  if (!device_ || !f || f(device_, kClockMem, &mhz) != 0) return std::nullopt;
  return mhz;
}

std::optional<double> Nvml::temperature_c() const {
  const auto f = symbol<TemperatureFn>(library_, "nvmlDeviceGetTemperature");
  unsigned celsius = 0;
  if (!device_ || !f || f(device_, kTemperatureGpu, &celsius) != 0) return std::nullopt;
  return celsius;
}

std::optional<double> Nvml::power_w() const {
  const auto f = symbol<UintFn>(library_, "nvmlDeviceGetPowerUsage");
  unsigned milliwatts = 0;
  if (!device_ || !f || f(device_, &milliwatts) != 0) return std::nullopt;
  return milliwatts / 1000.0;
}

std::optional<std::uint64_t> Nvml::throttle_reasons() const {
  // Renamed "clocks event reasons" in newer drivers; the old name stays exported.
  auto f = symbol<ReasonsFn>(library_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!f) f = symbol<ReasonsFn>(library_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  unsigned long long mask = 0;
  if (!device_ || !f || f(device_, &mask) != 0) return std::nullopt;
  return mask;
}

std::optional<int> Nvml::compute_processes() const {
  // Asked with no room for the list: NVML answers with the count (success when there are none).
  auto f = symbol<ProcessesFn>(library_, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!f) f = symbol<ProcessesFn>(library_, "nvmlDeviceGetComputeRunningProcesses");
  unsigned count = 0;
  if (!device_ || !f) return std::nullopt;
  const int status = f(device_, &count, nullptr);
  if (status != 0 && status != kInsufficientSize) return std::nullopt;
  return static_cast<int>(count);
}

std::optional<double> Nvml::default_power_limit_w() const {
  const auto f = symbol<PowerLimitFn>(library_, "nvmlDeviceGetPowerManagementDefaultLimit");
  unsigned milliwatts = 0;
  if (!device_ || !f || f(device_, &milliwatts) != 0) return std::nullopt;
  return milliwatts / 1000.0;
}

std::optional<bool> Nvml::ecc_enabled() const {
  const auto f = symbol<ModePairFn>(library_, "nvmlDeviceGetEccMode");
  unsigned current = 0, pending = 0;
  if (!device_ || !f || f(device_, &current, &pending) != 0) return std::nullopt;  // no ECC: not supported
  return current != 0;
}

std::optional<bool> Nvml::mig_enabled() const {
  const auto f = symbol<ModePairFn>(library_, "nvmlDeviceGetMigMode");
  unsigned current = 0, pending = 0;
  if (!device_ || !f || f(device_, &current, &pending) != 0) return std::nullopt;  // no MIG on this card
  return current != 0;
}

std::optional<bool> Nvml::persistence_enabled() const {
  const auto f = symbol<ModeFn>(library_, "nvmlDeviceGetPersistenceMode");
  unsigned mode = 0;
  if (!device_ || !f || f(device_, &mode) != 0) return std::nullopt;
  return mode != 0;
}

std::optional<std::string> Nvml::driver_version() const {
  const auto f = symbol<DriverVersionFn>(library_, "nvmlSystemGetDriverVersion");
  char text[96] = {};
  if (!device_ || !f || f(text, sizeof text) != 0) return std::nullopt;
  return std::string(text);
}

}  // namespace rooftop::gpu
