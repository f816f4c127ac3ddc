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
constexpr int kClockSm = 1;  // NVML_CLOCK_SM

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

std::optional<std::string> Nvml::driver_version() const {
  const auto f = symbol<DriverVersionFn>(library_, "nvmlSystemGetDriverVersion");
  char text[96] = {};
  if (!device_ || !f || f(text, sizeof text) != 0) return std::nullopt;
  return std::string(text);
}

}  // namespace rooftop::gpu
