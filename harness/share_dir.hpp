#pragma once
// Where rooftop's data files (templates, datasheets) are: an environment variable, the
// relocatable bundle's share/rooftop/<name> beside the binary, or the source tree.
#include <filesystem>
#include <string>

namespace rooftop {

// The first of: $env_var; <exe>/../share/rooftop/<name> if it holds `marker`; source_dir.
std::filesystem::path find_share_dir(const char* env_var, const std::string& name, const std::string& marker,
                                     const std::filesystem::path& source_dir);

// <exe>/../lib: where the bundle keeps the shared libraries it carries.
std::filesystem::path bundle_lib_dir();

}  // namespace rooftop
