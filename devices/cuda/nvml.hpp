#pragma once
// NVML, loaded at run time (libnvidia-ml.so.1 comes with the driver): the SM clock beside
// every sample, the power limit and the driver version. A machine without it still runs;
// the readings are then absent.
#include <cstdint>
#include <optional>
#include <string>

namespace rooftop::gpu {

class Nvml {
 public:
  static constexpr const char* kName = "nvml";  // the properties' key for its status
  // Opens NVML for the device at this PCI bus id ("0000:3B:00.0"); absent() tells why not.
  explicit Nvml(const std::string& pci_bus_id);
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml();
  bool present() const { return device_ != nullptr; }
  const std::string& absent_reason() const { return reason_; }
  std::optional<double> sm_clock_mhz() const;
  std::optional<double> max_sm_clock_mhz() const;
  std::optional<double> power_limit_w() const;
  // The board's energy since the driver loaded (Volta and later), in joules: two readings
  // bracket a region's energy, however short the board's power averaging window.
  std::optional<double> total_energy_j() const;
  std::optional<std::string> driver_version() const;
  // The card's state around a run (results' conditions, harness/device_conditions.hpp).
  std::optional<double> memory_clock_mhz() const;
  std::optional<double> temperature_c() const;        // the GPU die
  std::optional<double> power_w() const;              // the board's draw now
  std::optional<std::uint64_t> throttle_reasons() const;  // NVML's clocks-event reasons mask
  std::optional<int> compute_processes() const;       // processes with a compute context, ours included
  // Which machine this is: settings that change its roofs or its reliability.
  std::optional<double> default_power_limit_w() const;
  std::optional<bool> ecc_enabled() const;            // the current mode, not the pending one
  std::optional<bool> mig_enabled() const;
  std::optional<bool> persistence_enabled() const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  std::string reason_;
};

}  // namespace rooftop::gpu
