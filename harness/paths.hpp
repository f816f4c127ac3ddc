#pragma once
#include <filesystem>
#include <string>

namespace rooftop {

// Where rooftop keeps state on this machine: $ROOFTOP_HOME, else $XDG_DATA_HOME/rooftop,
// else ~/.local/share/rooftop.
std::filesystem::path rooftop_home();
// The profile `characterize` writes and `run` reads for a device by default.
std::filesystem::path default_profile_path(const std::string& fingerprint);

}  // namespace rooftop
