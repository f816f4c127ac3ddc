#pragma once
// A GPU's state around a measurement, beside the host's (harness/system_state.hpp): its
// clocks, temperature, power draw, the reasons the driver gives for holding the clocks down
// (NVML's clocks-event reasons) and the compute processes on it. They go into the results'
// and the profile's `conditions` as `device_readings`; a thermal or hardware slowdown makes
// the conditions busy, a power cap is a note (a GEMM at full load meets it by design).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rooftop {

// One reading; a field the device's library does not give stays empty.
struct DeviceReading {
  std::string when;  // "before", "after", "characterize round 2"
  std::string at;    // ISO 8601 UTC
  std::optional<double> sm_clock_mhz, memory_clock_mhz, temperature_c, power_w;
  std::optional<std::uint64_t> throttle_reasons;  // NVML's bit mask (nvmlClocksEventReasons)
  std::optional<int> compute_processes;           // processes with a compute context on the GPU, ours included
};

// NVML's reasons by bit, in its order: "gpu_idle", "sw_power_cap", "hw_slowdown", ...
std::vector<std::string> throttle_reason_names(std::uint64_t mask);
// The reasons that slow a measurement down against the card's best: thermal, hardware and
// power-brake slowdowns (not idle, not the power cap, not application clock settings).
bool slowing_reasons(std::uint64_t mask);
inline constexpr std::uint64_t kPowerCapReason = 0x4;  // NVML sw_power_cap

nlohmann::ordered_json device_reading_to_json(const DeviceReading& reading);
// Adds the readings to a `conditions` object (conditions_to_json's): `device_readings`, and to
// its verdict a reason for each reading with a slowdown (busy) and a note for a power cap.
void add_device_readings(nlohmann::ordered_json& conditions, const std::vector<DeviceReading>& readings);

}  // namespace rooftop
