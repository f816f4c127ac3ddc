#pragma once
#include <optional>
#include <string>

#include "harness/backend.hpp"

namespace rooftop::cli {

struct ProfileLookup {
  std::optional<DeviceProfile> profile;
  std::string source;  // the file read, or why there is none
};

// The profile given by the user (must exist and match this device), else the default one
// for this device's fingerprint if it exists. A corrupt or foreign file is an InputError.
ProfileLookup find_profile(const Backend& backend, const std::string& explicit_path);

}  // namespace rooftop::cli
