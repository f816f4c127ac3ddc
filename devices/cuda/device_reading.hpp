#pragma once
// The GPU's state now, from its management library (NVML; ROCm SMI on AMD), as the run's
// and characterize's conditions keep it (harness/device_conditions.hpp).
#include <optional>
#include <string>

#include "devices/cuda/device_monitor.hpp"
#include "harness/device_conditions.hpp"

namespace rooftop::gpu {

// Empty where the library is absent: the conditions then have no device readings.
std::optional<DeviceReading> read_device_state(const DeviceMonitor& monitor, const std::string& when);

}  // namespace rooftop::gpu
