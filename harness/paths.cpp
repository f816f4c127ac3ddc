#include "harness/paths.hpp"

#include <cstdlib>

namespace rooftop {

std::filesystem::path rooftop_home() {
  if (const char* home = std::getenv("ROOFTOP_HOME"); home && *home) return home;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "rooftop";
  if (const char* user = std::getenv("HOME"); user && *user) return std::filesystem::path(user) / ".local/share/rooftop";
  return ".rooftop";
}

std::filesystem::path default_profile_path(const std::string& fingerprint) {
  return rooftop_home() / "profiles" / (fingerprint + ".json");
}

}  // namespace rooftop
