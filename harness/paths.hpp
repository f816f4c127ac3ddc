#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace rooftop {

// Where rooftop keeps state on this machine: $ROOFTOP_HOME, else $XDG_DATA_HOME/rooftop,
// else ~/.local/share/rooftop.
std::filesystem::path rooftop_home();
// The profile `characterize` writes and `run` reads for a device by default.
std::filesystem::path default_profile_path(const std::string& fingerprint);

// `name` as one component of a path (a fingerprint, a suite): letters, digits, '.', '_'
// and '-', not "." or "..", at most 200 characters. A name read from a file that could
// climb out of its folder ("../x") or hide its order (a right-to-left override) throws
// InputError saying `what` it is.
const std::string& checked_path_component(const std::string& name, std::string_view what);

}  // namespace rooftop
