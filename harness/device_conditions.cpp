#include "harness/device_conditions.hpp"

#include <fmt/format.h>

#include <array>

namespace rooftop {
namespace {
// nvml.h's nvmlClocksEventReason* bits, 0x1 upwards.
constexpr std::array<const char*, 9> kReasonNames = {
    "gpu_idle",           "applications_clocks_setting", "sw_power_cap",
    "hw_slowdown",        "sync_boost",                  "sw_thermal_slowdown",
    "hw_thermal_slowdown", "hw_power_brake_slowdown",    "display_clock_setting"};
constexpr std::uint64_t kSlowing = 0x8 | 0x20 | 0x40 | 0x80;  // hw, sw thermal, hw thermal, power brake

template <class T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}
}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  std::vector<std::string> names;
  for (std::size_t bit = 0; bit < kReasonNames.size(); ++bit)
    if (mask & (std::uint64_t{1} << bit)) names.emplace_back(kReasonNames[bit]);
  if (mask >> kReasonNames.size()) names.push_back(fmt::format("other (0x{:x})", mask >> kReasonNames.size() << kReasonNames.size()));
  return names;
}

bool slowing_reasons(std::uint64_t mask) { return (mask & kSlowing) != 0; }

nlohmann::ordered_json device_reading_to_json(const DeviceReading& r) {
  nlohmann::ordered_json j{{"when", r.when},
                           {"at", r.at},
                           {"sm_clock_mhz", or_null(r.sm_clock_mhz)},
                           {"memory_clock_mhz", or_null(r.memory_clock_mhz)},
                           {"temperature_c", or_null(r.temperature_c)},
                           {"power_w", or_null(r.power_w)},
                           {"throttle_reasons", nullptr},
                           {"compute_processes", or_null(r.compute_processes)}};
  if (r.throttle_reasons) j["throttle_reasons"] = throttle_reason_names(*r.throttle_reasons);
  return j;
}

void add_device_readings(nlohmann::ordered_json& conditions, const std::vector<DeviceReading>& readings) {
  if (readings.empty()) return;
  if (!conditions.is_object()) conditions = nlohmann::ordered_json::object();
  for (const char* key : {"reasons", "notes"})
    if (!conditions.contains(key) || !conditions[key].is_array()) conditions[key] = nlohmann::ordered_json::array();
  auto& list = conditions["device_readings"] = nlohmann::ordered_json::array();
  for (const auto& r : readings) {
    list.push_back(device_reading_to_json(r));
    if (!r.throttle_reasons) continue;
    const auto mask = *r.throttle_reasons;
    if (slowing_reasons(mask)) {
      std::vector<std::string> slowing;
      for (const auto& n : throttle_reason_names(mask & kSlowing)) slowing.push_back(n);
      conditions["reasons"].push_back(fmt::format("the GPU held its clocks down: {}{} ({})", joined(slowing),
                                                  r.temperature_c ? fmt::format(" at {:.0f} C", *r.temperature_c) : "",
                                                  r.when));
      conditions["busy"] = true;
    } else if (mask & kPowerCapReason) {
      conditions["notes"].push_back(fmt::format("the GPU ran at its power limit{} (sw_power_cap, {})",
                                                r.power_w ? fmt::format(", drawing {:.0f} W", *r.power_w) : "", r.when));
    }
  }
  if (!conditions.contains("busy")) conditions["busy"] = false;
}

}  // namespace rooftop
