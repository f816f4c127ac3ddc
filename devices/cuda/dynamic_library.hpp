#pragma once
// Opening the vendors' libraries at run time (cuBLASLt, NCCL; rocBLAS, RCCL, ROCm SMI): the places looked in, in order,
// and the first that loads.
#include <string>
#include <vector>

namespace rooftop::gpu {

// $<env_var> (a file), the bundle's lib/, the loader's path, $CUDA_HOME/lib64 and
// /usr/local/cuda/lib64, each holding `soname`.
std::vector<std::string> cuda_library_places(const char* env_var, const std::string& soname);
// ROCm's: $<env_var>, the bundle's lib/, then for each soname the loader's path,
// $ROCM_PATH/lib and /opt/rocm/lib (Debian's and AMD's packages name some libraries apart).
std::vector<std::string> rocm_library_places(const char* env_var, const std::vector<std::string>& sonames);
// The first place dlopen accepts (its handle, and `opened` names it); null when none does.
void* open_first(const std::vector<std::string>& places, std::string& opened);

}  // namespace rooftop::gpu
