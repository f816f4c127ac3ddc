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

}  // namespace rooftop::reports
