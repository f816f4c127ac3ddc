#include "harness/paths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "harness/errors.hpp"
#include "harness/printable_text.hpp"

namespace rooftop {

std::filesystem::path rooftop_home() {
  if (const char* home = std::getenv("ROOFTOP_HOME"); home && *home) return home;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "rooftop";
  if (const char* user = std::getenv("HOME"); user && *user) return std::filesystem::path(user) / ".local/share/rooftop";
  return ".rooftop";
}

std::filesystem::path default_profile_path(const std::string& fingerprint) {
  return rooftop_home() / "profiles" / (checked_path_component(fingerprint, "device fingerprint") + ".json");
}

const std::string& checked_path_component(const std::string& name, std::string_view what) {
  const bool safe_chars = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  });
  if (name.empty() || name == "." || name == ".." || name.size() > 200 || !safe_chars)
    throw InputError(fmt::format("{} '{}' cannot name a file: use letters, digits, '.', '_' and '-' (is the results "
                                 "file hand-edited or corrupt?)", what, printable_text(name)));
  return name;
}

}  // namespace rooftop
