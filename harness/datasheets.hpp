#pragma once
// Datasheet ceilings of known hardware (devices/specs/*.json), matched to a detected
// device by name; `characterize --datasheet` overrides the match.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/device_profile.hpp"

namespace rooftop {

struct SpecFile {
  std::string id;                  // the file's stem, e.g. "nvidia-h100-sxm"
  std::filesystem::path path;
  std::vector<std::string> match;  // ECMAScript regexes searched in the device's name
  Datasheet sheet;
};

std::filesystem::path default_specs_dir();
// Every *.json in `dir`, sorted by id; throws InputError naming a malformed file.
std::vector<SpecFile> load_specs(const std::filesystem::path& dir);
// The spec whose patterns match `device_name`; none when no pattern matches.
std::optional<SpecFile> match_spec(const std::vector<SpecFile>& specs, const std::string& device_name);

// What `--datasheet CHOICE` means: "" matches by name, "none" keeps none, an existing file
// is read, else CHOICE is a spec id. Throws InputError listing the ids for an unknown one.
std::optional<Datasheet> resolve_datasheet(const std::string& choice, const std::string& device_name,
                                           const std::filesystem::path& specs_dir);

}  // namespace rooftop
