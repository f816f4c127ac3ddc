#include "reports/run_conditions.hpp"

#include <fmt/format.h>

#include "harness/units.hpp"

namespace rooftop::reports {

std::string busy_host_warning(const nlohmann::ordered_json& c) {
  if (!c.is_object() || !c.value("busy", false) || !c.contains("reasons") || !c["reasons"].is_array()) return {};
  std::string why;
  for (const auto& r : c["reasons"])
    if (r.is_string()) why += (why.empty() ? "" : "; ") + r.get<std::string>();
  return fmt::format("BUSY HOST: {}: timings are slower than this machine's best; re-run on a quiet machine", why);
}

std::vector<std::string> remeasured_lines(const nlohmann::ordered_json& c) {
  std::vector<std::string> lines;
  if (!c.is_object() || !c.contains("remeasured") || !c["remeasured"].is_array()) return lines;
  for (const auto& r : c["remeasured"]) {
    if (!r.is_object()) continue;
    const std::string unit = r.value("unit", std::string("FLOP/s"));
    const double old_value = r.value("old", 0.0), new_value = r.value("new", 0.0);
    const auto why = fmt::format("{} ran at {:.0f}% of it", r.value("trigger", std::string("a result")),
                                 r.value("trigger_percent", 0.0));
    const auto name = r.value("ceiling", std::string("?"));
    if (r.value("raised", false))
      lines.push_back(fmt::format("{} raised {} -> {} (re-measured: {})", name, format_si(old_value, unit),
                                  format_si(new_value, unit), why));
    else
      lines.push_back(fmt::format("{} kept at {}: re-measured {}, no higher ({})", name, format_si(old_value, unit),
                                  format_si(new_value, unit), why));
  }
  return lines;
}

std::string device_state_line(const nlohmann::ordered_json& c) {
  if (!c.is_object() || !c.contains("device_readings") || !c["device_readings"].is_array() || c["device_readings"].empty())
    return {};
  const auto& readings = c["device_readings"];
  const auto& first = readings.front();
  const auto& last = readings.back();
  std::vector<std::string> parts;
  const auto pair = [&](const char* key, const char* label, const char* unit) {
    const bool a = first.contains(key) && first[key].is_number(), b = last.contains(key) && last[key].is_number();
    if (!a && !b) return;
    const auto v = [](const nlohmann::ordered_json& r, const char* k) {
      return r.contains(k) && r[k].is_number() ? fmt::format("{:.0f}", r[k].get<double>()) : std::string("?");
    };
    parts.push_back(fmt::format("{}{} -> {} {}", label, v(first, key), v(last, key), unit));
  };
  pair("sm_clock_mhz", "SM ", "MHz");
  pair("temperature_c", "", "C");
  pair("power_w", "", "W");
  std::string line = "GPU before -> after: ";
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i ? ", " : "") + parts[i];
  // The reasons the driver held the clocks down, from any reading (idle is no reason).
  std::vector<std::string> held;
  for (const auto& r : readings) {
    if (!r.contains("throttle_reasons") || !r["throttle_reasons"].is_array()) continue;
    std::string names;
    for (const auto& n : r["throttle_reasons"])
      if (n.is_string() && n.get<std::string>() != "gpu_idle") names += (names.empty() ? "" : ", ") + n.get<std::string>();
    if (!names.empty()) held.push_back(fmt::format("{} ({})", names, r.value("when", std::string("?"))));
  }
  for (std::size_t i = 0; i < held.size(); ++i) line += (i ? "; " : "; held down by ") + held[i];
  return line;
}

}  // namespace rooftop::reports
