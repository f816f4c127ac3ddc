#include "devices/cuda/device_reading.hpp"

#include "harness/results.hpp"

namespace rooftop::gpu {

std::optional<DeviceReading> read_device_state(const DeviceMonitor& monitor, const std::string& when) {
  if (!monitor.present()) return std::nullopt;
  DeviceReading r;
  r.when = when;
  r.at = utc_now_iso8601();
  r.sm_clock_mhz = monitor.sm_clock_mhz();
  r.temperature_c = monitor.temperature_c();
  r.power_w = monitor.power_w();
#if !defined(ROOFTOP_HIP)  // NVML's alone
  r.memory_clock_mhz = monitor.memory_clock_mhz();
  r.throttle_reasons = monitor.throttle_reasons();
  r.compute_processes = monitor.compute_processes();
#endif
  return r;
}

}  // namespace rooftop::gpu
