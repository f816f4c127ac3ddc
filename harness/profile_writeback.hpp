#pragma once
// A ceiling that a run re-measured higher (harness/roof_check.hpp) is written back to the
// stored profile, so that the next run starts from it instead of meeting the same low roof.
// The old value is kept beside it, in the profile's `raised` records (docs/device-profile.md).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/device_profile.hpp"

namespace rooftop {

// Raises each ceiling of `profile` that a `remeasured` entry (raise_ceilings's: ceiling,
// unit, old, new, raised, trigger, trigger_percent) measured above the profile's own value,
// and appends a record of it to profile.raised: ceiling, unit, old, new, at, reason.
// Entries that were not raised, or that the profile already holds as high, change nothing.
// Returns how many ceilings it raised.
int apply_raised_ceilings(DeviceProfile& profile, const nlohmann::ordered_json& remeasured, const std::string& at);

// Re-reads the profile at `path` (another process may have written it since the run read it),
// applies the raised ceilings and replaces the file atomically (temp file + rename). Returns
// how many it raised; 0 leaves the file untouched. Throws InputError when the file is no
// longer a profile of `fingerprint`.
int write_raised_ceilings(const std::filesystem::path& path, const std::string& fingerprint,
                          const nlohmann::ordered_json& remeasured, const std::string& at);

}  // namespace rooftop
