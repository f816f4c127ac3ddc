#include "harness/share_dir.hpp"

#include <unistd.h>

#include <cstdlib>

namespace rooftop {
namespace fs = std::filesystem;
namespace {
fs::path executable_dir() {
  char exe[4096] = {};
  const auto n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  return n > 0 ? fs::path(std::string(exe, static_cast<std::size_t>(n))).parent_path() : fs::path();
}
}  // namespace

fs::path find_share_dir(const char* env_var, const std::string& name, const std::string& marker,
                        const fs::path& source_dir) {
  if (const char* t = std::getenv(env_var); t && *t) return t;
  const auto bundled = executable_dir().parent_path() / "share/rooftop" / name;
  if (fs::exists(bundled / marker)) return bundled;
  return source_dir;
}

fs::path bundle_lib_dir() { return executable_dir().parent_path() / "lib"; }

}  // namespace rooftop
