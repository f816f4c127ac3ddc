#include "harness/share_dir.hpp"

#include <dlfcn.h>
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
// The file this code was loaded from: the rooftop program, or librooftop.so under a
// downstream project's program (whose own folder knows nothing of rooftop's share/).
fs::path module_dir() {
  Dl_info info{};
  // For the main program glibc gives argv[0], which may be relative or found on the PATH:
  // only an absolute path (a shared library's) is taken.
  if (::dladdr(reinterpret_cast<void*>(&module_dir), &info) && info.dli_fname && info.dli_fname[0] == '/')
    return fs::weakly_canonical(fs::path(info.dli_fname)).parent_path();
  return executable_dir();
}
}  // namespace

fs::path find_share_dir(const char* env_var, const std::string& name, const std::string& marker,
                        const fs::path& source_dir) {
  if (const char* t = std::getenv(env_var); t && *t) return t;
  for (const auto& dir : {module_dir(), executable_dir()}) {
    const auto bundled = dir.parent_path() / "share/rooftop" / name;
    if (fs::exists(bundled / marker)) return bundled;
  }
  return source_dir;
}

fs::path bundle_lib_dir() { return executable_dir().parent_path() / "lib"; }

}  // namespace rooftop
