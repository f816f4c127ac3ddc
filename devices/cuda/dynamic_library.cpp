#include "devices/cuda/dynamic_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "harness/share_dir.hpp"

namespace rooftop::gpu {

std::vector<std::string> cuda_library_places(const char* env_var, const std::string& soname) {
  std::vector<std::string> places;
  if (const char* p = std::getenv(env_var); p && *p) places.push_back(p);
  places.push_back((bundle_lib_dir() / soname).string());
  places.push_back(soname);  // LD_LIBRARY_PATH, ld.so.cache
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) places.push_back(std::string(home) + "/lib64/" + soname);
  places.push_back("/usr/local/cuda/lib64/" + soname);
  return places;
}

std::vector<std::string> rocm_library_places(const char* env_var, const std::vector<std::string>& sonames) {
  std::vector<std::string> places;
  if (const char* p = std::getenv(env_var); p && *p) places.push_back(p);
  for (const auto& soname : sonames) places.push_back((bundle_lib_dir() / soname).string());
  const char* rocm = std::getenv("ROCM_PATH");
  for (const auto& soname : sonames) {
    places.push_back(soname);  // LD_LIBRARY_PATH, ld.so.cache
    if (rocm && *rocm) places.push_back(std::string(rocm) + "/lib/" + soname);
    places.push_back("/opt/rocm/lib/" + soname);
  }
  return places;
}

void* open_first(const std::vector<std::string>& places, std::string& opened) {
  for (const auto& p : places)
    if (void* lib = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = p;
      return lib;
    }
  return nullptr;
}

}  // namespace rooftop::gpu
