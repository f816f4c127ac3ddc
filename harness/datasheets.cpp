#include "harness/datasheets.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>

#include "harness/errors.hpp"
#include "harness/json_file.hpp"
#include "harness/share_dir.hpp"

namespace rooftop {
namespace fs = std::filesystem;

fs::path default_specs_dir() {
  return find_share_dir("ROOFTOP_SPECS", "specs", "nvidia-h100-sxm.json", ROOFTOP_SOURCE_SPECS);
}

std::vector<SpecFile> load_specs(const fs::path& dir) {
  std::vector<SpecFile> specs;
  if (!fs::is_directory(dir)) return specs;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    SpecFile s{entry.path().stem().string(), entry.path(), {}, load_datasheet(entry.path())};
    const auto j = read_json_file(entry.path(), "datasheet");
    if (!j.contains("match") || !j["match"].is_array() || j["match"].empty())
      throw InputError(fmt::format("{}: field 'match' must be a non-empty array of name patterns", entry.path().string()));
    for (const auto& m : j["match"]) {
      if (!m.is_string()) throw InputError(fmt::format("{}: field 'match' holds a non-string", entry.path().string()));
      s.match.push_back(m.get<std::string>());
    }
    specs.push_back(std::move(s));
  }
  std::sort(specs.begin(), specs.end(), [](const SpecFile& a, const SpecFile& b) { return a.id < b.id; });
  return specs;
}

std::optional<SpecFile> match_spec(const std::vector<SpecFile>& specs, const std::string& device_name) {
  for (const auto& s : specs)
    for (const auto& pattern : s.match)
      if (std::regex_search(device_name, std::regex(pattern, std::regex::ECMAScript | std::regex::icase))) return s;
  return std::nullopt;
}

std::optional<Datasheet> resolve_datasheet(const std::string& choice, const std::string& device_name,
                                           const fs::path& specs_dir) {
  if (choice == "none") return std::nullopt;
  if (!choice.empty() && fs::is_regular_file(choice)) return load_datasheet(choice);
  const auto specs = load_specs(specs_dir);
  if (choice.empty()) {
    if (auto s = match_spec(specs, device_name)) return s->sheet;
    return std::nullopt;
  }
  std::vector<std::string> ids;
  for (const auto& s : specs) {
    if (s.id == choice) return s.sheet;
    ids.push_back(s.id);
  }
  throw InputError(fmt::format("--datasheet '{}' is neither a file nor a known spec; known specs ({}): {}", choice,
                               specs_dir.string(), fmt::join(ids, ", ")));
}

}  // namespace rooftop
