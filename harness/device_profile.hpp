#pragma once
// A device profile: the ceilings `rooftop characterize` measured on one device, with the
// datasheet figures beside them. Format documented in docs/device-profile.md.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "harness/roofline.hpp"

namespace rooftop {

inline constexpr const char* kProfileFormat = "rooftop-device-profile";
inline constexpr int kProfileVersion = 1;

struct Datasheet {
  std::string name;    // the product the figures are for
  std::string source;  // where they come from (URL or document)
  Ceilings ceilings;
  double tdp_w = 0;    // thermal design power from the datasheet; 0 where it gives none
};

struct SweepPoint {
  double working_set_bytes = 0;
  double bytes_per_s = 0;
};

struct DeviceProfile {
  std::string backend;
  std::string fingerprint;
  nlohmann::ordered_json device;  // the device's properties when measured
  std::string created;            // ISO 8601 UTC
  std::string rooftop_version;
  int threads = 0;
  Ceilings measured;
  std::vector<SweepPoint> bandwidth_sweep;
  std::optional<Datasheet> datasheet;
  // How the ceilings were measured (harness/ceiling_trials.hpp) and the host's readings
  // between rounds (harness/system_state.hpp); null in profiles written before them.
  nlohmann::ordered_json trials;
  nlohmann::ordered_json conditions;
  // Ceilings a run re-measured higher and wrote back (harness/profile_writeback.hpp): each
  // with its old value, when and why; null until the first.
  nlohmann::ordered_json raised;
};

// A profile about to be measured: who, what, when and with which build.
DeviceProfile new_profile(std::string backend, std::string fingerprint, nlohmann::ordered_json device, int threads);

nlohmann::ordered_json ceilings_to_json(const Ceilings& ceilings);
// A ceiling is the best ever observed: the higher of each compute and bandwidth figure
// (matched by name and level), the lower dispatch latency. Noise only ever slows a run.
Ceilings merge_ceilings(const Ceilings& stored, const Ceilings& measured);
nlohmann::ordered_json profile_to_json(const DeviceProfile& profile);
// Throws InputError naming `origin` (a file name) and the offending field.
DeviceProfile profile_from_json(const nlohmann::ordered_json& json, const std::string& origin);
DeviceProfile load_profile(const std::filesystem::path& path);
// A datasheet file: {"name", "source", "compute": [...], "bandwidth": [...]} with the
// same ceiling fields as a profile (devices/specs/ holds those of known hardware).
Datasheet load_datasheet(const std::filesystem::path& path);
// A datasheet object (name, source, ceilings, tdp_w) at `path` within `origin`; throws
// InputError naming the field.
Datasheet datasheet_from_json(const nlohmann::ordered_json& json, const std::string& origin, const std::string& path);
void save_profile(const std::filesystem::path& path, const DeviceProfile& profile);

}  // namespace rooftop
