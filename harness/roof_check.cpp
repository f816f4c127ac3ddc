#include "harness/roof_check.hpp"

#include <algorithm>

namespace rooftop {

std::vector<ExceededCeiling> exceeded_ceilings(const nlohmann::ordered_json& j) {
  std::vector<ExceededCeiling> out;
  if (!j.contains("results") || !j["results"].is_array()) return out;
  for (const auto& r : j["results"]) {
    if (!r.contains("roofline") || !r["roofline"].is_object()) continue;
    const auto& roof = r["roofline"];
    if (!roof.value("above_ceiling", false)) continue;
    // The roof the result met is the lower of the two: the compute peak when the attainable
    // rate equals it, else the memory level's slope.
    const double peak = roof.value("compute_peak_flops_per_s", 0.0);
    const bool compute = roof.value("attainable_flops_per_s", 0.0) >= peak * (1 - 1e-9);
    const std::string name = compute ? roof.value("compute_ceiling", std::string()) : roof.value("memory_level", std::string());
    const double percent = roof.value("percent_of_attainable", 0.0);
    auto same = [&](const ExceededCeiling& e) { return e.ceiling == name; };
    if (auto it = std::find_if(out.begin(), out.end(), same); it != out.end()) {
      if (percent > it->percent) { it->trigger = r.value("name", std::string()); it->percent = percent; }
    } else {
      out.push_back({name, compute, r.value("name", std::string()), percent});
    }
  }
  return out;
}

nlohmann::ordered_json raise_ceilings(Ceilings& ceilings, const std::vector<ExceededCeiling>& exceeded,
                                      const Ceilings& remeasured) {
  auto entries = nlohmann::ordered_json::array();
  auto record = [&](const ExceededCeiling& e, const char* unit, double& current, double fresh) {
    const double old_value = current;
    const bool raised = fresh > current;
    if (raised) current = fresh;
    entries.push_back({{"ceiling", e.ceiling}, {"unit", unit}, {"old", old_value}, {"new", fresh}, {"raised", raised},
                       {"trigger", e.trigger}, {"trigger_percent", e.percent}});
  };
  for (const auto& e : exceeded) {
    if (e.compute) {
      for (auto& c : ceilings.compute)
        if (c.name == e.ceiling)
          for (const auto& m : remeasured.compute)
            if (m.name == e.ceiling) record(e, "FLOP/s", c.flops_per_s, m.flops_per_s);
    } else {
      for (auto& b : ceilings.bandwidth)
        if (b.level == e.ceiling)
          for (const auto& m : remeasured.bandwidth)
            if (m.level == e.ceiling) record(e, "B/s", b.bytes_per_s, m.bytes_per_s);
    }
  }
  return entries;
}

}  // namespace rooftop
