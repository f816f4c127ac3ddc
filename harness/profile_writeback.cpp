#include "harness/profile_writeback.hpp"

#include <fmt/format.h>

#include "harness/errors.hpp"

namespace rooftop {

int apply_raised_ceilings(DeviceProfile& profile, const nlohmann::ordered_json& remeasured, const std::string& at) {
  if (!remeasured.is_array()) return 0;
  if (!profile.raised.is_array()) profile.raised = nlohmann::ordered_json::array();
  int count = 0;
  for (const auto& r : remeasured) {
    if (!r.is_object() || !r.value("raised", false)) continue;
    const std::string name = r.value("ceiling", std::string());
    const double fresh = r.value("new", 0.0);
    double* current = nullptr;
    for (auto& c : profile.measured.compute)
      if (c.name == name) current = &c.flops_per_s;
    for (auto& b : profile.measured.bandwidth)
      if (b.level == name) current = &b.bytes_per_s;
    if (!current || !(fresh > *current)) continue;
    profile.raised.push_back({{"ceiling", name},
                              {"unit", r.value("unit", std::string())},
                              {"old", *current},
                              {"new", fresh},
                              {"at", at},
                              {"reason", fmt::format("re-measured: {} ran at {:.0f}% of it",
                                                     r.value("trigger", std::string("a result")),
                                                     r.value("trigger_percent", 0.0))}});
    *current = fresh;
    ++count;
  }
  return count;
}

int write_raised_ceilings(const std::filesystem::path& path, const std::string& fingerprint,
                          const nlohmann::ordered_json& remeasured, const std::string& at) {
  auto profile = load_profile(path);
  if (profile.fingerprint != fingerprint)
    throw InputError(fmt::format("{}: now a profile of {}, not of this device {}: the raised ceilings were not written "
                                 "back", path.string(), profile.fingerprint, fingerprint));
  const int count = apply_raised_ceilings(profile, remeasured, at);
  if (count > 0) save_profile(path, profile);
  return count;
}

}  // namespace rooftop
