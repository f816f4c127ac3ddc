#pragma once
// ROCm SMI, loaded at run time like NVML: the GPU clock beside every sample, power, energy,
// temperature and the driver version of an AMD GPU. A machine without it still runs; the
// readings are then absent. The same interface as Nvml (devices/cuda/device_monitor.hpp).
#include <cstdint>
#include <optional>
#include <string>

namespace rooftop::gpu {

class RocmSmi {
 public:
  static constexpr const char* kName = "rocm_smi";  // the properties' key for its status
  // Opens ROCm SMI for the device at this PCI bus id ("0000:03:00.0"); absent_reason() tells why not.
  explicit RocmSmi(const std::string& pci_bus_id);
  RocmSmi(const RocmSmi&) = delete;
  RocmSmi& operator=(const RocmSmi&) = delete;
  ~RocmSmi();
  bool present() const { return present_; }
  const std::string& absent_reason() const { return reason_; }
  std::optional<double> sm_clock_mhz() const;      // the system (shader) clock now
  std::optional<double> max_sm_clock_mhz() const;  // the highest of its DPM levels
  std::optional<double> power_limit_w() const;
  std::optional<double> power_w() const;           // averaged by the board
  std::optional<double> total_energy_j() const;    // the board's energy counter
  std::optional<double> temperature_c() const;     // junction (hotspot), else edge
  std::optional<std::string> driver_version() const;

 private:
  void* library_ = nullptr;
  bool present_ = false;
  std::uint32_t index_ = 0;  // ROCm SMI's own device index, found by PCI bus id
  std::string reason_;
};

// ROCm SMI's packed bus id (domain << 32 | bus << 8 | device << 3 | function) of a PCI bus
// id string; nullopt when the text is not one.
std::optional<std::uint64_t> rocm_smi_bdf(const std::string& pci_bus_id);

}  // namespace rooftop::gpu
